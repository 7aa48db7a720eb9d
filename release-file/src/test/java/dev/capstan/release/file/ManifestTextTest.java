package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ManifestTextTest {
  private static final String RENDERED =
      """
      ---
      # Source: shop/templates/config.yaml
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: shop-config
      data:
        mode: "fast"
      ---
      # Source: shop/templates/empty.yaml
      ---
      # Source: shop/templates/web.yaml
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: other
      spec:
        replicas: 1
      """;

  @Test
  void theDocumentsOfAllInputsAreHeldToTheReleaseLimitAndNoneIsReadPastIt() {
    String text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" + "---\n".repeat(9999);
    List<ManifestInput> inputs =
        List.of(
            ManifestInput.document(
                "spec.manifests[0]",
                Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "a"))),
            ManifestInput.text("configmap m key all.yaml", text),
            ManifestInput.secretText("secret n key all.yaml", "not: [valid"));

    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.manifestInputs(
                    inputs, "Release shop/web", new Overrides("shop", "web", "shop")));

    // the Secret's text is not read: its syntax error is not reported
    assertThat(e.problems())
        .containsExactly(
            "(configmap m key all.yaml#9999): the release would hold 10001 documents with this"
                + " one; the limit is 10000 documents per release");
  }

  @Test
  void renderedManifestTextBecomesObjectsInTheReleaseNamespaceSkippingEmptyDocuments() {
    ReleaseFile file =
        ReleaseFiles.manifestText(RENDERED, "helm shop revision 3", new Overrides("shop", "shop"));

    assertThat(file.payloads().refs())
        .extracting(ResourceRef::key)
        .containsExactly("ConfigMap/shop/shop-config", "apps/Deployment/other/web");
    assertThat(file.name()).isEqualTo("shop");
    assertThat(file.namespace()).isEqualTo("shop");
  }

  @Test
  void aBrokenDocumentIsNamedByIndexWithoutQuotingAnyValue() {
    String text =
        """
        apiVersion: v1
        kind: Secret
        metadata:
          name: creds
        stringData:
          password: "hunter2
        """;

    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () -> ReleaseFiles.manifestText(text, "helm shop revision 3", new Overrides("s", "s")));

    assertThat(e.getMessage()).startsWith("helm shop revision 3: (helm shop revision 3");
    assertThat(e.getMessage()).doesNotContain("hunter2");
  }

  @Test
  void aDocumentWithoutKindIsNamedByItsIndex() {
    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.manifestText(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\n",
                    "rendered",
                    new Overrides("s", "s")));

    assertThat(e.problems())
        .containsExactly(
            "(rendered#1): kind must be a non-empty string: missing",
            "(rendered#1): metadata must be a mapping with a name: missing");
  }
}
