package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.Planner;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Releases of any kind of object: order, waves, CRDs and custom resources, bad manifests. */
class AnyKindReleaseTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {name: widgets.example.com}
      spec:
        group: example.com
        scope: Namespaced
        names: {kind: Widget, plural: widgets}
        versions: [{name: v1, served: true, storage: true}]
      """;

  static final String MIGRATE =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: migrate
        annotations: {capstan.dev/wave: "-1"}
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: migrate, image: "shop-migrate:7"}]
      """;

  static Payloads app() {
    return Payloads.of(
        yaml("{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: web}}"),
        yaml("{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: web}}"),
        yaml("{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web}}"),
        yaml(
            "{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db}, spec: {template:"
                + " {spec: {containers: [{name: db, image: 'pg:16'}]}}}}"),
        yaml("{apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly}}"),
        yaml("{apiVersion: example.com/v1, kind: Widget, metadata: {name: w1}}"),
        yaml("{apiVersion: example.com/v1, kind: Widget, metadata: {name: w2}}"),
        yaml(MIGRATE),
        yaml("{apiVersion: v1, kind: ServiceAccount, metadata: {name: shop}}"),
        yaml("{apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: shop}}"),
        yaml(
            "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name:"
                + " 'shop:reader'}}"),
        yaml(
            "{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name:"
                + " deny-all}}"),
        yaml(CRD),
        configMap("settings", "v1"),
        Fixtures.creds("pw"),
        Fixtures.web("web:1"));
  }

  @Test
  void appliesWaveByWaveInRankOrderAndWaitsForCrdsBeforeTheirResources() {
    h.cast("shop", app());

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:batch/Job/default/migrate",
            "verify",
            "apply:apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com",
            "verify",
            "apply:rbac.authorization.k8s.io/ClusterRole//shop:reader",
            "apply:ServiceAccount/default/shop",
            "apply:networking.k8s.io/NetworkPolicy/default/deny-all",
            "apply:rbac.authorization.k8s.io/Role/default/shop",
            "apply:ConfigMap/default/settings",
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:apps/StatefulSet/default/db",
            "apply:batch/CronJob/default/nightly",
            "apply:Service/default/web",
            "apply:autoscaling/HorizontalPodAutoscaler/default/web",
            "apply:networking.k8s.io/Ingress/default/web",
            "apply:policy/PodDisruptionBudget/default/web",
            "apply:example.com/Widget/default/w1",
            "apply:example.com/Widget/default/w2",
            "verify");
    assertThat(
            h.cluster.stamp(
                ResourceRef.parse("rbac.authorization.k8s.io/ClusterRole//shop:reader")))
        .isPresent();
  }

  @Test
  void anIdenticalRecastWritesNothingAndOneChangedObjectWritesExactlyThat() {
    h.cast("shop", app());
    h.cluster.clearOperations();

    CastResult same = h.cast("shop", app());
    assertThat(same.plan().changesNothing()).isTrue();
    assertThat(h.cluster.writes()).containsExactly("verify", "verify");

    h.cluster.clearOperations();
    Payloads changed =
        app()
            .with(
                yaml(
                    "{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: web},"
                        + " spec: {rules: [{host: shop.example.com}]}}"));
    h.cast("shop", changed);
    assertThat(h.cluster.writes())
        .containsExactly("verify", "apply:networking.k8s.io/Ingress/default/web", "verify");
  }

  @Test
  void anIngressFieldFilledOutOfBandIsNoDriftAndOneTheReleaseSetAndSomeoneChangedIsRepaired() {
    h.cast("shop", app());
    ResourceRef ingress = ResourceRef.parse("networking.k8s.io/Ingress/default/web");
    // the release set no spec: what another writer puts there is theirs
    h.cluster.edit(ingress, m -> m.with("spec.ingressClassName", "someone-elses"));

    assertThat(h.controller.plan(spec("shop", app())).changesNothing()).isTrue();

    Payloads ours =
        app()
            .with(
                yaml(
                    "{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: web},"
                        + " spec: {ingressClassName: ours}}"));
    h.cast("shop", ours);
    h.cluster.edit(ingress, m -> m.with("spec.ingressClassName", "someone-elses"));

    Plan plan = h.controller.plan(spec("shop", ours));

    assertThat(plan.changes(Action.REPAIR))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref()).isEqualTo(ingress);
              assertThat(c.reason()).isEqualTo("drift: field spec.ingressClassName set by edit");
            });
    h.cast("shop", ours);
    assertThat(h.cluster.object(ingress).orElseThrow().get("spec.ingressClassName"))
        .isEqualTo("ours");
  }

  @Test
  void aDroppedCronJobIsPrunedLastAndTheCrdIsKeptUnlessAllowed() {
    h.cast("shop", app());
    h.cluster.clearOperations();
    ResourceRef cron = ResourceRef.parse("batch/CronJob/default/nightly");
    ResourceRef crd =
        ResourceRef.parse("apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");
    Payloads without =
        app()
            .without(cron)
            .without(crd)
            .without(ResourceRef.parse("example.com/Widget/default/w1"))
            .without(ResourceRef.parse("example.com/Widget/default/w2"));

    CastResult r = h.cast("shop", without);

    assertThat(h.cluster.writes())
        .containsExactly(
            "verify",
            "verify",
            "delete:example.com/Widget/default/w1",
            "delete:example.com/Widget/default/w2",
            "delete:batch/CronJob/default/nightly",
            "unstamp:apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");
    assertThat(r.plan().changes(Action.RETAIN))
        .singleElement()
        .satisfies(c -> assertThat(c.reason()).isEqualTo(Planner.CRD_KEPT));
    assertThat(h.cluster.object(crd)).isPresent();
    assertThat(h.cluster.stamp(crd)).isEmpty();
    assertThat(r.release().retained()).containsExactly(crd);
  }

  @Test
  void uninstallGoesInReverseOrderAndKeepsTheCrdByDefault() {
    h.cast("shop", app());
    h.cluster.clearOperations();

    UninstallResult u = h.controller.uninstall(NS, "shop", UninstallOptions.defaults());

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:example.com/Widget/default/w1",
            "delete:example.com/Widget/default/w2",
            "delete:Service/default/web",
            "delete:autoscaling/HorizontalPodAutoscaler/default/web",
            "delete:networking.k8s.io/Ingress/default/web",
            "delete:policy/PodDisruptionBudget/default/web",
            "delete:apps/Deployment/default/web",
            "delete:apps/StatefulSet/default/db",
            "delete:batch/CronJob/default/nightly",
            "delete:batch/Job/default/migrate",
            "delete:Secret/default/creds",
            "delete:ConfigMap/default/settings",
            "delete:ServiceAccount/default/shop",
            "delete:networking.k8s.io/NetworkPolicy/default/deny-all",
            "delete:rbac.authorization.k8s.io/Role/default/shop",
            "delete:rbac.authorization.k8s.io/ClusterRole//shop:reader",
            "unstamp:apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com");
    assertThat(u.retained())
        .containsExactly(
            ResourceRef.parse(
                "apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com"));
  }

  @Test
  void uninstallDeletesTheCrdWhenAsked() {
    h.cast("shop", Payloads.of(yaml(CRD)));

    h.controller.uninstall(NS, "shop", UninstallOptions.defaults().withDeleteCrds(true));

    assertThat(h.cluster.objects()).isEmpty();
  }

  @Test
  void aKindTheClusterDoesNotServeIsRefusedBeforeAnyWrite() {
    Payloads p =
        Payloads.of(
            configMap("settings", "v1"),
            yaml("{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g}}"));

    assertThatThrownBy(() -> h.cast("shop", p))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessageContaining(
            "kind example.com/Gadget: the cluster does not serve example.com/Gadget (no such CRD"
                + " installed)");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.recordCount(NS, "shop")).isZero();
  }

  @Test
  void aCustomResourceOfAnInstalledCrdNeedsNoCrdInTheRelease() {
    h.cluster.serve(Kind.custom("example.com", "v1", "Gadget", true));

    h.cast(
        "shop",
        Payloads.of(yaml("{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g}}")));

    assertThat(h.cluster.objects())
        .containsExactly(ResourceRef.parse("example.com/Gadget/default/g"));
  }

  @Test
  void badManifestsAreRefusedNamingTheFieldAndTheValue() {
    assertThatThrownBy(
            () -> Manifest.of(Map.of("kind", "ConfigMap", "metadata", Map.of("name", "a"))))
        .hasMessage("manifest: apiVersion must be a non-empty string: missing");
    assertThatThrownBy(
            () ->
                Manifest.of(
                    Map.of(
                        "apiVersion",
                        "v1",
                        "kind",
                        "ConfigMap",
                        "metadata",
                        Map.of("name", "A\u001b[2J", "namespace", NS))))
        .hasMessage(
            "manifest ConfigMap: ConfigMap name must be a DNS-1123 subdomain (lower-case"
                + " alphanumerics, '-' and '.', starting and ending with an alphanumeric, at most"
                + " 253 characters): 'A\\u001b[2J'");
    assertThatThrownBy(
            () ->
                Manifest.of(
                    Map.of(
                        "apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "a"))))
        .hasMessage(
            "manifest ConfigMap 'a': metadata.namespace is required for a namespaced kind, and no"
                + " default namespace was given");
    assertThatThrownBy(() -> yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: Bad_Name}}"))
        .hasMessage(
            "manifest ConfigMap: ConfigMap name must be a DNS-1123 subdomain (lower-case"
                + " alphanumerics, '-' and '.', starting and ending with an alphanumeric, at most"
                + " 253 characters): 'Bad_Name'");
    // a StorageClass document is the release's own (an install manifest shipping its class)
    assertThat(
            Payloads.of(
                    yaml(
                        "{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name:"
                            + " fast}, provisioner: x}"))
                .refs())
        .containsExactly(ResourceRef.storageClass("fast"));
    assertThatThrownBy(
            () ->
                Payloads.of(
                    yaml(
                        "{apiVersion: v1, kind: Namespace, metadata: {name: shop, finalizers:"
                            + " [x]}}")))
        .hasMessage(
            "Namespace//shop: metadata.finalizers is not applied: a Namespace in a release is"
                + " ensured (created when missing, its labels and annotations applied, never"
                + " owned), and only its metadata.name, metadata.labels and metadata.annotations"
                + " are applied; remove metadata.finalizers from the document");
    assertThatThrownBy(
            () -> yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {n: 1}}}"))
        .hasMessage("ConfigMap/default/a: metadata.labels.n must be a string (quote it): '1'");
    // a Secret's annotations may copy its data (the plan's diff masks them): never shown
    assertThatThrownBy(
            () ->
                yaml(
                    "{apiVersion: v1, kind: Secret, metadata: {name: a, annotations: {n:"
                        + " 12345678}}}"))
        .hasMessage(
            "Secret/default/a: metadata.annotations.n must be a string (quote it) (the value is"
                + " not shown)");
    assertThatThrownBy(
            () ->
                Payloads.of(
                    yaml(
                        "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations:"
                            + " {capstan.dev/wave: soon}}}")))
        .hasMessage(
            "ConfigMap/default/a: annotation capstan.dev/wave must be an integer from -100 to 100:"
                + " 'soon'");
  }

  @Test
  void aManifestIsADeepCopyThatCannotBeChangedFromOutside() {
    Map<String, Object> data = new LinkedHashMap<>(Map.of("k", "v"));
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("apiVersion", "v1");
    tree.put("kind", "ConfigMap");
    tree.put("metadata", Map.of("name", "a", "namespace", NS));
    tree.put("data", data);
    Manifest m = Manifest.of(tree);

    data.put("k", "changed");
    tree.put("kind", "Secret");

    assertThat(m.get("data.k")).isEqualTo("v");
    assertThat(m.kind()).isEqualTo(Kind.CONFIG_MAP);
    assertThatThrownBy(() -> m.content().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> inner =
        (Map<String, Object>) java.util.Objects.requireNonNull(m.get("data"));
    assertThatThrownBy(() -> inner.put("k", "x")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void secretManifestValuesNeverPrint() {
    Manifest secret =
        yaml(
            "{apiVersion: v1, kind: Secret, metadata: {name: db}, stringData: {password: s3cr3t}}");
    Payloads p = Payloads.of(secret);

    h.cast("shop", p);
    String text = PlanRenderer.text(h.controller.plan(spec("shop", p)), true);

    assertThat(secret.toString()).isEqualTo("Manifest[Secret/default/db]").doesNotContain("s3cr3t");
    assertThat(p.toString()).doesNotContain("s3cr3t");
    assertThat(text).contains("Secret/default/db").doesNotContain("s3cr3t");
    assertThat(h.events.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void payloadsBuilderDefaultsTheNamespaceAndLearnsScopesFromCrds() {
    Map<String, Object> crd = new LinkedHashMap<>();
    crd.put("apiVersion", "apiextensions.k8s.io/v1");
    crd.put("kind", "CustomResourceDefinition");
    crd.put("metadata", Map.of("name", "clusterwidgets.example.com"));
    crd.put(
        "spec",
        Map.of(
            "group",
            "example.com",
            "scope",
            "Cluster",
            "names",
            Map.of("kind", "ClusterWidget", "plural", "clusterwidgets"),
            "versions",
            List.of(Map.of("name", "v1", "served", true, "storage", true))));

    Payloads p =
        Payloads.builder()
            .namespace("shop")
            .manifest(
                Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "a")))
            .manifest(
                Map.of(
                    "apiVersion",
                    "example.com/v1",
                    "kind",
                    "ClusterWidget",
                    "metadata",
                    Map.of("name", "c")))
            .manifest(crd)
            .build();

    assertThat(p.refs())
        .extracting(ResourceRef::key)
        .containsExactly(
            "apiextensions.k8s.io/CustomResourceDefinition//clusterwidgets.example.com",
            "ConfigMap/shop/a",
            "example.com/ClusterWidget//c");
    assertThat(p.get(ResourceRef.parse("ConfigMap/shop/a")).orElseThrow().get("metadata.namespace"))
        .isEqualTo("shop");
  }
}
