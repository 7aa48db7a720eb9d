package dev.capstan.release.plan;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.Optional;

/**
 * What {@link Planner} plans for one reference of the spec: a namespace the spec ensures created,
 * updated or left as it is; any other reference read only, created (a namespace the spec may
 * create) or refused as a conflict (the rows of ARCHITECTURE.md, "The 3-way plan", for a
 * reference).
 */
final class ReferenceChange {
  private ReferenceChange() {}

  /**
   * The change for the reference {@code referenced} of {@code spec}: as an ensured namespace when
   * the spec ensures it, otherwise as a reference.
   */
  static PlannedChange of(ObjectJoin.Referenced referenced, ReleaseSpec spec) {
    EnsuredNamespace ensured = referenced.ensured();
    return ensured != null ? ensured(referenced, ensured) : referenced(referenced, spec);
  }

  /**
   * A reference the spec does not ensure: planned as read only when live, created when it is a
   * namespace and the spec may create it, otherwise a conflict.
   */
  private static PlannedChange referenced(ObjectJoin.Referenced referenced, ReleaseSpec spec) {
    ResourceRef ref = referenced.ref();
    if (referenced.live().isPresent()) {
      return PlannedChange.reference(ref, null, false);
    }
    if (ref.kind().equals(Kind.NAMESPACE) && spec.options().createNamespace()) {
      return PlannedChange.reference(ref, "missing; created because createNamespace is set", true);
    }
    if (ref.equals(ResourceRef.namespace(spec.namespace()))) {
      return PlannedChange.conflict(
          ref,
          "the release's namespace '"
              + ref.name()
              + "' does not exist, and its record and lease are kept there; create it, or pass"
              + " createNamespace (the CLI's --create-namespace) to have the cast create it",
          null,
          0);
    }
    String hint =
        ref.kind().equals(Kind.NAMESPACE)
            ? "; create it, or pass createNamespace (the CLI's --create-namespace)"
            : "; create it first";
    return PlannedChange.conflict(
        ref,
        "referenced " + ref.kind().lowerName() + " '" + ref.name() + "' does not exist" + hint,
        null,
        0);
  }

  /**
   * An ensured namespace: created when absent; updated when a label or annotation of the document
   * is not live with its value, or one the release applied before (revision {@code previous}) and
   * dropped is still live; otherwise a reference. Never owned: no content hash, no stamp.
   */
  private static PlannedChange ensured(ObjectJoin.Referenced referenced, EnsuredNamespace ensured) {
    ResourceRef ref = ensured.ref();
    Optional<LiveObject> live = referenced.live();
    EnsuredNamespace previous = referenced.previous();
    if (live.isEmpty()) {
      return PlannedChange.ensure(
          ref, Action.CREATE, "ensured: created with the labels and annotations of the document");
    }
    List<String> changes = ensured.changes(live.get().labels(), live.get().annotations(), previous);
    if (changes.isEmpty()) {
      return PlannedChange.reference(ref, Planner.ENSURED_UNCHANGED, false);
    }
    return PlannedChange.ensure(ref, Action.UPDATE, "ensured: " + String.join("; ", changes));
  }
}
