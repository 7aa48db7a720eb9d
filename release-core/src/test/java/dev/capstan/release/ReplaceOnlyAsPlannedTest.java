package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A cast deletes only what its plan shows: an opted-in update that changes an immutable field is
 * planned as a {@code replace}, which the destructive-change gate (protected kinds, approvals) and
 * the CRD rules judge as the delete it is; an update the API server refuses as immutable for a
 * field the plan did not know fails the cast, and nothing is deleted. Each cluster here answers an
 * update of an immutable field with the API server's HTTP 422, as kube-apiserver does.
 */
class ReplaceOnlyAsPlannedTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final String OPT_IN = "annotations: {capstan.dev/replace-on-immutable: \"true\"}";

  private static Manifest claim(String snapshot) {
    return yaml(
        "{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, "
            + OPT_IN
            + "}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}},"
            + " dataSourceRef: {kind: VolumeSnapshot, apiGroup: snapshot.storage.k8s.io,"
            + " name: "
            + snapshot
            + "}}}");
  }

  private static Manifest crd(String scope) {
    return yaml(
        "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name:"
            + " widgets.example.com, "
            + OPT_IN
            + "}, spec: {group: example.com, scope: "
            + scope
            + ", names: {kind: Widget, plural: widgets}, versions: [{name: v1, served: true,"
            + " storage: true, schema: {openAPIV3Schema: {type: object}}}]}}");
  }

  private static Manifest web(int replicas) {
    return yaml(
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, "
            + OPT_IN
            + "}, spec: {replicas: "
            + replicas
            + ", selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}},"
            + " spec: {containers: [{name: web, image: \"acme/web:1\"}]}}}}");
  }

  private static Manifest job(String env) {
    return yaml(
        "{apiVersion: batch/v1, kind: Job, metadata: {name: migrate, "
            + OPT_IN
            + "}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: migrate,"
            + " image: \"acme/migrate:1\", env: ["
            + env
            + "]}]}}}}");
  }

  private static Manifest webWithEnv(String env) {
    return yaml(
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, "
            + OPT_IN
            + "}, spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata:"
            + " {labels: {app: web}}, spec: {containers: [{name: web, image: \"acme/web:1\", env: ["
            + env
            + "]}]}}}}");
  }

  /** The cluster, refusing every update (not a create) of {@code ref} as kube-apiserver would. */
  private ReleaseController refusingUpdatesOf(ResourceRef ref, String message) {
    ForwardingOrchestrator apiServer =
        new ForwardingOrchestrator(h.cluster) {
          @Override
          public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition p) {
            if (object.ref().equals(ref) && !(p instanceof Precondition.Absent)) {
              throw new ClusterException(
                  "apply", ref.kind().kind(), ref.namespace(), ref.name(), 422, message, null);
            }
            super.apply(object, stamp, p);
          }
        };
    return ReleaseController.builder(apiServer, h.cluster).build();
  }

  private static ReleaseSpec spec(Payloads p, UnaryOperator<ReleaseOptions> options) {
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p);
    return spec.withOptions(options.apply(spec.options()));
  }

  private static UnaryOperator<ReleaseOptions> approving(ResourceRef ref) {
    return o -> o.withDeleteGate(o.deleteGate().approving(List.of(ref)));
  }

  @Test
  void aClaimWhoseDataSourceRefChangesIsPlannedAsAReplaceThatTheGateRefusesUnapproved() {
    Payloads first = Payloads.of(claim("snap-1"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = claim("x").ref();
    h.cluster.clearOperations();
    ReleaseController controller =
        refusingUpdatesOf(
            ref,
            "PersistentVolumeClaim \"data\" is invalid: spec: Forbidden: spec is immutable after"
                + " creation except resources.requests and volumeAttributesClassName for bound"
                + " claims");
    Payloads second = Payloads.of(claim("snap-2"));

    Plan plan = controller.plan(ReleaseSpec.of(NS, "app", second), second);

    assertThat(plan.changes(Action.REPLACE))
        .extracting(PlannedChange::ref, PlannedChange::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ref, "immutable spec.dataSourceRef changed: deleted and created again"));
    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of(NS, "app", second), second))
        .isInstanceOfSatisfying(
            DestructiveChangeRefusedException.class,
            e -> {
              assertThat(e.refusal().refused()).containsExactly(ref);
              assertThat(e.refusal().reasons())
                  .containsExactly(
                      "PersistentVolumeClaim/default/data (replace): PersistentVolumeClaim is a"
                          + " protected kind");
            });
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.dataSourceRef.name"))
        .isEqualTo("snap-1");
  }

  @Test
  void approvedByNameTheClaimIsDeletedAndCreatedAgain() {
    Payloads first = Payloads.of(claim("snap-1"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = claim("x").ref();
    h.cluster.clearOperations();
    Payloads second = Payloads.of(claim("snap-2"));

    h.controller.cast(spec(second, approving(ref)), second);

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:PersistentVolumeClaim/default/data",
            "apply:PersistentVolumeClaim/default/data",
            "verify");
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.dataSourceRef.name"))
        .isEqualTo("snap-2");
  }

  @Test
  void anUpdateRefusedAsImmutableForAFieldThePlanDoesNotKnowFailsTheCastAndNothingIsDeleted() {
    Payloads first = Payloads.of(web(1));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = web(1).ref();
    h.cluster.clearOperations();
    ReleaseController controller =
        refusingUpdatesOf(
            ref,
            "Deployment.apps \"web\" is invalid: spec.template.spec.volumes[0]: field is"
                + " immutable");
    Payloads second = Payloads.of(web(2));

    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of(NS, "app", second), second))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              assertThat(e.result().plan().changes(Action.UPDATE))
                  .extracting(PlannedChange::ref)
                  .containsExactly(ref);
              assertThat(e.result().release().failure())
                  .isEqualTo(
                      "apply Deployment default/web failed (HTTP 422): Deployment.apps \"web\" is"
                          + " invalid: spec.template.spec.volumes[0]: field is immutable; the"
                          + " update of apps/Deployment/default/web was refused as immutable for a"
                          + " field its plan did not know as immutable (it showed an update, not a"
                          + " replace, and planning again shows the same update): a cast never"
                          + " deletes what its plan did not show; delete"
                          + " apps/Deployment/default/web yourself, then cast again to create"
                          + " it");
            });
    assertThat(h.cluster.operations()).noneMatch(o -> o.startsWith("delete:"));
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.replicas")).isEqualTo(1);
  }

  @Test
  void aCrdWhoseScopeChangesIsNotReplacedUnlessCrdDeletionIsAllowed() {
    Payloads first = Payloads.of(crd("Namespaced"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = crd("x").ref();
    h.cluster.clearOperations();
    ReleaseController controller =
        refusingUpdatesOf(
            ref,
            "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid:"
                + " spec.scope: Invalid value: \"Cluster\": field is immutable");
    Payloads second = Payloads.of(crd("Cluster"));

    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of(NS, "app", second), second))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(
                        "release default/app has unresolved conflicts; nothing was written: "
                            + ref.key()
                            + "\n  - "
                            + ref.key()
                            + ": immutable spec.scope changed: replacing the CRD would delete it"
                            + " and every custom resource of it in the cluster; allow CRD"
                            + " deletion (allowCrdDeletion, crdDeletion: Delete,"
                            + " --allow-crd-deletion) to replace it"));
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.scope")).isEqualTo("Namespaced");
  }

  @Test
  void withCrdDeletionAllowedTheCrdReplaceStillNeedsItsApprovalByName() {
    Payloads first = Payloads.of(crd("Namespaced"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = crd("x").ref();
    h.cluster.clearOperations();
    Payloads second = Payloads.of(crd("Cluster"));
    UnaryOperator<ReleaseOptions> allow = o -> o.withAllowCrdDeletion(true);

    assertThatThrownBy(() -> h.controller.cast(spec(second, allow), second))
        .isInstanceOfSatisfying(
            DestructiveChangeRefusedException.class,
            e ->
                assertThat(e.refusal().reasons())
                    .containsExactly(
                        ref.key()
                            + " (replace): apiextensions.k8s.io/CustomResourceDefinition is a"
                            + " protected kind"));
    assertThat(h.cluster.writes()).isEmpty();

    h.controller.cast(spec(second, o -> approving(ref).apply(allow.apply(o))), second);

    assertThat(h.cluster.writes())
        .containsExactly("delete:" + ref.key(), "apply:" + ref.key(), "verify", "verify");
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.scope")).isEqualTo("Cluster");
  }

  @Test
  void anEnvVariableDroppedFromAJobsTemplateIsPlannedAsAReplaceAndTheCastReplacesIt() {
    Payloads first = Payloads.of(job("{name: A, value: a}, {name: B, value: b}"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = job("").ref();
    h.cluster.clearOperations();
    ReleaseController controller =
        refusingUpdatesOf(
            ref,
            "Job.batch \"migrate\" is invalid: spec.template: Invalid value: ...: field is"
                + " immutable");
    Payloads second = Payloads.of(job("{name: A, value: a}"));

    CastResult r = controller.cast(ReleaseSpec.of(NS, "app", second), second);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.action() != Action.REFERENCE)
        .extracting(PlannedChange::ref, PlannedChange::action, PlannedChange::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ref,
                Action.REPLACE,
                "immutable spec.template changed (removed:"
                    + " spec.template.spec.containers[name=migrate].env[name=B]): deleted and"
                    + " created again"));
    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:batch/Job/default/migrate", "apply:batch/Job/default/migrate", "verify");
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.object(ref).orElseThrow().get("spec.template.spec.containers"))
        .isEqualTo(job("{name: A, value: a}").get("spec.template.spec.containers"));
  }

  @Test
  void anEnvVariableDroppedOutsideAnyImmutableFieldStaysAnUpdate() {
    Payloads first = Payloads.of(webWithEnv("{name: A, value: a}, {name: B, value: b}"));
    h.controller.cast(ReleaseSpec.of(NS, "app", first), first);
    ResourceRef ref = webWithEnv("").ref();
    h.cluster.clearOperations();
    Payloads second = Payloads.of(webWithEnv("{name: A, value: a}"));

    CastResult r = h.controller.cast(ReleaseSpec.of(NS, "app", second), second);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.action() != Action.REFERENCE)
        .extracting(PlannedChange::ref, PlannedChange::action)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ref, Action.UPDATE));
    assertThat(h.cluster.writes()).containsExactly("apply:apps/Deployment/default/web", "verify");
  }
}
