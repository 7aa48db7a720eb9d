package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading the REST mapping from discovery documents. */
class DiscoveryTest {

  @Test
  void anAggregatedDocumentMapsKindsToResourcesPreferredVersionFirstWithoutSubresources() {
    Map<String, List<Discovery.Resource>> map = new HashMap<>();
    Discovery.readAggregated(
        JsonParser.parseString(
                """
                {"kind":"APIGroupDiscoveryList","items":[
                  {"metadata":{"name":"autoscaling"},"versions":[
                    {"version":"v2","resources":[
                      {"resource":"horizontalpodautoscalers","scope":"Namespaced",
                       "responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"}},
                      {"resource":"horizontalpodautoscalers/status","scope":"Namespaced",
                       "responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"}}]},
                    {"version":"v1","resources":[
                      {"resource":"horizontalpodautoscalers","scope":"Namespaced",
                       "responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"}}]}]},
                  {"metadata":{"name":"rbac.authorization.k8s.io"},"versions":[
                    {"version":"v1","resources":[
                      {"resource":"clusterroles","scope":"Cluster",
                       "responseKind":{"group":"","version":"","kind":"ClusterRole"}}]}]}]}
                """)
            .getAsJsonObject(),
        null,
        map);

    assertThat(map.get("autoscaling/HorizontalPodAutoscaler"))
        .containsExactly(
            new Discovery.Resource(
                "autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true),
            new Discovery.Resource(
                "autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true));
    assertThat(map.get("rbac.authorization.k8s.io/ClusterRole"))
        .containsExactly(
            new Discovery.Resource(
                "rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false));
    assertThat(map).hasSize(2);
  }

  @Test
  void theCoreGroupOfAnAggregatedDocumentHasNoName() {
    Map<String, List<Discovery.Resource>> map = new HashMap<>();
    Discovery.readAggregated(
        JsonParser.parseString(
                """
                {"kind":"APIGroupDiscoveryList","items":[{"metadata":{},"versions":[
                  {"version":"v1","resources":[
                    {"resource":"configmaps","scope":"Namespaced",
                     "responseKind":{"group":"","version":"","kind":"ConfigMap"}}]}]}]}
                """)
            .getAsJsonObject(),
        "",
        map);

    assertThat(map)
        .containsExactly(
            Map.entry(
                "ConfigMap",
                List.of(new Discovery.Resource("", "v1", "configmaps", "ConfigMap", true))));
  }

  @Test
  void aPlainResourceListMapsItsResources() {
    Map<String, List<Discovery.Resource>> map = new HashMap<>();
    Discovery.readResourceList(
        JsonParser.parseString(
                """
                {"kind":"APIResourceList","groupVersion":"shop.example.com/v1","resources":[
                  {"name":"widgets","namespaced":true,"kind":"Widget"},
                  {"name":"widgets/status","namespaced":true,"kind":"Widget"}]}
                """)
            .getAsJsonObject(),
        "shop.example.com",
        "v1",
        map);

    assertThat(map)
        .containsExactly(
            Map.entry(
                "shop.example.com/Widget",
                List.of(
                    new Discovery.Resource("shop.example.com", "v1", "widgets", "Widget", true))));
  }
}
