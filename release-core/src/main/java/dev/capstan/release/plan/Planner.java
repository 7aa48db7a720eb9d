package dev.capstan.release.plan;

import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The pure 3-way planner: desired spec × latest record × live state → {@link Plan}. Same inputs,
 * same plan. See ARCHITECTURE.md, "The 3-way plan", for the table this implements.
 */
public final class Planner {
  /** Why a CRD is kept rather than pruned. */
  public static final String CRD_KEPT =
      "CRD kept and un-stamped: deleting it would delete every custom resource of it in the"
          + " cluster; allow CRD deletion to delete it";

  /** Why an ensured namespace whose labels and annotations are live as wanted is not written. */
  public static final String ENSURED_UNCHANGED =
      "ensured: its labels and annotations are as the document has them";

  /** Execution order of applies (after every reference): wave, then apply order (rank, key). */
  static final java.util.Comparator<PlannedChange> EXECUTION_ORDER =
      java.util.Comparator.comparingInt(PlannedChange::wave)
          .thenComparing(PlannedChange::ref, ResourceRef.APPLY_ORDER);

  private Planner() {}

  /**
   * The names, per scope (kind and namespace), that {@link #plan} will look at: the desired
   * objects, the references and the objects the latest revision owns. Observe each scope in one
   * batch.
   */
  public static Map<LiveState.Scope, Set<String>> names(
      ReleaseSpec spec, @Nullable Release latest) {
    return names(observed(spec, latest));
  }

  /**
   * Every object {@link #plan} looks at: the references (ensured namespaces among them), the
   * desired objects, the objects the latest revision owns, and the namespaces it ensured with
   * {@link EnsuredNamespace#DELETE_WITH_RELEASE} (a cast that drops one may delete it).
   */
  private static Set<ResourceRef> observed(ReleaseSpec spec, @Nullable Release latest) {
    Set<ResourceRef> refs = new TreeSet<>(spec.references());
    spec.resources().forEach(r -> refs.add(r.ref()));
    if (latest != null) {
      latest.owns().forEach(o -> refs.add(o.ref()));
      ensuredBy(latest).values().stream()
          .filter(EnsuredNamespace::deleteWithRelease)
          .forEach(e -> refs.add(e.ref()));
    }
    return refs;
  }

  /** The namespaces {@code release} ensured, by name: the Namespace objects of its payloads. */
  public static Map<String, EnsuredNamespace> ensuredBy(Release release) {
    Map<String, EnsuredNamespace> out = new TreeMap<>();
    ReleaseSpec.ensured(release.payloads()).forEach(e -> out.put(e.name(), e));
    return out;
  }

  /**
   * The names of {@code refs}, grouped by scope (kind and namespace): one observation batch each.
   */
  public static Map<LiveState.Scope, Set<String>> names(Iterable<ResourceRef> refs) {
    Map<LiveState.Scope, Set<String>> names = new HashMap<>();
    for (ResourceRef ref : refs) {
      names
          .computeIfAbsent(new LiveState.Scope(ref.kind(), ref.namespace()), s -> new TreeSet<>())
          .add(ref.name());
    }
    return names;
  }

  /**
   * Plans a cast of {@code spec}.
   *
   * @param spec what the release should be
   * @param latest the latest recorded revision of this release, or {@code null} if none
   * @param live the live objects; every scope of {@link #names} must have been observed
   * @return the plan, changes in execution order
   */
  public static Plan plan(ReleaseSpec spec, @Nullable Release latest, LiveState live) {
    return plan(spec, latest, live, Map.of());
  }

  /**
   * Plans a cast of {@code spec}, giving an update of an object listed in {@code updateReasons}
   * that reason (e.g. {@code config changed: ConfigMap/shop/web-config}).
   *
   * @see #plan(ReleaseSpec, Release, LiveState)
   */
  public static Plan plan(
      ReleaseSpec spec,
      @Nullable Release latest,
      LiveState live,
      Map<ResourceRef, String> updateReasons) {
    return plan(spec, latest, live, updateReasons, Map.of());
  }

