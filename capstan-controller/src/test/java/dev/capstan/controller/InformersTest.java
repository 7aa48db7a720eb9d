package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1SecretList;
import java.io.IOException;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** What the controller keeps of the ConfigMaps and Secrets it lists: each one's identity alone. */
class InformersTest {
  private static final String ITEM =
      """
      {"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
       "metadata": {"name": "%s", "namespace": "team-a", "uid": "u-%1$s", "resourceVersion": "7",
         "labels": {"app": "web"}, "annotations": {"note": "%s"},
         "ownerReferences": [{"kind": "Release", "name": "x", "uid": "o"}],
         "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:metadata": {}}}],
         "creationTimestamp": "2026-12-07T10:00:00Z", "generation": 3}}""";

  @Test
  void aListKeepsOfEachItemItsNameNamespaceUidAndResourceVersionAndOfItselfItsMetadata()
      throws IOException {
    String list =
        "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadataList\","
            + "\"metadata\":{\"resourceVersion\":\"42\"},\"items\":["
            + ITEM.formatted("a", "x".repeat(256 * 1024))
            + ","
            + ITEM.formatted("b", "y")
            + "],\"extra\":{\"skipped\":[1,2]}}";

    assertThat(Informers.identities(new StringReader(list)))
        .isEqualTo(
            JsonParser.parseString(
                """
                {"items": [
                   {"metadata": {"name": "a", "namespace": "team-a", "uid": "u-a",
                                 "resourceVersion": "7"}},
                   {"metadata": {"name": "b", "namespace": "team-a", "uid": "u-b",
                                 "resourceVersion": "7"}}],
                 "metadata": {"resourceVersion": "42"}}"""));
  }

  @Test
  void anEmptyListWhoseItemsAreNullReadsAsNoItemsAndConvertsToATypedList() throws IOException {
    String list =
        "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadataList\","
            + "\"metadata\":{\"resourceVersion\":\"1\"},\"items\":null}";

    V1SecretList secrets =
        JSON.getGson().fromJson(Informers.identities(new StringReader(list)), V1SecretList.class);

    assertThat(secrets.getItems()).isEmpty();
    assertThat(secrets.getMetadata().getResourceVersion()).isEqualTo("1");
  }

  @Test
  void anAnswerThatIsNotOneListObjectIsRefused() {
    assertThatThrownBy(() -> Informers.identities(new StringReader("[]")))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> Informers.identities(new StringReader("{\"items\":[1]}")))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> Informers.identities(new StringReader("{} {}")))
        .isInstanceOf(IOException.class);
  }
}
