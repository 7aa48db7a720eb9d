package dev.capstan.update.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.InvalidCatalogException;
import dev.capstan.update.McpRuntime;
import dev.capstan.update.cluster.Workload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example catalog, and the catalog rules (counterpart of mcp-runtime's inventory_test). */
class CatalogTest {
  private static final String CM_HINT =
      "update does not upgrade cert-manager CRDs, follow"
          + " https://cert-manager.io/docs/installation/upgrade/";

  @Test
  void yamlCatalogEqualsTheSameCatalogBuiltInJava() {
    Catalog java =
        Catalog.builder()
            .platformName("MCP Runtime")
            .manifestApiVersion("mcpruntime.org/v1alpha1")
            .metadataKeys("mcpruntime.org", "mcp-runtime")
            .releaseBaseUrl("https://github.com/mcp-runtime/mcp-runtime/releases/download")
            .installedCheck(
                "mcp-runtime",
                "mcp-runtime-operator-controller-manager",
                "run `mcp-runtime setup` first, or check --context")
            .component(certManager("cert-manager-controller", "cert-manager"))
            .component(certManager("cert-manager-webhook", "cert-manager-webhook"))
            .component(certManager("cert-manager-cainjector", "cert-manager-cainjector"))
            .component(
                built(
                    "operator",
                    "mcp-runtime",
                    "mcp-runtime-operator-controller-manager",
                    "manager",
                    "mcp-runtime-operator"))
            .component(
                CatalogComponent.envVar(
                        "gateway-proxy",
                        "mcp-runtime",
                        "mcp-runtime-operator-controller-manager",
                        "manager",
                        "MCP_GATEWAY_PROXY_IMAGE")
                    .withDefaultRepository("mcp-gateway")
                    .withBuilt(true)
                    .withNote(
                        "operator re-renders MCPServer gateway sidecars; tenant MCP server pods will"
                            + " restart"))
            .component(
                built(
                    "platform-api",
                    "mcp-platform",
                    "mcp-platform-api",
                    "platform-api",
                    "mcp-platform-api"))
            .component(
                built(
                    "runtime-api",
                    "mcp-platform",
                    "mcp-runtime-api",
                    "runtime-api",
                    "mcp-runtime-api"))
            .component(
                built(
                    "analytics-api",
                    "mcp-observability",
                    "mcp-analytics-api",
                    "analytics-api",
                    "mcp-analytics-api"))
            .component(built("ingest", "mcp-observability", "mcp-ingest", "ingest", "mcp-ingest"))
            .component(
                built(
                    "processor",
                    "mcp-observability",
                    "mcp-processor",
                    "processor",
                    "mcp-processor"))
            .component(built("ui", "mcp-platform", "mcp-ui", "ui", "mcp-ui"))
            .component(
                CatalogComponent.onDemand("doctor-smoke")
                    .withDefaultRepository("mcp-runtime-doctor-smoke")
                    .withBuilt(true))
            .component(
                CatalogComponent.container(
                        "mcp-auth", "mcp-platform", "mcp-auth-server", "auth-server")
                    .withOptInGroup("auth"))
            .preserved(
                "Secrets (credentials, registry pull secrets, TLS material)",
                "PersistentVolumeClaims and PersistentVolumes (ClickHouse, Kafka, Postgres, registry"
                    + " data)",
                "ConfigMaps (mcp-shared-config, operator and gateway config)",
                "cert-manager Issuers, ClusterIssuers, and Certificates",
                "Existing MCP Runtime custom resources (MCPServer, grants, sessions)",
                "Services, Ingresses, IngressRoutes, NetworkPolicies, and RBAC",
                "Deployment replicas, resources, env (except MCP_GATEWAY_PROXY_IMAGE), and probes")
            .build();

    assertThat(McpRuntime.catalog()).isEqualTo(java);
  }

  @Test
  void placementMatchesThePlatformInventory() {
    Catalog catalog = McpRuntime.catalog();

    assertThat(catalog.names())
        .containsExactly(
            "cert-manager-controller",
            "cert-manager-webhook",
            "cert-manager-cainjector",
            "operator",
            "gateway-proxy",
            "platform-api",
            "runtime-api",
            "analytics-api",
            "ingest",
            "processor",
            "ui",
            "doctor-smoke",
            "mcp-auth");
    CatalogComponent gateway = catalog.component("gateway-proxy").orElseThrow();
    assertThat(gateway.workload())
        .isEqualTo(catalog.component("operator").orElseThrow().workload());
    assertThat(gateway.envVar()).isEqualTo("MCP_GATEWAY_PROXY_IMAGE");
    assertThat(gateway.container()).isEqualTo("manager");
    assertThat(catalog.component("doctor-smoke").orElseThrow().workload()).isNull();
    assertThat(catalog.groups()).containsExactly("auth", "cert-manager");
    assertThat(catalog.workloads())
        .extracting(Workload::key)
        .containsExactly(
            "mcp-runtime/mcp-runtime-operator-controller-manager",
            "cert-manager/cert-manager",
            "cert-manager/cert-manager-webhook",
            "cert-manager/cert-manager-cainjector",
            "mcp-platform/mcp-platform-api",
            "mcp-platform/mcp-runtime-api",
            "mcp-observability/mcp-analytics-api",
            "mcp-observability/mcp-ingest",
            "mcp-observability/mcp-processor",
            "mcp-platform/mcp-ui",
            "mcp-platform/mcp-auth-server");
    assertThat(catalog.metadata().previousImageAnnotation("ui"))
        .isEqualTo("mcpruntime.org/previous-image.ui");
  }

  @Test
  void releaseUrlsFollowTheBaseUrl() {
    assertThat(McpRuntime.catalog().manifestUrl("v0.5.0"))
        .contains(
            "https://github.com/mcp-runtime/mcp-runtime/releases/download/v0.5.0/platform-manifest.json");
    assertThat(McpRuntime.catalog().crdsUrl("v0.5.0"))
        .contains(
            "https://github.com/mcp-runtime/mcp-runtime/releases/download/v0.5.0/platform-crds.yaml");
    assertThat(
            Catalog.builder()
                .component(CatalogComponent.onDemand("x"))
                .build()
                .manifestUrl("v1.0.0"))
        .isEmpty();
  }

  @Test
  void yamlProblemsAreAllReportedWithPaths() {
    String yaml =
        """
        platform: Example
        manifestApiVersion: not-a-group
        releaseBaseUrl: http://example.com/releases
        color: blue
        components:
          - name: web
            namespace: Apps
            deployment: web
            container: web
          - name: Web Two
            container: web
            envVar: "1BAD"
          - name: web
            namespace: apps
            deployment: web
            container: web
            repository: "web:v1"
            versionPolicy: patch-only
          - name: job
            namespace: apps
            deployment: job
            container: 7
        """;

    assertThatThrownBy(() -> Catalog.load(yaml.getBytes(StandardCharsets.UTF_8), "c.yaml"))
        .isInstanceOfSatisfying(
            InvalidCatalogException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "color is not a known field; known fields are platform,"
                            + " manifestApiVersion, metadata, releaseBaseUrl, installedCheck,"
                            + " components, preserved",
                        "components[0].namespace must match [a-z0-9]([-a-z0-9]*[a-z0-9])?: 'Apps'",
                        "components[1].name must match [a-z0-9]([-a-z0-9]*[a-z0-9])? (at most 63):"
                            + " 'Web Two'",
                        "components[1].container needs a workload (namespace and deployment):"
                            + " 'web'",
                        "components[1].envVar needs a workload (namespace and deployment): '1BAD'",
                        "components[2].versionPolicy must be any or same-minor: 'patch-only'",
                        "components[2].repository must be an image repository without tag or"
                            + " digest: 'web:v1'",
                        "components[3].container must be a string; quote it to keep the text: \"7\"",
                        "manifestApiVersion must match [a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]+:"
                            + " 'not-a-group'",
                        "releaseBaseUrl must be an https:// URL: 'http://example.com/releases'",
                        "components[2].name duplicates components[0]: 'web'"));
  }

  @Test
  void javaBuiltComponentsAndCatalogsValidateThemselves() {
    assertThatThrownBy(() -> CatalogComponent.container("ui", "apps", "ui", "Bad_Container"))
        .isInstanceOf(InvalidCatalogException.class)
        .hasMessage(
            "invalid component catalog component 'ui': container must match"
                + " [a-z0-9]([-a-z0-9]*[a-z0-9])? (at most 63): 'Bad_Container'");
    assertThatThrownBy(() -> Catalog.builder().build())
        .isInstanceOf(InvalidCatalogException.class)
        .hasMessage("invalid component catalog for the platform: components must not be empty");
    assertThatThrownBy(() -> CatalogComponent.onDemand("x").withOptInGroup("Auth Group"))
        .hasMessageEndingWith("optIn must match [a-z0-9]([-a-z0-9]*[a-z0-9])?: 'Auth Group'");
  }

  @Test
  void defaultsApplyWhenTheYamlLeavesThingsOut() {
    Catalog catalog =
        Catalog.load(
            "components:\n  - name: web\n    namespace: apps\n    deployment: web\n    container: web\n"
                .getBytes(StandardCharsets.UTF_8),
            "min.yaml");

    assertThat(catalog.platformName()).isEqualTo("the platform");
    assertThat(catalog.manifestApiVersion()).isEqualTo("capstan.dev/v1alpha1");
    assertThat(catalog.metadata()).isEqualTo(MetadataKeys.defaults());
    assertThat(catalog.installedCheck()).isNull();
    assertThat(catalog.component("web").orElseThrow().versionPolicy())
        .isEqualTo(VersionPolicy.any());
  }

  private static CatalogComponent certManager(String name, String deployment) {
    return CatalogComponent.container(name, "cert-manager", deployment, name)
        .withOptInGroup("cert-manager")
        .withVersionPolicy(VersionPolicy.sameMinor(CM_HINT));
  }

  private static CatalogComponent built(
      String name, String namespace, String deployment, String container, String repository) {
    return CatalogComponent.container(name, namespace, deployment, container)
        .withDefaultRepository(repository)
        .withBuilt(true);
  }
}
