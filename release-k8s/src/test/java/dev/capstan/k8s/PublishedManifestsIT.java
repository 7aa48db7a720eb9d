package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.InstallBundles;
import dev.capstan.k8s.testing.LoopbackHttpsResponder;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.UpdateOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Install manifests as projects publish them, on the real control plane: a Namespace document is
 * ensured (created, labelled by each release under a field manager of its own, never deleted unless
 * asked), a node agent with a privileged host-network DaemonSet and RBAC in two namespaces becomes
 * healthy, a bundle of CRDs near 1 MB each (over 4 MiB in all) casts and re-casts without a write,
 * the release's own namespace is created with createNamespace though no object lands in it, and an
 * operator whose CRD converts through a webhook and whose kinds pass admission webhooks (all on a
 * {@code https://127.0.0.1:PORT} responder) casts, upgrades through them and re-casts without a
 * write.
 */
@ControlPlaneTest
class PublishedManifestsIT {
  private static final Duration PATIENT = Duration.ofMinutes(3);

  /** The objects of YAML documents, {@code kind: List} items one by one. */
  private static List<Map<String, Object>> documents(String yaml) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
      if (doc instanceof Map<?, ?> map && "List".equals(map.get("kind"))) {
        for (Object item : (List<?>) Objects.requireNonNull(map.get("items"))) {
          out.add(tree((Map<?, ?>) item));
        }
      } else if (doc instanceof Map<?, ?> map) {
        out.add(tree(map));
      }
    }
    return out;
  }

  private static Map<String, Object> tree(Map<?, ?> map) {
    Map<String, Object> object = new LinkedHashMap<>();
    map.forEach((k, v) -> object.put(String.valueOf(k), v));
    return object;
  }

  private static Payloads payloads(String... yaml) {
    Payloads.Builder b = Payloads.builder();
    for (String y : yaml) {
      documents(y).forEach(b::manifest);
    }
    return b.build();
  }

  private static ReleaseSpec spec(String home, String name, Payloads payloads) {
    return ReleaseSpec.of(home, name, payloads)
        .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
  }

  private static String namespaceDoc(String name, String labels) {
    return "{apiVersion: v1, kind: Namespace, metadata: {name: "
        + name
        + ", labels: {"
        + labels
        + "}}}";
  }

  private static String configMap(String ns, String name) {
    return "{apiVersion: v1, kind: ConfigMap, metadata: {name: "
        + name
        + ", namespace: "
        + ns
        + "}, data: {k: v}}";
  }

  private static List<String> lines(Plan plan) {
    return plan.changes().stream().map(PublishedManifestsIT::line).toList();
  }

  private static String line(PlannedChange c) {
    return c.action().id()
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  private static Map<String, String> labels(Cluster cluster, String name) throws ApiException {
    Map<String, String> labels =
        new TreeMap<>(
            Objects.requireNonNull(
                cluster.core.readNamespace(name).execute().getMetadata().getLabels()));
    labels.remove("kubernetes.io/metadata.name");
    return labels;
  }

  private static List<String> managers(Cluster cluster, String name) throws ApiException {
    // typed models drop managedFields: read the namespace raw
    List<V1ManagedFieldsEntry> entries =
        new DynamicKubernetesApi("", "v1", "namespaces", cluster.plane.client())
            .get(name)
            .throwsApiException()
            .getObject()
            .getMetadata()
            .getManagedFields();
    return Objects.requireNonNull(entries).stream()
        .map(V1ManagedFieldsEntry::getManager)
        .filter(m -> m != null && m.startsWith("capstan"))
        .sorted()
        .toList();
  }

  private static boolean gone(Cluster cluster, String name) throws ApiException {
    try {
      V1Namespace ns = cluster.core.readNamespace(name).execute();
      return ns.getMetadata().getDeletionTimestamp() != null;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return true;
      }
      throw e;
    }
  }

  @Test
  void twoReleasesEnsureOneNamespaceEachWithItsOwnLabelsAndNeitherDeletesIt(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String home = tns.name();
    String shared = home + "-shared";
    ReleaseController controller = cluster.controller().build();
    Payloads a =
        payloads(
            namespaceDoc(shared, "pod-security.kubernetes.io/enforce: privileged, team-a: 'yes'"),
            configMap(shared, "a"));
    Payloads b =
        payloads(
            namespaceDoc(shared, "pod-security.kubernetes.io/enforce: privileged, team-b: 'yes'"),
            configMap(shared, "b"));

    CastResult first = controller.cast(spec(home, "a", a), a);
    CastResult second = controller.cast(spec(home, "b", b), b);

    assertThat(lines(first.plan()))
        .containsExactly(
            "reference Namespace//" + home,
            "create Namespace//"
                + shared
                + " (ensured: created with the labels and annotations of the document)",
            "create ConfigMap/" + shared + "/a");
    assertThat(lines(second.plan()))
        .contains("update Namespace//" + shared + " (ensured: labels to apply: team-b=yes)");
    assertThat(labels(cluster, shared))
        .containsExactly(
            Map.entry("pod-security.kubernetes.io/enforce", "privileged"),
            Map.entry("team-a", "yes"),
            Map.entry("team-b", "yes"));
    assertThat(managers(cluster, shared))
        .containsExactly("capstan/" + home + "/a", "capstan/" + home + "/b");
    assertThat(first.release().owns())
        .extracting(o -> o.ref().kind())
        .containsOnly(Kind.CONFIG_MAP);

    // neither release's labels are a change for the other: identical re-casts write no object
    cluster.requests().reset();
    assertThat(controller.cast(spec(home, "a", a), a).plan().changesNothing()).isTrue();
    assertThat(controller.cast(spec(home, "b", b), b).plan().changesNothing()).isTrue();
    assertThat(ReleaseLifecycleIT.objectWrites(cluster)).isEmpty();

    // a drops its own label and the shared one: its label goes, the one b holds too stays
    Payloads aLess = payloads(namespaceDoc(shared, ""), configMap(shared, "a"));
    controller.cast(spec(home, "a", aLess), aLess);
    assertThat(labels(cluster, shared))
        .containsExactly(
            Map.entry("pod-security.kubernetes.io/enforce", "privileged"),
            Map.entry("team-b", "yes"));
    assertThat(controller.plan(spec(home, "a", aLess), aLess).changesNothing()).isTrue();

    UninstallResult ua =
        controller.uninstall(home, "a", UninstallOptions.defaults().withDeleteNamespaces(true));
    assertThat(ua.notes())
        .containsExactly("Namespace//" + shared + ": kept: release " + home + "/b ensures it too");
    assertThat(gone(cluster, shared)).isFalse();
    assertThat(labels(cluster, shared)).containsEntry("team-b", "yes");

    UninstallResult ub =
        controller.uninstall(home, "b", UninstallOptions.defaults().withDeleteNamespaces(true));
    assertThat(ub.deleted())
        .containsExactly(
            ResourceRef.of(Kind.CONFIG_MAP, shared, "b"), ResourceRef.namespace(shared));
    assertThat(gone(cluster, shared)).isTrue();
  }

  @Test
  void aNodeAgentAndABundleOfLargeCrdsCastHealthyRecastWithoutAWriteAndUninstallKeepingCrds(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String agent = tns.name() + "-agent";
    String group = tns.name() + ".bundle.example.com";
    String bundle = InstallBundles.crdBundle(group, 1_000_000, (4 << 20) + 300_000);
    assertThat(bundle.length()).isGreaterThan(4 << 20);
    Payloads payloads =
        payloads(InstallBundles.nodeAgent(agent, "registry.example/agent:1.0"), bundle);
    ReleaseController controller = cluster.controller().build();
    ReleaseSpec spec = spec(agent, "agent", payloads);
    int crds = InstallBundles.crdCount(group, 1_000_000, (4 << 20) + 300_000);

    try {
      CastResult cast = controller.cast(spec, payloads);

      assertThat(lines(cast.plan()))
          .contains(
              "create Namespace//"
                  + agent
                  + " (ensured: created with the labels and annotations of the document)",
              "reference Namespace//kube-system");
      assertThat(labels(cluster, agent))
          .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
      assertThat(cast.release().owns()).hasSize(crds + 6);
      assertThat(cast.release().references())
          .containsExactlyInAnyOrder(
              ResourceRef.namespace(agent), ResourceRef.namespace("kube-system"));

      cluster.requests().reset();
      CastResult again = controller.cast(spec, payloads);
      assertThat(again.plan().changesNothing()).isTrue();
      assertThat(ReleaseLifecycleIT.objectWrites(cluster)).isEmpty();

      UninstallResult u = controller.uninstall(agent, "agent", UninstallOptions.defaults());
      assertThat(u.retained()).hasSize(crds).allMatch(r -> r.kind().isCrd());
      assertThat(u.deleted()).hasSize(6);
      assertThat(u.notes())
          .containsExactly(
              "Namespace//"
                  + agent
                  + ": kept: the release ensures it, and namespaces are shared (deleteNamespaces,"
                  + " the CLI's --delete-namespaces, deletes it with everything in it)");
      assertThat(gone(cluster, agent)).isFalse();
      DynamicKubernetesApi api =
          new DynamicKubernetesApi(
              "apiextensions.k8s.io", "v1", "customresourcedefinitions", plane.client());
      assertThat(api.get("kind0s." + group).isSuccess()).isTrue();
    } finally {
      DynamicKubernetesApi api =
          new DynamicKubernetesApi(
              "apiextensions.k8s.io", "v1", "customresourcedefinitions", plane.client());
      for (int i = 0; i < crds; i++) {
        api.delete("kind" + i + "s." + group);
      }
      cluster.core.deleteNamespace(agent).execute();
    }
  }

  @Test
  void createNamespaceCreatesTheReleasesOwnNamespaceThoughNoObjectLandsInIt(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String home = tns.name() + "-home";
    Payloads payloads = payloads(configMap(tns.name(), "settings"));
    ReleaseController controller = cluster.controller().build();

    cluster.requests().reset();
    ReleaseConflictException refused =
        catchThrowableOfType(
            ReleaseConflictException.class,
            () -> controller.cast(spec(home, "app", payloads), payloads));
    assertThat(refused.plan().conflicts())
        .extracting(PublishedManifestsIT::line)
        .containsExactly(
            "conflict Namespace//"
                + home
                + " (the release's namespace '"
                + home
                + "' does not exist, and its record and lease are kept there; create it, or pass"
                + " createNamespace (the CLI's --create-namespace) to have the cast create it)");
    assertThat(ReleaseLifecycleIT.objectWrites(cluster)).isEmpty();

    try {
      CastResult cast =
          controller.cast(spec(home, "app", payloads).withCreateNamespace(true), payloads);
      assertThat(lines(cast.plan()))
          .containsExactly(
              "reference Namespace//" + tns.name(),
              "reference Namespace//" + home + " (missing; created because createNamespace is set)",
              "create ConfigMap/" + tns.name() + "/settings");
      assertThat(cluster.store.latestRecord(home, "app")).isPresent();
      assertThat(gone(cluster, home)).isFalse();
    } finally {
      cluster.core.deleteNamespace(home).execute();
    }
  }

  /**
   * What the responder answers a webhook: a converted ConversionReview, an admitting
   * AdmissionReview.
   */
  private static String review(String path, String body) {
    JsonObject request = JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("request");
    JsonObject response = new JsonObject();
    response.add("uid", request.get("uid"));
    JsonObject review = new JsonObject();
    if (path.equals("/convert")) {
      String desired = request.get("desiredAPIVersion").getAsString();
      JsonArray converted = new JsonArray();
      for (JsonElement object : request.getAsJsonArray("objects")) {
        JsonObject copy = object.getAsJsonObject().deepCopy();
        copy.addProperty("apiVersion", desired);
        converted.add(copy);
      }
      response.add("convertedObjects", converted);
      JsonObject result = new JsonObject();
      result.addProperty("status", "Success");
      response.add("result", result);
      review.addProperty("apiVersion", "apiextensions.k8s.io/v1");
      review.addProperty("kind", "ConversionReview");
    } else {
      response.addProperty("allowed", true);
      review.addProperty("apiVersion", "admission.k8s.io/v1");
      review.addProperty("kind", "AdmissionReview");
    }
    review.add("response", response);
    return review.toString();
  }

  private static long calls(LoopbackHttpsResponder hooks, String request) {
    return hooks.requests().stream().filter(request::equals).count();
  }

  @Test
  void aWebhookOperatorWithLoopbackWebhooksCastsUpgradesThroughThemAndRecastsWithoutAWrite(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String home = tns.name();
    String group = home + ".webhooks.example.com";
    String crd = "apiextensions.k8s.io/CustomResourceDefinition//widgets." + group;
    String mutating =
        "admissionregistration.k8s.io/MutatingWebhookConfiguration//" + group + "-mutating";
    String validating =
        "admissionregistration.k8s.io/ValidatingWebhookConfiguration//" + group + "-validating";
    String widget = group + "/Widget/" + home + "/first";
    DynamicKubernetesApi widgetsV1 =
        new DynamicKubernetesApi(group, "v1", "widgets", plane.client());
    DynamicKubernetesApi widgetsV2 =
        new DynamicKubernetesApi(group, "v2", "widgets", plane.client());
    DynamicKubernetesApi crds =
        new DynamicKubernetesApi(
            "apiextensions.k8s.io", "v1", "customresourcedefinitions", plane.client());
    ReleaseController controller = cluster.controller().build();
    try (LoopbackHttpsResponder hooks =
        LoopbackHttpsResponder.answering(PublishedManifestsIT::review)) {
      Payloads first =
          payloads(InstallBundles.webhookOperator(group, hooks.port(), hooks.caBundle(), home, 1));
      Payloads second =
          payloads(InstallBundles.webhookOperator(group, hooks.port(), hooks.caBundle(), home, 2));
      try {
        CastResult cast = controller.cast(spec(home, "operator", first), first);

        assertThat(lines(cast.plan()))
            .containsExactly(
                "reference Namespace//" + home,
                "create " + crd,
                "create " + mutating,
                "create " + validating,
                "create " + widget);
        // the Widget is written at v2 and stored at v1: the API server converted it through
        // /convert
        assertThat(calls(hooks, "POST /convert")).isPositive();
        assertThat(size(widgetsV1, home)).isEqualTo(1);

        // the API server takes a webhook configuration into use when its informer sees it: wait
        // until a dry-run write of the Widget passes both, so that the upgrade's write surely does
        Await.until(
            "a dry-run write of the Widget through /mutate and /validate",
            PATIENT,
            () -> {
              KubernetesApiResponse<DynamicKubernetesObject> dry =
                  widgetsV2.update(
                      widgetsV2.get(home, "first").throwsApiException().getObject(),
                      new UpdateOptions().dryRun("All"));
              dry.throwsApiException();
              return calls(hooks, "POST /validate") > 0 && calls(hooks, "POST /mutate") > 0
                  ? hooks.requests()
                  : null;
            });
        long validated = calls(hooks, "POST /validate");
        long mutated = calls(hooks, "POST /mutate");

        CastResult upgrade = controller.cast(spec(home, "operator", second), second);

        assertThat(
                upgrade.plan().changes().stream()
                    .filter(c -> !c.action().id().equals("unchanged"))
                    .filter(c -> !c.action().id().equals("reference"))
                    .map(c -> c.action().id() + " " + c.ref().key()))
            .containsExactly("update " + widget);
        assertThat(calls(hooks, "POST /validate")).isGreaterThan(validated);
        assertThat(calls(hooks, "POST /mutate")).isGreaterThan(mutated);
        assertThat(size(widgetsV1, home)).isEqualTo(2);
        assertThat(size(widgetsV2, home)).isEqualTo(2);

        cluster.requests().reset();
        CastResult again = controller.cast(spec(home, "operator", second), second);
        assertThat(again.plan().changesNothing()).isTrue();
        assertThat(ReleaseLifecycleIT.objectWrites(cluster)).isEmpty();

        UninstallResult u = controller.uninstall(home, "operator", UninstallOptions.defaults());
        // in reverse rank order (custom resources, then webhooks), a rank's objects by key
        assertThat(u.deleted())
            .extracting(ResourceRef::key)
            .containsExactly(widget, mutating, validating);
        assertThat(u.retained()).extracting(ResourceRef::key).containsExactly(crd);
        assertThat(widgetsV2.get(home, "first").getHttpStatusCode()).isEqualTo(404);
        assertThat(crds.get("widgets." + group).isSuccess()).isTrue();
      } finally {
        new DynamicKubernetesApi(
                "admissionregistration.k8s.io",
                "v1",
                "validatingwebhookconfigurations",
                plane.client())
            .delete(group + "-validating");
        new DynamicKubernetesApi(
                "admissionregistration.k8s.io",
                "v1",
                "mutatingwebhookconfigurations",
                plane.client())
            .delete(group + "-mutating");
        crds.delete("widgets." + group);
      }
    }
  }

  private static long size(DynamicKubernetesApi widgets, String namespace) throws ApiException {
    JsonObject spec =
        widgets
            .get(namespace, "first")
            .throwsApiException()
            .getObject()
            .getRaw()
            .getAsJsonObject("spec");
    return spec.get("size").getAsLong();
  }
}
