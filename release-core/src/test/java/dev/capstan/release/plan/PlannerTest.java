package dev.capstan.release.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The pure 3-way planner: one test per row of ARCHITECTURE.md's plan table, plus rune's plan tests.
 */
class PlannerTest {
  private static final ReleaseIdentity APP = new ReleaseIdentity("default", "app", "id-app");
  private static final ReleaseIdentity OTHER = new ReleaseIdentity("default", "other", "id-o");
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static final ServiceSpec WEB =
      ServiceSpec.builder("default", "web").image("web:1").envFromSecret("creds").build();
  private static final SecretSpec CREDS = SecretSpec.of("default", "creds", Map.of("pw", "x"));

  private static ConfigMapSpec cm(String name, String value) {
    return ConfigMapSpec.of("default", name, Map.of("v", value));
  }

  /** Live objects, observed in every scope the plan needs. */
  private static final class Live {
    final Map<ResourceRef, LiveObject> objects = new HashMap<>();

    Live ours(ResourceSpec spec, int revision) {
      for (Manifest m : spec.render()) {
        objects.put(
            m.ref(),
            new LiveObject(m.ref(), m, OwnershipStamp.of(APP, revision, ContentHash.of(m)), null));
      }
      return this;
    }

    Live stamped(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
      for (Manifest m : spec.render()) {
        String drift =
            stamp != null && !stamp.contentHash().equals(ContentHash.of(m))
                ? "live content differs from what revision " + stamp.revision() + " applied"
                : null;
        objects.put(m.ref(), new LiveObject(m.ref(), m, stamp, drift));
      }
      return this;
    }

    /** {@code spec}'s objects without a stamp, as the cluster made them under {@code uid}. */
    Live unowned(ResourceSpec spec, String uid) {
      for (Manifest m : spec.render()) {
        objects.put(m.ref(), new LiveObject(m.ref(), m, null, null, uid, "1"));
      }
      return this;
    }

    Live shared(ResourceRef ref) {
      objects.put(ref, LiveObject.present(ref));
      return this;
    }

    LiveState state(ReleaseSpec spec, @Nullable Release latest) {
      LiveState.Builder b = LiveState.builder();
      ObservedNames.of(spec, latest)
          .keySet()
          .forEach(
              scope ->
                  b.observed(
                      scope.kind(),
                      scope.namespace(),
                      objects.values().stream()
                          .filter(
                              o ->
                                  o.ref().kind().equals(scope.kind())
                                      && o.ref().namespace().equals(scope.namespace()))
                          .toList()));
      return b.build();
    }
  }

  private static Live live() {
    return new Live().shared(ResourceRef.namespace("default"));
  }

  private static Release recorded(int revision, ResourceSpec... specs) {
    List<OwnedResource> owns = new ArrayList<>();
    for (ResourceSpec s : specs) {
      owns.add(new OwnedResource(s.ref(), ContentHash.of(s)));
    }
    return new Release(
        APP.id(),
        "default",
        "app",
        revision,
        ReleaseStatus.DEPLOYED,
        owns,
        List.of(),
        List.of(),
        null,
        null,
        null,
        Payloads.of(specs),
        null,
        T,
        T,
        null);
  }

  private static Plan plan(ReleaseSpec spec, @Nullable Release latest, Live live) {
    return Planner.plan(spec, latest, live.state(spec, latest));
  }

  private static List<String> lines(Plan plan) {
    return plan.changes().stream()
        .map(
            c ->
                c.action().id()
                    + " "
                    + c.ref().key()
                    + (c.reason() == null ? "" : " (" + c.reason() + ")"))
        .toList();
  }

