package dev.capstan.release.plan;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.HashMap;
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
    ObjectJoin join = ObjectJoin.joined(spec, latest, live, updateReasons, ignoredPaths);
    ReleaseIdentity self = latest == null ? null : latest.identity();
    Integer failed =
        latest != null && latest.status() == ReleaseStatus.FAILED ? latest.revision() : null;
    List<PlannedChange> changes = new ArrayList<>();
    for (ObjectJoin.Referenced r : join.references()) {
      changes.add(r.ensured() != null ? planEnsured(r, r.ensured()) : planReference(r, spec));
    }
    List<PlannedChange> applies = new ArrayList<>();
    for (ObjectJoin.Desired d : join.desired()) {
      applies.add(
          DesiredChange.of(
              d.resource(),
              d.live(),
              d.recordedHash(),
              d.retained(),
              self,
              failed,
              spec,
              d.updateReason(),
              d.ignoredPaths()));
    }
    applies.sort(EXECUTION_ORDER);
    changes.addAll(applies);

    List<PlannedChange> removals = new ArrayList<>();
    if (latest != null) {
      for (ObjectJoin.Dropped dropped : join.dropped()) {
        planRemoval(dropped, latest, spec).ifPresent(removals::add);
      }
      for (ObjectJoin.DroppedNamespace before : join.droppedNamespaces()) {
        planDroppedNamespace(before, spec).ifPresent(removals::add);
      }
    }
    removals.sort((a, b) -> ResourceRef.PRUNE_ORDER.compare(a.ref(), b.ref()));
    changes.addAll(removals);
    return new Plan(
        spec.namespace(),
        spec.name(),
        self == null ? null : self.id(),
        latest == null ? 1 : latest.revision() + 1,
        latest == null ? null : latest.revision(),
        changes,
        new PlanFingerprint(
            spec, latest == null ? null : latest.revision(), null, join.observed(), null));
  }

  /**
   * A reference the spec does not ensure: planned as read only when live, created when it is a
   * namespace and the spec may create it, otherwise a conflict.
   */
  private static PlannedChange planReference(ObjectJoin.Referenced referenced, ReleaseSpec spec) {
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
  private static PlannedChange planEnsured(
      ObjectJoin.Referenced referenced, EnsuredNamespace ensured) {
    ResourceRef ref = ensured.ref();
    Optional<LiveObject> live = referenced.live();
    EnsuredNamespace previous = referenced.previous();
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
      ObjectJoin.DroppedNamespace dropped, ReleaseSpec spec) {
    EnsuredNamespace before = dropped.before();
    Optional<LiveObject> live = dropped.live();
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

  /**
   * An object the latest revision owns and the spec dropped: pruned when live and stamped by this
   * release, retained when it is a volume claim whose data the release keeps or a CRD that may not
   * be deleted; nothing when absent or owned by another.
   */
  private static Optional<PlannedChange> planRemoval(
      ObjectJoin.Dropped dropped, Release latest, ReleaseSpec spec) {
    ResourceRef ref = dropped.ref();
    Optional<LiveObject> liveObject = dropped.live();
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
