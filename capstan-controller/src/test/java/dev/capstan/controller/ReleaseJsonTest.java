package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import dev.capstan.k8s.JsonTrees;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ReleaseTooLargeException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReleaseJsonTest {
  /** A Release whose manifests and chart values hold every kind of JSON value. */
  private static final String RELEASE =
      """
      {"apiVersion": "capstan.dev/v1alpha1", "kind": "Release",
       "metadata": {"namespace": "shop", "name": "web", "generation": 3},
       "spec": {
         "manifests": [
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
            "data": {"s": "caf\\u00e9 \\"q\\" \\\\ \\u2028 \\ud83d\\ude00", "n": null}},
           {"apiVersion": "x.dev/v1", "kind": "Foo", "metadata": {"name": "f"},
            "spec": {"i": 1, "l": 12345678901234567890123, "d": 1.50, "e": 1e3, "neg": -0.0,
                     "b": [true, false, null, [], {}], "deep": [[[{"a": [1]}]]]}}
         ],
         "manifestsFrom": [{"configMap": {"name": "more"}}],
         "chart": {"chart": "oci://r.example/web", "values": {"replicas": 3, "ratio": 0.25,
                   "tags": ["a", {"b": null}], "nested": {"x": {"y": "z"}}}},
         "interval": "5m"
       }}
      """;

  private static JsonObject parsed() throws IOException {
    return ReleaseJson.parse(new StringReader(RELEASE));
  }

  @Test
  void theInformerHoldsTheManifestsAndTheChartValuesAsTheirJsonTextAndTheRestAsATree()
      throws IOException {
    DynamicKubernetesObject held = ReleaseJson.release(parsed());

    JsonObject spec = held.getRaw().getAsJsonObject("spec");
    assertThat(spec.get("manifests").isJsonPrimitive()).isTrue();
    assertThat(spec.getAsJsonObject("chart").get("values").isJsonPrimitive()).isTrue();
    assertThat(spec.getAsJsonObject("chart").get("chart").getAsString())
        .isEqualTo("oci://r.example/web");
    assertThat(spec.get("manifestsFrom").isJsonArray()).isTrue();
    assertThat(held.getMetadata().getName()).isEqualTo("web");
  }

  @Test
  void theSpecReadBackIsTheSpecAsWrittenValueForValue() throws IOException {
    Map<String, Object> asWritten = JsonTrees.toJava(parsed().getAsJsonObject("spec"));
    Map<String, Object> held =
        KubernetesReleaseObjects.resource(ReleaseJson.release(parsed())).spec();

    assertThat(ReleaseJson.expanded(held)).isEqualTo(asWritten);
    assertThat(ReleaseJson.expanded(asWritten)).isSameAs(asWritten); // a tree is kept as it is
  }

  @Test
  void aListIsReadOneReleaseAtATimeAsTheWholeListIsRead() throws IOException {
    String list =
        "{\"apiVersion\":\"capstan.dev/v1alpha1\",\"kind\":\"ReleaseList\","
            + "\"metadata\":{\"resourceVersion\":\"42\"},\"items\":["
            + RELEASE
            + ","
            + RELEASE.replace("\"web\"", "\"api\"")
            + "]}";

    DynamicKubernetesListObject streamed = ReleaseJson.list(new StringReader(list));
    DynamicKubernetesListObject whole = ReleaseJson.list(ReleaseJson.parse(new StringReader(list)));

    assertThat(streamed.getRaw()).isEqualTo(whole.getRaw());
    assertThat(streamed.getMetadata().getResourceVersion()).isEqualTo("42");
    List<String> names = streamed.getItems().stream().map(o -> o.getMetadata().getName()).toList();
    assertThat(names).containsExactly("web", "api");
    assertThat(
            streamed
                .getItems()
                .get(1)
                .getRaw()
                .getAsJsonObject("spec")
                .get("manifests")
                .isJsonPrimitive())
        .isTrue();
  }

  @Test
  void aHeldTextIsReadBackOnlyWhenItsNodesFitTheBudgetCountedWithoutBuildingThem()
      throws IOException {
    Map<String, Object> held =
        KubernetesReleaseObjects.resource(ReleaseJson.release(parsed())).spec();
    String manifests = (String) java.util.Objects.requireNonNull(held.get("manifests"));
    Map<?, ?> chart = (Map<?, ?>) java.util.Objects.requireNonNull(held.get("chart"));
    String values = (String) java.util.Objects.requireNonNull(chart.get("values"));
    // {"a":[{},1]}: the object, a name, the array, the inner object and the number
    assertThat(ReleaseJson.nodes("{\"a\":[{},1]}")).isEqualTo(5);
    long nodes = ReleaseJson.nodes(manifests) + ReleaseJson.nodes(values);
    long chars = (long) manifests.length() + values.length();
    HeapBudget exact = new HeapBudget(chars * 8 + nodes * 128, 128, 8);

    assertThat(ReleaseJson.expanded(held, exact, "Release shop/web"))
        .isEqualTo(ReleaseJson.expanded(held));
    HeapBudget less = new HeapBudget(exact.bytes() - 1, 128, 8);
    assertThatThrownBy(() -> ReleaseJson.expanded(held, less, "Release shop/web"))
        .isInstanceOfSatisfying(
            ReleaseTooLargeException.class,
            e -> {
              assertThat(e.at()).isEqualTo("(spec.manifests, read back)");
              assertThat(e.chars()).isEqualTo(chars);
              assertThat(e.nodes()).isEqualTo(nodes);
            });
  }
}
