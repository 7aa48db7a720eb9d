package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An object annotated {@code helm.sh/resource-policy: keep} is never deleted by its release, as
 * Helm never deletes it: a cast that drops it, an uninstall (with {@code deleteCrds} too, for a
 * CRD) un-stamp it and record it as retained with its uid, and say why.
 */
class ResourcePolicyKeepTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final ResourceRef KEPT = ResourceRef.parse("Secret/" + NS + "/db-password");
  private static final ResourceRef SETTINGS = ResourceRef.parse("ConfigMap/" + NS + "/settings");
  private static final ResourceRef CRD =
      ResourceRef.parse("apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");

  private static Manifest secret(String policy) {
    return yaml(
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: db-password
          annotations: {helm.sh/resource-policy: "%s"}
        stringData: {password: generated}
        """
            .formatted(policy));
  }

  private static Manifest settings() {
    return yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: '1'}}");
  }

  private static Manifest crd() {
    return yaml(
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: widgets.example.com
          annotations: {helm.sh/resource-policy: keep}
        spec:
          group: example.com
          scope: Namespaced
          names: {kind: Widget, plural: widgets}
          versions: [{name: v1, served: true, storage: true}]
        """);
  }

  private static Payloads withKept() {
    return Payloads.of(secret("keep"), settings());
  }

  /** The uid the cluster gave {@code ref}. */
  private String uid(ResourceRef ref) {
    return h.cluster.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).stream()
        .map(LiveObject::uid)
        .filter(Objects::nonNull)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void anUninstallUnstampsAKeptObjectAndRecordsItAsRetainedWithItsUid() {
    h.cast("web", withKept());
    String uid = uid(KEPT);
    h.cluster.clearOperations();

    UninstallResult result = h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    assertThat(h.cluster.writes())
        .containsExactly("unstamp:Secret/default/db-password", "delete:ConfigMap/default/settings");
    assertThat(result.deleted()).containsExactly(SETTINGS);
    assertThat(result.retained()).containsExactly(KEPT);
    assertThat(result.notes())
        .containsExactly(
            "Secret/default/db-password: retained: helm.sh/resource-policy: keep: un-stamped, kept"
                + " as Helm keeps it");
    assertThat(h.cluster.object(KEPT)).isPresent();
    assertThat(h.cluster.stamp(KEPT)).isEmpty();
    assertThat(h.cluster.object(SETTINGS)).isEmpty();
    Release tombstone = h.controller.get(NS, "web").orElseThrow();
    assertThat(tombstone.retained()).containsExactly(KEPT);
    assertThat(tombstone.retainedUids()).containsExactly(new RetainedUid(KEPT, uid));
  }

  @Test
  void aCastThatDropsAKeptObjectRetainsItSayingWhy() {
    h.cast("web", withKept());
    String uid = uid(KEPT);
    h.cluster.clearOperations();

    CastResult dropped = h.cast("web", Payloads.of(settings()));

    assertThat(h.cluster.writes()).containsExactly("verify", "unstamp:Secret/default/db-password");
    assertThat(dropped.plan().changes(Action.PRUNE)).isEmpty();
    assertThat(dropped.plan().changes(Action.RETAIN))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref()).isEqualTo(KEPT);
              assertThat(c.reason())
                  .isEqualTo(
                      "retained: helm.sh/resource-policy: keep: un-stamped, kept as Helm keeps it");
            });
    assertThat(h.cluster.object(KEPT)).isPresent();
    assertThat(h.cluster.stamp(KEPT)).isEmpty();
    assertThat(dropped.release().retained()).containsExactly(KEPT);
    assertThat(dropped.release().retainedUids()).containsExactly(new RetainedUid(KEPT, uid));
  }

  @Test
  void theKeptObjectIsReadoptedWithoutAdopt() {
    h.cast("web", withKept());
    String uid = uid(KEPT);
    h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    CastResult again = h.cast("web", withKept());

    assertThat(again.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref()).isEqualTo(KEPT);
              assertThat(c.reason()).isEqualTo("re-adopt, retained earlier");
            });
    assertThat(uid(KEPT)).isEqualTo(uid);
    assertThat(h.cluster.stamp(KEPT).orElseThrow().owner().name()).isEqualTo("web");
    assertThat(again.release().retained()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"keep", " Keep ", "KEEP"})
  void thePolicyIsReadAsHelmReadsIt(String policy) {
    h.cast("web", Payloads.of(secret(policy), settings()));

    UninstallResult result = h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    assertThat(result.retained()).containsExactly(KEPT);
    assertThat(h.cluster.object(KEPT)).isPresent();
  }

  @Test
  void anotherPolicyValueKeepsNothing() {
    h.cast("web", Payloads.of(secret("delete"), settings()));

    UninstallResult result = h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    assertThat(result.deleted()).containsExactlyInAnyOrder(KEPT, SETTINGS);
    assertThat(result.retained()).isEmpty();
    assertThat(result.notes()).isEmpty();
    assertThat(h.cluster.object(KEPT)).isEmpty();
  }

  @Test
  void aSecretWhoseValuesWereWithheldIsKeptByItsLiveAnnotation() {
    Payloads payloads = withKept();
    ReleaseSpec withheld =
        spec("web", payloads)
            .withOptions(spec("web", payloads).options().withRecordSecretValues(false));
    h.controller.cast(withheld, payloads);
    assertThat(h.controller.get(NS, "web").orElseThrow().payloads().get(KEPT)).isEmpty();

    UninstallResult result = h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    assertThat(result.retained()).containsExactly(KEPT);
    assertThat(result.deleted()).containsExactly(SETTINGS);
    assertThat(h.cluster.object(KEPT)).isPresent();
    assertThat(h.cluster.stamp(KEPT)).isEmpty();
  }

  @Test
  void aKeptCrdIsNotPrunedEvenWithCrdDeletionAllowedAndThePlanSaysSo() {
    Payloads both = Payloads.of(crd(), settings());
    h.cast("web", both);
    String uid = uid(CRD);
    h.cluster.clearOperations();
    Payloads without = Payloads.of(settings());

    CastResult dropped =
        h.controller.cast(
            spec("web", without)
                .withOptions(spec("web", without).options().withAllowCrdDeletion(true)),
            without);

    assertThat(h.cluster.writes())
        .containsExactly(
            "verify", "unstamp:apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");
    assertThat(dropped.plan().changes(Action.RETAIN))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.reason())
                    .isEqualTo(
                        "retained: helm.sh/resource-policy: keep: un-stamped, kept as Helm keeps"
                            + " it; a CRD so annotated is never deleted, even with CRD deletion"
                            + " allowed"));
    assertThat(h.cluster.object(CRD)).isPresent();
    assertThat(dropped.release().retainedUids()).containsExactly(new RetainedUid(CRD, uid));
  }

  @Test
  void anUninstallThatDeletesCrdsKeepsAKeptCrd() {
    h.cast("web", Payloads.of(crd(), settings()));
    String uid = uid(CRD);
    h.cluster.clearOperations();

    UninstallResult result =
        h.controller.uninstall(NS, "web", UninstallOptions.defaults().withDeleteCrds(true));

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:ConfigMap/default/settings",
            "unstamp:apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");
    assertThat(result.retained()).containsExactly(CRD);
    assertThat(result.notes())
        .containsExactly(
            "apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com: retained:"
                + " helm.sh/resource-policy: keep: un-stamped, kept as Helm keeps it; a CRD so"
                + " annotated is never deleted, even with CRD deletion allowed");
    assertThat(h.cluster.object(CRD)).isPresent();
    assertThat(result.release().retainedUids()).containsExactly(new RetainedUid(CRD, uid));
  }
}
