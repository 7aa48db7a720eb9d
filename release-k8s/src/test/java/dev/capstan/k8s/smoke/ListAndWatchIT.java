package dev.capstan.k8s.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.reflect.TypeToken;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.Watch;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class ListAndWatchIT {

  @Test
  void labelSelectorListReturnsOnlyTheMatchingObjects(ApiClient client, TestNamespace ns)
      throws ApiException {
    CoreV1Api core = new CoreV1Api(client);
    create(core, ns, "web-frontend", Map.of("app", "web", "tier", "frontend"));
    create(core, ns, "web-backend", Map.of("app", "web", "tier", "backend"));
    create(core, ns, "db", Map.of("app", "db", "tier", "backend"));

    assertThat(names(core, ns, "app=web")).containsExactlyInAnyOrder("web-frontend", "web-backend");
    assertThat(names(core, ns, "app=web,tier=backend")).containsExactly("web-backend");
    assertThat(names(core, ns, "tier in (backend),app!=web")).containsExactly("db");
    assertThat(names(core, ns, "app=none")).isEmpty();
  }

  @Test
  void watchReceivesAddedModifiedAndDeletedEventsInOrder(ControlPlane plane, TestNamespace ns)
      throws ApiException, IOException {
    ApiClient watchClient = plane.newClient(Duration.ofSeconds(90));
    CoreV1Api core = new CoreV1Api(plane.client());
    String resourceVersion =
        core.listNamespacedConfigMap(ns.name()).execute().getMetadata().getResourceVersion();

    List<String> events = new ArrayList<>();
    try (Watch<V1ConfigMap> watch =
        Watch.createWatch(
            watchClient,
            new CoreV1Api(watchClient)
                .listNamespacedConfigMap(ns.name())
                .watch(true)
                .resourceVersion(resourceVersion)
                .timeoutSeconds(60)
                .buildCall(null),
            new TypeToken<Watch.Response<V1ConfigMap>>() {}.getType())) {
      core.createNamespacedConfigMap(
              ns.name(),
              new V1ConfigMap()
                  .metadata(new V1ObjectMeta().name("watched"))
                  .data(Map.of("phase", "one")))
          .execute();
      PatchUtils.patch(
          V1ConfigMap.class,
          () ->
              core.patchNamespacedConfigMap(
                      "watched", ns.name(), new V1Patch("{\"data\":{\"phase\":\"two\"}}"))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          plane.client());
      core.deleteNamespacedConfigMap("watched", ns.name()).execute();

      for (Watch.Response<V1ConfigMap> event : watch) {
        if (!"watched".equals(event.object.getMetadata().getName())) {
          continue; // e.g. kube-root-ca.crt, published by the controller-manager
        }
        events.add(event.type + " " + event.object.getData());
        if ("DELETED".equals(event.type)) {
          break;
        }
      }
    }

    assertThat(events)
        .containsExactly("ADDED {phase=one}", "MODIFIED {phase=two}", "DELETED {phase=two}");
  }

  private static void create(
      CoreV1Api core, TestNamespace ns, String name, Map<String, String> labels)
      throws ApiException {
    core.createNamespacedConfigMap(
            ns.name(), new V1ConfigMap().metadata(new V1ObjectMeta().name(name).labels(labels)))
        .execute();
  }

  private static List<String> names(CoreV1Api core, TestNamespace ns, String selector)
      throws ApiException {
    return core
        .listNamespacedConfigMap(ns.name())
        .labelSelector(selector)
        .execute()
        .getItems()
        .stream()
        .map(c -> c.getMetadata().getName())
        .toList();
  }
}
