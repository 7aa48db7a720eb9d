package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Planner#plan} decides on, joined once up front: each object with what the spec wants
 * of it, what the latest revision recorded of it and what is live, so that each decision reads its
 * own entry instead of looking the object up again. Every object is looked up in the live state
 * once, in the order the plan lists them (references, desired objects, dropped objects, dropped
 * namespaces); the fingerprint's observations are those same lookups.
 */
final class ObjectJoin {
  private final List<Referenced> references;
  private final List<Desired> desired;
  private final List<Dropped> dropped;
  private final List<DroppedNamespace> droppedNamespaces;
  private final List<PlanFingerprint.Observed> observed;

  private ObjectJoin(
      List<Referenced> references,
      List<Desired> desired,
      List<Dropped> dropped,
      List<DroppedNamespace> droppedNamespaces,
      List<PlanFingerprint.Observed> observed) {
    this.references = List.copyOf(references);
    this.desired = List.copyOf(desired);
    this.dropped = List.copyOf(dropped);
    this.droppedNamespaces = List.copyOf(droppedNamespaces);
    this.observed = List.copyOf(observed);
  }

  /** The spec's references, in its order. */
  List<Referenced> references() {
    return references;
  }

  /** The spec's objects, in its (apply) order. */
  List<Desired> desired() {
    return desired;
  }

  /** The objects the latest revision owns and the spec no longer holds, in apply order. */
  List<Dropped> dropped() {
    return dropped;
  }

  /**
   * The namespaces the latest revision ensured with {@link EnsuredNamespace#DELETE_WITH_RELEASE}
   * that the spec no longer references.
   */
  List<DroppedNamespace> droppedNamespaces() {
    return droppedNamespaces;
  }

  /**
   * Every object looked up, by key: what the plan is computed from (the fingerprint's observations;
   * the store's version of the record is added by the caller that read it, {@link
   * PlanFingerprint#withRecordVersion}).
   */
  List<PlanFingerprint.Observed> observed() {
    return observed;
  }

  /**
   * A reference of the spec: {@code ensured} when the spec ensures it (a namespace whose document
   * it holds), {@code previous} what the latest revision ensured of it.
   */
  record Referenced(
      ResourceRef ref,
      @Nullable EnsuredNamespace ensured,
      @Nullable EnsuredNamespace previous,
      Optional<LiveObject> live) {
    /** Requires the ref and the lookup. */
    Referenced {
      requireNonNull(ref, "ref");
      requireNonNull(live, "live");
    }
  }

  /**
   * A desired object: the hash the latest revision recorded for it ({@code null}: it owned none),
   * whether that revision retained it and the uid of the object it retained ({@code null}: it
   * retained none, or recorded no uid), the reason its update is given ({@code null}: none) and the
   * fields rules of paths leave to others.
   */
  record Desired(
      DesiredResource resource,
      @Nullable String recordedHash,
      boolean retained,
      @Nullable String retainedUid,
      @Nullable String updateReason,
      List<IgnoredField> ignoredPaths,
      Optional<LiveObject> live) {
    /** Requires the object and the lookup; copies the fields. */
    Desired {
      requireNonNull(resource, "resource");
      ignoredPaths = List.copyOf(ignoredPaths);
      requireNonNull(live, "live");
    }
  }

  /** An object the latest revision owns and the spec no longer holds. */
  record Dropped(ResourceRef ref, Optional<LiveObject> live) {
    /** Requires both. */
    Dropped {
      requireNonNull(ref, "ref");
      requireNonNull(live, "live");
    }
  }

  /** A namespace the latest revision ensured to be deleted with it, no longer referenced. */
  record DroppedNamespace(EnsuredNamespace before, Optional<LiveObject> live) {
    /** Requires both. */
    DroppedNamespace {
      requireNonNull(before, "before");
      requireNonNull(live, "live");
    }
  }

  /**
   * Joins {@code spec}, {@code latest} and {@code live} in one pass. Desired objects and recorded
   * owns are both kept in apply order: they are walked together (a merge join) instead of hashing
   * every ref into lookup tables.
   *
   * @throws IllegalStateException when {@code live} did not observe the scope of an object needed
   */
  static ObjectJoin joined(
      ReleaseSpec spec,
      @Nullable Release latest,
      LiveState live,
      Map<ResourceRef, String> updateReasons,
      Map<ResourceRef, List<IgnoredField>> ignoredPaths) {
    Map<ResourceRef, Optional<LiveObject>> seen = new TreeMap<>();
    Map<String, EnsuredNamespace> ensuredBefore =
        latest == null ? Map.of() : Planner.ensuredBy(latest);
    List<Referenced> references = new ArrayList<>();
    for (ResourceRef ref : spec.references()) {
      EnsuredNamespace ensured =
          ref.kind().equals(Kind.NAMESPACE) ? spec.ensured(ref.name()).orElse(null) : null;
      references.add(
          new Referenced(
              ref,
              ensured,
              ensured == null ? null : ensuredBefore.get(ref.name()),
              lookUp(live, ref, seen)));
    }
    List<OwnedResource> owns = latest == null ? List.of() : latest.owns();
    Set<ResourceRef> retained = latest == null ? Set.of() : new HashSet<>(latest.retained());
    Map<ResourceRef, String> retainedUids = new HashMap<>();
    if (latest != null) {
      latest.retainedUids().forEach(u -> retainedUids.put(u.ref(), u.uid()));
    }
    List<ResourceRef> droppedRefs = new ArrayList<>();
    List<Desired> desired = new ArrayList<>();
    int next = 0;
    for (DesiredResource d : spec.resources()) {
      ResourceRef ref = d.ref();
      while (next < owns.size() && ResourceRef.APPLY_ORDER.compare(owns.get(next).ref(), ref) < 0) {
        droppedRefs.add(owns.get(next++).ref());
      }
      String recordedHash = null;
      if (next < owns.size() && owns.get(next).ref().equals(ref)) {
        recordedHash = owns.get(next++).contentHash();
      }
      desired.add(
          new Desired(
              d,
              recordedHash,
              retained.contains(ref),
              retainedUids.get(ref),
              updateReasons.get(ref),
              ignoredPaths.getOrDefault(ref, List.of()),
              lookUp(live, ref, seen)));
    }
    owns.subList(next, owns.size()).forEach(o -> droppedRefs.add(o.ref()));
    List<Dropped> dropped = new ArrayList<>();
    for (ResourceRef ref : droppedRefs) {
      dropped.add(new Dropped(ref, lookUp(live, ref, seen)));
    }
    List<DroppedNamespace> droppedNamespaces = new ArrayList<>();
    for (EnsuredNamespace before : ensuredBefore.values()) {
      if (before.deleteWithRelease() && !spec.references().contains(before.ref())) {
        droppedNamespaces.add(new DroppedNamespace(before, lookUp(live, before.ref(), seen)));
      }
    }
    List<PlanFingerprint.Observed> observed = new ArrayList<>(seen.size());
    seen.forEach((ref, found) -> observed.add(PlanFingerprint.Observed.of(ref, found)));
    return new ObjectJoin(references, desired, dropped, droppedNamespaces, observed);
  }

  /** {@code ref} in {@code live}, kept in {@code seen} for the fingerprint. */
  private static Optional<LiveObject> lookUp(
      LiveState live, ResourceRef ref, Map<ResourceRef, Optional<LiveObject>> seen) {
    Optional<LiveObject> found = live.get(ref);
    seen.put(ref, found);
    return found;
  }
}