  /**
   * Plans a cast of {@code spec} as {@link #plan(ReleaseSpec, Release, LiveState, Map)} does, with
   * {@code ignoredPaths}: by object, the fields of the desired object that a rule of paths ({@code
   * ReleaseOptions.driftIgnore}) leaves to others, as the cast's effective release found them.
   * Rules of managers are judged here, against the drift the observation reports ({@link
   * LiveObject#driftFields}).
   */
  public static Plan plan(
      ReleaseSpec spec,
      @Nullable Release latest,
      LiveState live,
      Map<ResourceRef, String> updateReasons,
      Map<ResourceRef, List<IgnoredField>> ignoredPaths) {
    ReleaseIdentity self = latest == null ? null : latest.identity();
    Integer failed =
        latest != null && latest.status() == ReleaseStatus.FAILED ? latest.revision() : null;
    List<OwnedResource> owns = latest == null ? List.of() : latest.owns();
    Set<ResourceRef> retained = latest == null ? Set.of() : new HashSet<>(latest.retained());

    Map<String, EnsuredNamespace> ensuredBefore = latest == null ? Map.of() : ensuredBy(latest);
    List<PlannedChange> references = new ArrayList<>();
    for (ResourceRef ref : spec.references()) {
      Optional<EnsuredNamespace> ensured =
          ref.kind().equals(Kind.NAMESPACE) ? spec.ensured(ref.name()) : Optional.empty();
      references.add(
          ensured.isPresent()
              ? planEnsured(ensured.get(), live.get(ref), ensuredBefore.get(ref.name()))
              : planReference(ref, live.get(ref), spec));
    }
    List<PlannedChange> applies = new ArrayList<>();
    // Desired resources and recorded owns are both kept in apply order: walk them together
    // (a merge join) instead of hashing every ref into lookup tables.
    List<OwnedResource> dropped = new ArrayList<>();
    int next = 0;
    for (DesiredResource d : spec.resources()) {
      while (next < owns.size()
          && ResourceRef.APPLY_ORDER.compare(owns.get(next).ref(), d.ref()) < 0) {
        dropped.add(owns.get(next++));
      }
      String recordedHash = null;
      if (next < owns.size() && owns.get(next).ref().equals(d.ref())) {
        recordedHash = owns.get(next++).contentHash();
      }
      applies.add(
          DesiredChange.of(
              d,
              live.get(d.ref()),
              recordedHash,
              retained.contains(d.ref()),
              self,
              failed,
              spec,
              updateReasons.get(d.ref()),
              ignoredPaths.getOrDefault(d.ref(), List.of())));
    }
    dropped.addAll(owns.subList(next, owns.size()));
    applies.sort(EXECUTION_ORDER);

    List<PlannedChange> removals = new ArrayList<>();
    if (latest != null) {
      for (OwnedResource owned : dropped) {
        planRemoval(owned.ref(), live.get(owned.ref()), latest, spec).ifPresent(removals::add);
      }
      for (EnsuredNamespace before : ensuredBefore.values()) {
        if (before.deleteWithRelease() && !spec.references().contains(before.ref())) {
          planDroppedNamespace(before, live.get(before.ref()), spec).ifPresent(removals::add);
        }
      }
    }
    removals.sort((a, b) -> ResourceRef.PRUNE_ORDER.compare(a.ref(), b.ref()));

    List<PlannedChange> changes = new ArrayList<>(references);
    changes.addAll(applies);
    changes.addAll(removals);
    return new Plan(
        spec.namespace(),
        spec.name(),
        self == null ? null : self.id(),
        latest == null ? 1 : latest.revision() + 1,
        latest == null ? null : latest.revision(),
        changes,
        fingerprint(spec, latest, live));
  }

