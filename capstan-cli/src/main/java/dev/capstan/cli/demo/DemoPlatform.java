package dev.capstan.cli.demo;

import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * The demo platform: MCP Runtime's component catalog (shipped as {@code mcp-runtime-catalog.yaml}
 * on the classpath) and an in-memory cluster running every workload of it at one version.
 */
public final class DemoPlatform {
  /** The registry the demo platform's images come from. */
  public static final String REGISTRY = "registry.registry.svc.cluster.local:5000";

  private DemoPlatform() {}

  /** The MCP Runtime catalog. */
  public static Catalog catalog() {
    return Catalog.load(catalogYaml(), "mcp-runtime-catalog.yaml");
  }

  /** The catalog's YAML. */
  public static byte[] catalogYaml() {
    try (InputStream in =
        Objects.requireNonNull(
            DemoPlatform.class.getResourceAsStream("mcp-runtime-catalog.yaml"),
            "mcp-runtime-catalog.yaml on the classpath")) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A cluster running every built, always-on catalog workload at {@code version} (opt-in groups
   * such as cert-manager are not installed).
   */
  public static InMemoryPlatformCluster installed(Catalog catalog, String version) {
    return install(InMemoryPlatformCluster.create(), catalog, version);
  }

  /** Installs what {@link #installed} has on {@code cluster} (a test's own, say) and returns it. */
  public static InMemoryPlatformCluster install(
      InMemoryPlatformCluster cluster, Catalog catalog, String version) {
    for (CatalogComponent c : catalog.components()) {
      Workload w = c.workload();
      String repository = c.defaultRepository();
      if (w == null || c.usesEnvVar() || c.optInGroup() != null || repository == null) {
        continue;
      }
      List<EnvVar> env =
          c.name().equals("operator")
              ? List.of(
                  EnvVar.of("MCP_GATEWAY_PROXY_IMAGE", REGISTRY + "/mcp-gateway:" + version),
                  EnvVar.of("LOG_LEVEL", "info"))
              : List.of();
      cluster.putDeployment(
          DeploymentState.of(
              w,
              new ContainerState(c.container(), REGISTRY + "/" + repository + ":" + version, env)));
    }
    return cluster;
  }
}
