package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.diff.FieldChange;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One line of a plan: what happens to one object and why.
 *
 * @param ref the object
 * @param action what happens to it
 * @param reason why, in words (for conflicts, repairs, adoptions, recreations), or {@code null}
 * @param desiredHash the content hash the release wants, or {@code null} for prunes and references
 * @param owner the release that owns the object, for conflicts with another release, or {@code
 *     null}
 * @param createReference for a missing namespace reference: create it (it stays unowned)
 * @param wave the apply wave of a desired object ({@code capstan.dev/wave}); 0 otherwise
 * @param diff the field-level changes of an update, repair or adoption, attached only where a
 *     person reviews the plan ({@code ReleaseController.planWithDiff}); empty otherwise, and for
 *     creates (the whole object is new), prunes, retains, references and conflicts
 * @param ignored the fields of the object that drift ignore rules leave to other writers: not
 *     drift, and left out when the cast writes the object; empty for a create (the object starts as
 *     the manifest has it) and for removals, references and conflicts
 */
public record PlannedChange(
    ResourceRef ref,
    Action action,
    @Nullable String reason,
    @Nullable String desiredHash,
    @Nullable ReleaseIdentity owner,
    boolean createReference,
    int wave,
    List<FieldChange> diff,
    List<IgnoredField> ignored) {

  /** Requires the ref and action; copies the diff and the ignored fields. */
  public PlannedChange {
    requireNonNull(ref, "ref");
    requireNonNull(action, "action");
    diff = List.copyOf(diff);
    ignored = List.copyOf(ignored);
  }

  /** A change that ignores no field. */
  public PlannedChange(
      ResourceRef ref,
      Action action,
      @Nullable String reason,
      @Nullable String desiredHash,
      @Nullable ReleaseIdentity owner,
      boolean createReference,
      int wave,
      List<FieldChange> diff) {
    this(ref, action, reason, desiredHash, owner, createReference, wave, diff, List.of());
  }

  /** A change without a field-level diff. */
  public PlannedChange(
      ResourceRef ref,
      Action action,
      @Nullable String reason,
      @Nullable String desiredHash,
      @Nullable ReleaseIdentity owner,
      boolean createReference,
      int wave) {
    this(ref, action, reason, desiredHash, owner, createReference, wave, List.of());
  }

  /** A change in wave 0. */
  public PlannedChange(
      ResourceRef ref,
      Action action,
      @Nullable String reason,
      @Nullable String desiredHash,
      @Nullable ReleaseIdentity owner,
      boolean createReference) {
    this(ref, action, reason, desiredHash, owner, createReference, 0);
  }

  /** This change with {@code diff} as its field-level diff. */
  public PlannedChange withDiff(List<FieldChange> diff) {
    return new PlannedChange(
        ref, action, reason, desiredHash, owner, createReference, wave, diff, ignored);
  }

  /** This change with {@code ignored} as the fields ignore rules leave to others. */
  public PlannedChange withIgnored(List<IgnoredField> ignored) {
    return new PlannedChange(
        ref, action, reason, desiredHash, owner, createReference, wave, diff, ignored);
  }

  /**
   * This change as a {@link Action#CONFLICT} the cluster refuses: a write the API server would not
   * accept (found by a dry run before any write). It keeps its wave; it writes nothing.
   *
   * @param reason why, naming the rule the cluster applied and its message
   */
  public PlannedChange refused(String reason) {
    requireNonNull(reason, "reason");
    return new PlannedChange(ref, Action.CONFLICT, reason, null, owner, false, wave, diff, ignored);
  }

  static PlannedChange of(
      ResourceRef ref, Action action, @Nullable String reason, String hash, int wave) {
    return new PlannedChange(ref, action, reason, hash, null, false, wave);
  }

  static PlannedChange conflict(
      ResourceRef ref, String reason, @Nullable ReleaseIdentity owner, int wave) {
    return new PlannedChange(ref, Action.CONFLICT, reason, null, owner, false, wave);
  }

  static PlannedChange reference(ResourceRef ref, @Nullable String reason, boolean create) {
    return new PlannedChange(ref, Action.REFERENCE, reason, null, null, create, 0);
  }

  /**
   * Whether this change writes an ensured namespace ({@code EnsuredNamespace}): a {@code Namespace}
   * created or updated (no other change creates or updates one, since a release never owns one).
   */
  public boolean ensures() {
    return ref.kind().equals(Kind.NAMESPACE)
        && (action == Action.CREATE || action == Action.UPDATE);
  }

  static PlannedChange ensure(ResourceRef ref, Action action, String reason) {
    return new PlannedChange(ref, action, reason, null, null, false, 0);
  }

  static PlannedChange removal(ResourceRef ref, Action action, @Nullable String reason) {
    return new PlannedChange(ref, action, reason, null, null, false, 0);
  }
}