  /**
   * What a plan is computed from: the spec, the record's revision, and every object {@link #names}
   * names as observed in {@code live}, by key. The store's version of the record is added by the
   * caller that read it ({@link PlanFingerprint#withRecordVersion}).
   */
  private static PlanFingerprint fingerprint(
      ReleaseSpec spec, @Nullable Release latest, LiveState live) {
    Set<ResourceRef> refs = observed(spec, latest);
    List<PlanFingerprint.Observed> observed = new ArrayList<>(refs.size());
    refs.forEach(ref -> observed.add(PlanFingerprint.Observed.of(ref, live.get(ref))));
    return new PlanFingerprint(
        spec, latest == null ? null : latest.revision(), null, observed, null);
  }

  private static PlannedChange planReference(
      ResourceRef ref, Optional<LiveObject> live, ReleaseSpec spec) {
    if (live.isPresent()) {
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
  private static PlannedChange planEnsured(
      EnsuredNamespace ensured, Optional<LiveObject> live, @Nullable EnsuredNamespace previous) {
    ResourceRef ref = ensured.ref();
    if (live.isEmpty()) {
      return PlannedChange.ensure(
          ref, Action.CREATE, "ensured: created with the labels and annotations of the document");
    }
    List<String> changes = ensured.changes(live.get().labels(), live.get().annotations(), previous);
    if (changes.isEmpty()) {
      return PlannedChange.reference(ref, ENSURED_UNCHANGED, false);
    }
    return PlannedChange.ensure(ref, Action.UPDATE, "ensured: " + String.join("; ", changes));
  }

  /**
   * A namespace the latest revision ensured with {@link EnsuredNamespace#DELETE_WITH_RELEASE} and
   * this spec neither ensures nor references: pruned, unless it is the release's own namespace (its
   * records and lease are there), absent, or another release ensures it too.
   */
  private static Optional<PlannedChange> planDroppedNamespace(
      EnsuredNamespace before, Optional<LiveObject> live, ReleaseSpec spec) {
    if (live.isEmpty()) {
      return Optional.empty();
    }
    ResourceRef ref = before.ref();
    String self = spec.qualifiedName();
    List<String> others = live.get().ensuredBy().stream().filter(r -> !r.equals(self)).toList();
    if (ref.name().equals(spec.namespace())) {
      return Optional.of(
          PlannedChange.reference(
              ref,
              "no longer ensured; kept: it is the release's own namespace (its record and lease"
                  + " are there)",
              false));
    }
    if (!others.isEmpty()) {
      return Optional.of(
          PlannedChange.reference(
              ref,
              "no longer ensured; kept: release "
                  + String.join(", ", others)
                  + (others.size() == 1 ? " ensures" : " ensure")
                  + " it too",
              false));
    }
    return Optional.of(
        PlannedChange.removal(
            ref,
            Action.PRUNE,
            "no longer ensured, and its document had "
                + EnsuredNamespace.DELETE_WITH_RELEASE
                + ": \"true\": deletes everything in it"));
  }

  private static Optional<PlannedChange> planRemoval(
      ResourceRef ref, Optional<LiveObject> liveObject, Release latest, ReleaseSpec spec) {
    if (liveObject.isEmpty()) {
      return Optional.empty();
    }
    OwnershipStamp stamp = liveObject.get().stamp();
    if (stamp == null || !stamp.ownedBy(latest.identity())) {
      return Optional.empty();
    }
    if (ref.kind().isVolumeClaim() && latest.retainsVolume(ref, liveObject.get().content())) {
      return Optional.of(
          PlannedChange.removal(
              ref, Action.RETAIN, "reclaim policy Retain: un-stamped, data kept for re-adoption"));
    }
    if (ref.kind().isCrd() && !spec.options().allowCrdDeletion()) {
      return Optional.of(PlannedChange.removal(ref, Action.RETAIN, CRD_KEPT));
    }
    return Optional.of(PlannedChange.removal(ref, Action.PRUNE, null));
  }
}
