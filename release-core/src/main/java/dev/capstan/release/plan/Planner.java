package dev.capstan.release.plan;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

  /**
   * Why an object annotated {@code helm.sh/resource-policy: keep} is kept rather than pruned (a
   * CRD: {@link #RESOURCE_POLICY_KEPT_CRD}).
   */
  public static final String RESOURCE_POLICY_KEPT =
      "retained: helm.sh/resource-policy: keep: un-stamped, kept as Helm keeps it";

  /** Why a CRD annotated {@code helm.sh/resource-policy: keep} is kept, whatever the options. */
  public static final String RESOURCE_POLICY_KEPT_CRD =
      RESOURCE_POLICY_KEPT
          + "; a CRD so annotated is never deleted, even with CRD deletion allowed";

  /** Why an ensured namespace whose labels and annotations are live as wanted is not written. */
  public static final String ENSURED_UNCHANGED =
      "ensured: its labels and annotations are as the document has them";

  /** Execution order of applies (after every reference): wave, then apply order (rank, key). */
  static final java.util.Comparator<PlannedChange> EXECUTION_ORDER =
      java.util.Comparator.comparingInt(PlannedChange::wave)
          .thenComparing(PlannedChange::ref, ResourceRef.APPLY_ORDER);

  private Planner() {}

  /** The namespaces {@code release} ensured, by name: the Namespace objects of its payloads. */
  public static Map<String, EnsuredNamespace> ensuredBy(Release release) {
    Map<String, EnsuredNamespace> out = new TreeMap<>();
    ReleaseSpec.ensured(release.payloads()).forEach(e -> out.put(e.name(), e));
    return out;
  }

  /**
   * Plans a cast of {@code spec}.
   *
   * @param spec what the release should be
   * @param latest the latest recorded revision of this release, or {@code null} if none
   * @param live the live objects; every scope of {@link ObservedNames#of} must have been observed
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
      changes.add(ReferenceChange.of(r, spec));
    }
    List<PlannedChange> applies = new ArrayList<>();
    for (ObjectJoin.Desired d : join.desired()) {
      applies.add(
          DesiredChange.of(
              d.resource(),
              d.live(),
              d.recordedHash(),
              d.retained(),
              d.retainedUid(),
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
        RemovalChange.of(dropped, latest, spec).ifPresent(removals::add);
      }
      for (ObjectJoin.DroppedNamespace before : join.droppedNamespaces()) {
        RemovalChange.of(before, spec).ifPresent(removals::add);
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
}