  @Test
  void firstInstallCreatesEverythingAndIsApplyable() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(WEB, CREDS));

    Plan plan = plan(spec, null, live());

    assertThat(lines(plan))
        .containsExactly(
            "reference Namespace//default",
            "create Secret/default/creds",
            "create apps/Deployment/default/web");
    assertThat(plan.applyable()).isTrue();
    assertThat(plan.revision()).isEqualTo(1);
    assertThat(plan.previousRevision()).isNull();
  }

  @Test
  void upgradeUpdatesKeptPrunesDroppedAndLeavesUnchanged() {
    ConfigMapSpec a1 = cm("a", "1");
    ConfigMapSpec b1 = cm("b", "1");
    Release v1 = recorded(1, a1, b1, CREDS);
    Live live = live().ours(a1, 1).ours(b1, 1).ours(CREDS, 1);

    Plan plan = plan(ReleaseSpec.of("default", "app", Payloads.of(cm("a", "2"), CREDS)), v1, live);

    assertThat(lines(plan))
        .containsExactly(
            "reference Namespace//default",
            "update ConfigMap/default/a",
            "unchanged Secret/default/creds",
            "prune ConfigMap/default/b");
    assertThat(plan.revision()).isEqualTo(2);
    assertThat(plan.previousRevision()).isEqualTo(1);
    assertThat(plan.hasPrune()).isTrue();
    assertThat(plan.needsConfirmation()).isTrue();
  }

  @Test
  void unmanagedCollisionIsAConflictUnlessAdopting() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(cm("a", "mine")));
    Live live = live().stamped(cm("a", "theirs"), null);

    Plan refused = plan(spec, null, live);
    Plan adopted = plan(spec.withAdopt(true), null, live);

    assertThat(refused.applyable()).isFalse();
    assertThat(lines(refused))
        .contains(
            "conflict ConfigMap/default/a (exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership)");
    assertThat(adopted.applyable()).isTrue();
    assertThat(lines(adopted)).contains("adopt ConfigMap/default/a (exists unmanaged; adopting)");
  }

  @Test
  void objectOwnedByAnotherReleaseIsAConflictEvenWithAdopt() {
    ConfigMapSpec theirs = cm("a", "theirs");
    Live live = live().stamped(theirs, OwnershipStamp.of(OTHER, 3, ContentHash.of(theirs)));
    ReleaseSpec spec =
        ReleaseSpec.of("default", "app", Payloads.of(cm("a", "mine"))).withAdopt(true);

    Plan plan = plan(spec, null, live);

    assertThat(plan.applyable()).isFalse();
    assertThat(plan.conflicts())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.owner()).isEqualTo(OTHER);
              assertThat(c.reason()).isEqualTo("owned by release default/other; never taken over");
            });
  }

  @Test
  void ownershipIsDecidedOnNamespaceNameAndIdNotOnTheNameAlone() {
    ConfigMapSpec a = cm("a", "1");
    ReleaseIdentity sameNameOtherNamespace = new ReleaseIdentity("team-b", "app", "id-app");
    Release v1 = recorded(1, a);

    Plan plan =
        plan(
            ReleaseSpec.of("default", "app", Payloads.of(a)),
            v1,
            live().stamped(a, OwnershipStamp.of(sameNameOtherNamespace, 1, ContentHash.of(a))));

    assertThat(lines(plan))
        .contains("conflict ConfigMap/default/a (owned by release team-b/app; never taken over)");
  }

  @Test
  void objectOfAPurgedEarlierInstallNeedsAdopt() {
    ConfigMapSpec a = cm("a", "1");
    ReleaseIdentity earlier = new ReleaseIdentity("default", "app", "id-old");
    Live live = live().stamped(a, OwnershipStamp.of(earlier, 4, ContentHash.of(a)));
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(a));

    assertThat(lines(plan(spec, null, live)))
        .contains(
            "conflict ConfigMap/default/a (owned by an earlier install of this release (id id-old)"
                + " whose record is gone; pass adopt (the CLI's --adopt) to take ownership)");
    assertThat(lines(plan(spec.withAdopt(true), null, live)))
        .contains(
            "adopt ConfigMap/default/a (take over from an earlier install of this release (id"
                + " id-old))");
  }

  @Test
  void storageClassAndNamespaceAreReferences() {
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi").withStorageClass("fast");
    ReleaseSpec spec =
        ReleaseSpec.of("default", "app", Payloads.of(v))
            .withReference(ResourceRef.storageClass("fast"));

    Plan plan = plan(spec, null, live().shared(ResourceRef.storageClass("fast")));

    assertThat(lines(plan))
        .containsExactly(
            "reference Namespace//default",
            "reference storage.k8s.io/StorageClass//fast",
            "create PersistentVolumeClaim/default/data");
  }

  @Test
  void missingReferenceIsAConflictAndANamespaceMayBeCreated() {
    ConfigMapSpec elsewhere = ConfigMapSpec.of("team-a", "x", Map.of());
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(elsewhere));

    assertThat(lines(plan(spec, null, live())))
        .containsExactly(
            "conflict Namespace//team-a (referenced namespace 'team-a' does not exist; create it,"
                + " or pass createNamespace (the CLI's --create-namespace))",
            "create ConfigMap/team-a/x");
    Plan create = plan(spec.withCreateNamespace(true), null, live());
    assertThat(create.applyable()).isTrue();
    assertThat(create.changes().get(0).createReference()).isTrue();
    assertThat(create.changesNothing()).isFalse();
  }

  @Test
  void driftOfAnUnchangedSpecIsARepair() {
    ConfigMapSpec a = cm("a", "1");
    Release v1 = recorded(1, a);
    ConfigMapSpec edited = cm("a", "edited");
    Live live = live().stamped(edited, OwnershipStamp.of(APP, 1, ContentHash.of(a)));

    Plan plan = plan(ReleaseSpec.of("default", "app", Payloads.of(a)), v1, live);

    assertThat(lines(plan))
        .contains(
            "repair ConfigMap/default/a (drift: live content differs from what revision 1 applied)");
  }

  @Test
  void changedSpecOnADriftedObjectIsAnUpdate() {
    ConfigMapSpec a = cm("a", "1");
    Live live = live().stamped(cm("a", "edited"), OwnershipStamp.of(APP, 1, ContentHash.of(a)));

    Plan plan =
        plan(ReleaseSpec.of("default", "app", Payloads.of(cm("a", "2"))), recorded(1, a), live);

    assertThat(lines(plan)).contains("update ConfigMap/default/a");
  }

  @Test
  void recordedObjectDeletedOutOfBandIsRecreated() {
    ConfigMapSpec a = cm("a", "1");

    Plan plan = plan(ReleaseSpec.of("default", "app", Payloads.of(a)), recorded(1, a), live());

    assertThat(lines(plan)).contains("create ConfigMap/default/a (recreate: deleted out of band)");
  }

  @Test
  void recordedObjectThatLostItsStampNeedsAdopt() {
    ConfigMapSpec a = cm("a", "1");
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(a));
    Live live = live().stamped(a, null);

    assertThat(plan(spec, recorded(1, a), live).applyable()).isFalse();
    assertThat(lines(plan(spec.withAdopt(true), recorded(1, a), live)))
        .contains("adopt ConfigMap/default/a (take back: ownership stamp removed)");
  }

  @Test
  void droppedRetainVolumeIsRetainedNotPruned() {
    VolumeSpec v =
        VolumeSpec.of("default", "data", "1Gi").withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN);

    Plan plan =
        plan(
            ReleaseSpec.of("default", "app", Payloads.of(CREDS)),
            recorded(1, v, CREDS),
            live().ours(v, 1).ours(CREDS, 1));

    assertThat(lines(plan))
        .contains(
            "retain PersistentVolumeClaim/default/data (reclaim policy Retain: un-stamped, data kept for re-adoption)");
    assertThat(plan.hasPrune()).isFalse();
  }

  @Test
  void retainedVolumeIsReadoptedWithoutAdopt() {
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi");
    Release tombstone = recorded(1).withRetained(List.of(v.ref()));

    Plan plan =
        plan(ReleaseSpec.of("default", "app", Payloads.of(v)), tombstone, live().stamped(v, null));

    assertThat(lines(plan))
        .contains("adopt PersistentVolumeClaim/default/data (re-adopt, retained earlier)");
    assertThat(plan.applyable()).isTrue();
  }

  @Test
  void retainedVolumeIsReadoptedWithoutAdoptWhenItIsTheObjectRetained() {
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi");
    Release tombstone =
        recorded(1).withRetained(List.of(v.ref()), List.of(new RetainedUid(v.ref(), "uid-7")));

    Plan plan =
        plan(
            ReleaseSpec.of("default", "app", Payloads.of(v)),
            tombstone,
            live().unowned(v, "uid-7"));

    assertThat(lines(plan))
        .contains("adopt PersistentVolumeClaim/default/data (re-adopt, retained earlier)");
    assertThat(plan.applyable()).isTrue();
  }

  @Test
  void anotherObjectAtARetainedVolumesNameIsAConflictUnlessAdopt() {
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi");
    Release tombstone =
        recorded(1).withRetained(List.of(v.ref()), List.of(new RetainedUid(v.ref(), "uid-7")));
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(v));
    Live live = live().unowned(v, "uid-9");

    Plan plan = plan(spec, tombstone, live);
    Plan adopted = plan(spec.withAdopt(true), tombstone, live);

    assertThat(plan.applyable()).isFalse();
    assertThat(lines(plan))
        .contains(
            "conflict PersistentVolumeClaim/default/data (retained earlier, but the object there now"
                + " is another one (uid uid-9, retained uid uid-7); pass adopt (the CLI's --adopt)"
                + " to take it)");
    assertThat(adopted.applyable()).isTrue();
    assertThat(lines(adopted))
        .contains(
            "adopt PersistentVolumeClaim/default/data (retained earlier, but the object there now"
                + " is another one (uid uid-9, retained uid uid-7); adopting)");
  }

  @Test
  void retainedVolumeOfARecordWithoutUidsIsReadoptedWhateverItsUid() {
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi");
    Release tombstone = recorded(1).withRetained(List.of(v.ref()));

    Plan plan =
        plan(
            ReleaseSpec.of("default", "app", Payloads.of(v)),
            tombstone,
            live().unowned(v, "uid-9"));

    assertThat(lines(plan))
        .contains("adopt PersistentVolumeClaim/default/data (re-adopt, retained earlier)");
  }

  @Test
  void droppedObjectThatIsGoneOrNoLongerOursIsNotPruned() {
    ConfigMapSpec a = cm("a", "1");
    ConfigMapSpec b = cm("b", "1");
    Live live = live().stamped(b, OwnershipStamp.of(OTHER, 1, ContentHash.of(b)));

    Plan plan = plan(ReleaseSpec.of("default", "app", Payloads.of(CREDS)), recorded(1, a, b), live);

    assertThat(lines(plan))
        .containsExactly("reference Namespace//default", "create Secret/default/creds");
  }

  @Test
  void prunesGoInReverseDependencyOrderAfterEveryApply() {
    ConfigMapSpec a = cm("a", "1");
    VolumeSpec v = VolumeSpec.of("default", "data", "1Gi");
    Release v1 = recorded(1, WEB, CREDS, a, v);
    Live live = live().ours(WEB, 1).ours(CREDS, 1).ours(a, 1).ours(v, 1);

    Plan plan = plan(ReleaseSpec.of("default", "app", Payloads.of(cm("z", "1"))), v1, live);

    assertThat(lines(plan))
        .containsExactly(
            "reference Namespace//default",
            "create ConfigMap/default/z",
            "prune apps/Deployment/default/web",
            "prune Secret/default/creds",
            "prune ConfigMap/default/a",
            "prune PersistentVolumeClaim/default/data");
  }

  @Test
  void planIsDeterministicWhateverTheInputOrder() {
    List<ResourceSpec> specs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      specs.add(cm("c" + i, "v"));
      specs.add(SecretSpec.of("default", "s" + i, Map.of("k", "v")));
    }
    Plan first = plan(ReleaseSpec.of("default", "app", Payloads.of(specs)), null, live());
    Collections.shuffle(specs, new Random(42));
    Plan second = plan(ReleaseSpec.of("default", "app", Payloads.of(specs)), null, live());

    assertThat(second).isEqualTo(first);
    assertThat(PlanRenderer.json(second)).isEqualTo(PlanRenderer.json(first));
  }

  @Test
  void aScopeThatWasNotObservedIsAnErrorNotAbsent() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(CREDS));
    LiveState onlyNamespaces =
        LiveState.builder()
            .observed(
                Kind.NAMESPACE, "", List.of(LiveObject.present(ResourceRef.namespace("default"))))
            .build();

    assertThatThrownBy(() -> Planner.plan(spec, null, onlyNamespaces))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "live state has no observation of Secret in namespace 'default' (needed for"
                + " Secret/default/creds)");
  }

  @Test
  void namesGroupsEveryNeededObjectByScope() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(WEB, CREDS, cm("a", "1")));

    var names = ObservedNames.of(spec, recorded(1, cm("old", "1")));

    assertThat(names)
        .containsEntry(
            new LiveState.Scope(Kind.CONFIG_MAP, "default"), java.util.Set.of("a", "old"))
        .containsEntry(new LiveState.Scope(Kind.SECRET, "default"), java.util.Set.of("creds"))
        .containsEntry(new LiveState.Scope(Kind.DEPLOYMENT, "default"), java.util.Set.of("web"))
        .containsEntry(new LiveState.Scope(Kind.NAMESPACE, ""), java.util.Set.of("default"))
        .hasSize(4);
  }

  @Test
  void afterAFailedRevisionAnObjectItDidNotLeaveInPlaceIsAnUpdateThatFinishesIt() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(cm("a", "v2"), cm("b", "v2")));
    Release failed = recorded(2, cm("a", "v2"), cm("b", "v2")).withStatus(ReleaseStatus.FAILED, T);
    Live live =
        live()
            // still at what revision 1 applied: the failed attempt never wrote it
            .stamped(cm("a", "v1"), OwnershipStamp.of(APP, 1, ContentHash.of(cm("a", "v1"))))
            // written by revision 2, then put back to revision 1's content by hand
            .stamped(cm("b", "v1"), OwnershipStamp.of(APP, 2, ContentHash.of(cm("b", "v2"))));

    Plan plan = Planner.plan(spec, failed, live.state(spec, failed));

    assertThat(plan.changes())
        .extracting(c -> c.action() + " " + c.ref().key() + " (" + c.reason() + ")")
        .containsExactly(
            "REFERENCE Namespace//default (null)",
            "UPDATE ConfigMap/default/a (finishes failed revision 2: the live object still holds"
                + " what revision 1 applied)",
            "UPDATE ConfigMap/default/b (finishes failed revision 2: the live object no longer"
                + " holds what it applied (live content differs from what revision 2 applied))");
  }

  @Test
  void afterADeployedRevisionTheSameObjectsAreDriftAndAnUnfinishedWrite() {
    ReleaseSpec spec = ReleaseSpec.of("default", "app", Payloads.of(cm("a", "v2"), cm("b", "v2")));
    Release deployed = recorded(2, cm("a", "v2"), cm("b", "v2"));
    Live live =
        live()
            .stamped(cm("a", "v1"), OwnershipStamp.of(APP, 1, ContentHash.of(cm("a", "v1"))))
            .stamped(cm("b", "v1"), OwnershipStamp.of(APP, 2, ContentHash.of(cm("b", "v2"))));

    Plan plan = Planner.plan(spec, deployed, live.state(spec, deployed));

    assertThat(plan.changes())
        .extracting(c -> c.action() + " " + c.ref().key() + " (" + c.reason() + ")")
        .containsExactly(
            "REFERENCE Namespace//default (null)",
            "UPDATE ConfigMap/default/a (finish the failed attempt: live object still holds what"
                + " revision 1 applied)",
            "REPAIR ConfigMap/default/b (drift: live content differs from what revision 2"
                + " applied)");
  }
}
