package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The gate a cast's plan passes before its first write (ARCHITECTURE.md, "The destructive-change
 * gate"): a plan that would delete ({@code prune} or {@code replace}) an object of a protected
 * kind, or more objects than the budget allows, is refused listing what would go, unless each such
 * object is approved by name. Confirming a plan ({@code --yes}) is no approval.
 *
 * @param protectedKinds kinds ({@code [group/]Kind}) whose every delete needs an approval by name;
 *     by default Namespace, PersistentVolumeClaim, PersistentVolume and CustomResourceDefinition
 * @param budget how many unapproved deletes a plan may hold, or {@code null} for no limit (the
 *     default)
 * @param approved the objects this cast may delete whatever the policy says; none by default. An
 *     approval of an object the plan does not delete does nothing
 */
public record DeleteGate(
    List<String> protectedKinds, @Nullable DeleteBudget budget, List<ResourceRef> approved) {

  /** The kinds protected by default. */
  public static final List<String> DEFAULT_PROTECTED_KINDS =
      List.of(
          Kind.NAMESPACE.key(),
          Kind.PERSISTENT_VOLUME_CLAIM.key(),
          Kind.PERSISTENT_VOLUME.key(),
          Kind.CUSTOM_RESOURCE_DEFINITION.key());

  private static final DeleteGate DEFAULTS =
      new DeleteGate(DEFAULT_PROTECTED_KINDS, null, List.of());

  /**
   * Checks each kind ({@link Kind#parseKey}); sorts and de-duplicates the kinds and the approvals.
   *
   * @throws IllegalArgumentException naming a kind that is not {@code [group/]Kind}
   */
  public DeleteGate {
    TreeSet<String> kinds = new TreeSet<>();
    for (String kind : requireNonNull(protectedKinds, "protectedKinds")) {
      kinds.add(Kind.parseKey(requireNonNull(kind, "protected kind"), true).key());
    }
    protectedKinds = List.copyOf(kinds);
    TreeSet<String> keys = new TreeSet<>();
    List<ResourceRef> refs = new ArrayList<>();
    for (ResourceRef ref : requireNonNull(approved, "approved")) {
      if (keys.add(requireNonNull(ref, "approved object").key())) {
        refs.add(ref);
      }
    }
    refs.sort((a, b) -> a.key().compareTo(b.key()));
    approved = List.copyOf(refs);
  }

  /** The default gate: the four kinds protected, no budget, nothing approved. */
  public static DeleteGate defaults() {
    return DEFAULTS;
  }

  /** Whether {@code kind} is protected. */
  public boolean protects(Kind kind) {
    return protectedKinds.contains(kind.key());
  }

  /** Whether {@code ref} is approved by name. */
  public boolean approves(ResourceRef ref) {
    return approved.contains(ref);
  }

  /** A copy protecting exactly {@code kinds} (none when empty). */
  public DeleteGate withProtectedKinds(Collection<String> kinds) {
    return new DeleteGate(List.copyOf(kinds), budget, approved);
  }

  /** A copy with {@code budget} ({@code null}: no limit). */
  public DeleteGate withBudget(@Nullable DeleteBudget budget) {
    return new DeleteGate(protectedKinds, budget, approved);
  }

  /** A copy that approves {@code refs} too. */
  public DeleteGate approving(Collection<ResourceRef> refs) {
    List<ResourceRef> all = new ArrayList<>(approved);
    all.addAll(refs);
    return new DeleteGate(protectedKinds, budget, all);
  }

  /**
   * The gate of a reviewed plan cast with {@code atCast}: the plan's policy holds (its protected
   * kinds and budget), and the approvals given at cast add to the plan's.
   */
  public DeleteGate atCast(DeleteGate atCast) {
    return approving(atCast.approved);
  }
}
