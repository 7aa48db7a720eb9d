package dev.capstan.release.file;

import dev.capstan.common.StrictMap;
import dev.capstan.release.model.DeleteBudget;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.List;

/**
 * The destructive-change gate's fields of a document's {@code options} (a release file's {@code
 * spec.options}, a Release resource's): {@code protectedKinds}, {@code deleteBudget} ({@code "10"}
 * or {@code "20%"}) and {@code approveDeletes} ({@code [group/]Kind/namespace/name}). Each bad
 * value is a problem of its field, with the value; nothing is coerced.
 */
public final class DeleteGates {
  /** The policy fields. */
  public static final String PROTECTED_KINDS = "protectedKinds";

  /** The budget field. */
  public static final String DELETE_BUDGET = "deleteBudget";

  /** The approvals field. */
  public static final String APPROVE_DELETES = "approveDeletes";

  private DeleteGates() {}

  /**
   * {@code base} with the policy {@code options} gives (with {@code policy}) and its approvals
   * added; problems are reported on {@code options}.
   *
   * @param policy whether {@code protectedKinds} and {@code deleteBudget} are read (a Release
   *     resource's policy is its controller's, so it reads approvals only)
   */
  public static DeleteGate read(StrictMap options, DeleteGate base, boolean policy) {
    DeleteGate gate = base;
    if (policy && options.has(PROTECTED_KINDS)) {
      List<String> kinds = new ArrayList<>();
      for (String kind : options.strings(PROTECTED_KINDS)) {
        try {
          kinds.add(Kind.parseKey(kind, true).key());
        } catch (IllegalArgumentException e) {
          options.problem(PROTECTED_KINDS, "must hold kinds as [group/]Kind", kind);
        }
      }
      gate = gate.withProtectedKinds(kinds);
    }
    String budget = policy ? options.optionalString(DELETE_BUDGET) : null;
    if (budget != null) {
      try {
        gate = gate.withBudget(DeleteBudget.parse(budget));
      } catch (IllegalArgumentException e) {
        options.problem(
            DELETE_BUDGET, "must be a count (\"10\") or a share of the release (\"20%\")", budget);
      }
    }
    List<ResourceRef> approved = new ArrayList<>();
    for (String key : options.strings(APPROVE_DELETES)) {
      try {
        approved.add(ResourceRef.parse(key));
      } catch (IllegalArgumentException e) {
        options.problem(APPROVE_DELETES, "must hold objects as [group/]Kind/namespace/name", key);
      }
    }
    return gate.approving(approved);
  }
}
