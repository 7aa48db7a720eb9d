package dev.capstan.cli.demo;

import dev.capstan.cli.update.ManifestLoader;
import dev.capstan.cli.update.UpdateCommand;
import dev.capstan.cli.update.UpdateOptions;
import dev.capstan.update.apply.RolloutFailedException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The platform-update half of the demo: MCP Runtime's catalog, an in-memory cluster running v0.4.0,
 * and an update to v0.5.0 in which {@code runtime-api}'s new image never becomes ready. The update
 * stops there and rolls {@code runtime-api}, {@code platform-api} and the operator back, in that
 * order; the report is printed as text, then (for a second, identical cluster) as JSON.
 */
public final class PlatformUpdateDemo {
  private static final String REGISTRY = DemoPlatform.REGISTRY;
  private static final String MANIFEST = "platform-manifest.yaml";

  /** The demo's release manifest: platform v0.5.0, three of its components kept at v0.4.0. */
  static final String RELEASE =
      """
      apiVersion: mcpruntime.org/v1alpha1
      kind: PlatformRelease
      version: v0.5.0
      components:
        - {name: operator, repository: mcp-runtime-operator, tag: v0.5.0}
        - {name: gateway-proxy, repository: mcp-gateway, tag: v0.5.0}
        - {name: platform-api, repository: mcp-platform-api, tag: v0.5.0}
        - {name: runtime-api, repository: mcp-runtime-api, tag: v0.5.0}
        - {name: analytics-api, repository: mcp-analytics-api, tag: v0.4.0}
        - {name: ingest, repository: mcp-ingest, tag: v0.4.0}
        - {name: processor, repository: mcp-processor, tag: v0.4.0}
        - {name: ui, repository: mcp-ui, tag: v0.5.0}
        - {name: doctor-smoke, repository: mcp-runtime-doctor-smoke, tag: v0.5.0}
      """;

  private PlatformUpdateDemo() {}

  /**
   * Runs the demo.
   *
   * @param out where the reports and progress lines go
   */
  public static void run(PrintStream out) {
    Catalog catalog = DemoPlatform.catalog();
    ManifestLoader loader =
        location -> {
          if (!location.equals(MANIFEST)) {
            throw new IllegalArgumentException("the demo only has " + MANIFEST + ": " + location);
          }
          return RELEASE.getBytes(StandardCharsets.UTF_8);
        };
    UpdateOptions options =
        UpdateOptions.defaults().withTo("v0.5.0").withReleaseManifest(MANIFEST).withYes(true);

    out.println("== Platform update: MCP Runtime v0.4.0 -> v0.5.0 (runtime-api never gets ready)");
    run(catalog, loader, options, out, true);
    out.println();
    out.println("== The same update, --output json");
    run(catalog, loader, options.withOutput(UpdateOptions.JSON), out, false);
  }

  private static void run(
      Catalog catalog,
      ManifestLoader loader,
      UpdateOptions options,
      PrintStream out,
      boolean progress) {
    UpdateCommand command =
        UpdateCommand.builder(catalog, installed(catalog, "v0.4.0"))
            .manifestLoader(loader)
            .listener(
                event -> {
                  if (progress) {
                    out.println("  > " + event.message());
                  }
                })
            .build();
    try {
      command.run(options, out);
    } catch (RolloutFailedException e) {
      out.println("update failed as planned: " + e.getMessage());
    }
  }

  /** A cluster running every catalog workload at a version, runtime-api's next image broken. */
  private static InMemoryPlatformCluster installed(Catalog catalog, String version) {
    return DemoPlatform.installed(catalog, version)
        .neverReady(REGISTRY + "/mcp-runtime-api:v0.5.0");
  }
}
