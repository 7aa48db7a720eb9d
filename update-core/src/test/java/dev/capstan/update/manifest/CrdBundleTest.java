package dev.capstan.update.manifest;

import static dev.capstan.update.McpRuntime.crd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.InvalidManifestException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CrdBundleTest {

  @Test
  void concatSortsYamlFilesByNameAndIgnoresOthers() {
    String bundle =
        CrdBundle.concat(
            Map.of(
                "b-grants.yaml", crd("grants", "Grant", "v1"),
                "a-servers.yml", crd("mcpservers", "MCPServer", "v1").stripTrailing(),
                "README.md", "# not a CRD",
                "c-sessions.yaml", crd("sessions", "Session", "v1")));

    assertThat(CrdBundle.parse(bundle).names())
        .containsExactly(
            "mcpservers.mcpruntime.org", "grants.mcpruntime.org", "sessions.mcpruntime.org");
    assertThat(bundle).contains("x-kubernetes-preserve-unknown-fields: true\n---\napiVersion");
  }

  @Test
  void emptyDocumentsAreIgnoredButAnEmptyBundleIsAnError() {
    assertThat(CrdBundle.parse("---\n" + crd("grants", "Grant", "v1") + "---\n").names())
        .containsExactly("grants.mcpruntime.org");
    assertThatThrownBy(() -> CrdBundle.parse("---\n---\n"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage("invalid release manifest CRD bundle: crds holds no CustomResourceDefinition");
  }

  @Test
  void otherKindsDuplicatesAndMissingSpecsAreAllReported() {
    String bundle =
        crd("grants", "Grant", "v1")
            + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: token}\n"
            + "---\n"
            + crd("grants", "Grant", "v2")
            + "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            + "metadata: {name: x.mcpruntime.org}\n";

    assertThatThrownBy(() -> CrdBundle.parse(bundle))
        .isInstanceOfSatisfying(
            InvalidManifestException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "crds[1].kind must be CustomResourceDefinition: 'Secret'",
                        "crds[2].metadata.name duplicates crds[0]: 'grants.mcpruntime.org'",
                        "crds[3].spec must be a mapping"));
  }

  @Test
  void aNumberTheApiServerWouldStoreChangedIsRefusedWithItsPathBeforeAnyWrite() {
    String bundle =
        crd("grants", "Grant", "v1")
            + "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            + "metadata: {name: x.mcpruntime.org}\n"
            + "spec: {group: mcpruntime.org, replicas: 123456789012345678901234567890}\n";

    assertThatThrownBy(() -> CrdBundle.parse(bundle))
        .isInstanceOfSatisfying(
            InvalidManifestException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "crds[1].spec.replicas must be an integer of at most 64 bits (from"
                            + " -9223372036854775808 to 9223372036854775807): the API server reads"
                            + " a larger one as an inexact float, which an integer field stores as"
                            + " 0 or a wrapped value; quote it for a string:"
                            + " 123456789012345678901234567890"));
  }

  @Test
  void specEqualityIsDeepAndIgnoresNumberRepresentation() {
    CrdDocument doc =
        CrdBundle.parse(
                """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: a.b.c}
                spec: {group: b.c, replicas: 3, ratio: 0.5, list: [1, {x: null}]}
                """)
            .crds()
            .get(0);

    assertThat(
            doc.specEquals(
                Map.of("group", "b.c", "replicas", 3L, "ratio", 0.5, "list", List.of(1, Map.of()))))
        .isFalse();
    java.util.Map<String, Object> withNull = new java.util.HashMap<>();
    withNull.put("x", null);
    assertThat(
            doc.specEquals(
                Map.of("group", "b.c", "replicas", 3, "ratio", 0.5, "list", List.of(1L, withNull))))
        .isTrue();
    assertThat(
            doc.specEquals(
                Map.of("group", "b.c", "replicas", 4, "ratio", 0.5, "list", List.of(1L, withNull))))
        .isFalse();
  }
}
