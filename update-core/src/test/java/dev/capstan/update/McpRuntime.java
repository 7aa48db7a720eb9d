package dev.capstan.update;

import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.manifest.ManifestComponent;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The example catalog (the demo platform MCP Runtime's, from {@code mcp-runtime-catalog.yaml}) and
 * an installed platform on the in-memory cluster: the fixture the update tests run against.
 */
public final class McpRuntime {
  /** The demo platform's in-cluster registry. */
  public static final String REG = "registry.registry.svc.cluster.local:5000";

  /** The cert-manager version installed by {@link #cluster}. */
  public static final String CERT_MANAGER = "v1.14.4";

  public static final Workload OPERATOR =
      Workload.of("mcp-runtime", "mcp-runtime-operator-controller-manager");
  public static final Workload PLATFORM_API = Workload.of("mcp-platform", "mcp-platform-api");
  public static final Workload RUNTIME_API = Workload.of("mcp-platform", "mcp-runtime-api");
  public static final Workload UI = Workload.of("mcp-platform", "mcp-ui");
  public static final Workload AUTH = Workload.of("mcp-platform", "mcp-auth-server");

  public static final String D1 = "sha256:" + "1".repeat(64);
  public static final String D2 = "sha256:" + "2".repeat(64);

  private static final Catalog CATALOG = load();

  private McpRuntime() {}

  public static Catalog catalog() {
    return CATALOG;
  }

  public static byte[] catalogYaml() {
    try (InputStream in =
        Objects.requireNonNull(
            McpRuntime.class.getResourceAsStream("mcp-runtime-catalog.yaml"), "catalog fixture")) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Catalog load() {
    return Catalog.load(catalogYaml(), "mcp-runtime-catalog.yaml");
  }

  /** The repository of a component in release manifests. */
  public static String repository(String component) {
    CatalogComponent c = CATALOG.component(component).orElseThrow();
    String repo = c.defaultRepository();
    if (repo != null) {
      return repo;
    }
    return component.startsWith("cert-manager-")
        ? "quay.io/jetstack/" + component
        : "mcp-auth-server";
  }

  /** The image a component runs at a version on the installed cluster. */
  public static String image(String component, String version) {
    String repo = repository(component);
    return repo.contains("/") ? repo + ":" + version : REG + "/" + repo + ":" + version;
  }

  /**
   * A cluster with the whole platform installed at {@code version} (cert-manager at {@link
   * #CERT_MANAGER}), the operator carrying the gateway image in {@code MCP_GATEWAY_PROXY_IMAGE}
   * next to {@code OTHER=keep}.
   */
  public static InMemoryPlatformCluster cluster(String version) {
    InMemoryPlatformCluster cluster = InMemoryPlatformCluster.create();
    for (CatalogComponent c : CATALOG.components()) {
      Workload w = c.workload();
      if (w == null || c.usesEnvVar()) {
        continue;
      }
      String v = c.name().startsWith("cert-manager-") ? CERT_MANAGER : version;
      ContainerState container = ContainerState.of(c.container(), image(c.name(), v));
      if (c.name().equals("operator")) {
        container =
            new ContainerState(
                "manager",
                image("operator", version),
                List.of(
                    EnvVar.of("MCP_GATEWAY_PROXY_IMAGE", image("gateway-proxy", version)),
                    EnvVar.of("OTHER", "keep")));
      }
      cluster.putDeployment(DeploymentState.of(w, container));
    }
    return cluster;
  }

  /** Starts a release naming every component at {@code version} (cert-manager at v1.14.4). */
  public static Release release(String version) {
    return new Release(version);
  }

  /** A mutable release manifest under construction. */
  public static final class Release {
    private final String version;
    private final Map<String, ManifestComponent> components = new LinkedHashMap<>();
    private String registry = "";
    private String crds = "";

    Release(String version) {
      this.version = version;
      for (CatalogComponent c : CATALOG.components()) {
        String tag = c.name().startsWith("cert-manager-") ? CERT_MANAGER : version;
        components.put(c.name(), ManifestComponent.of(c.name(), repository(c.name()), tag));
      }
    }

    public Release tag(String component, String tag) {
      components.put(component, ManifestComponent.of(component, repository(component), tag));
      return this;
    }

    public Release digest(String component, String digest) {
      components.put(
          component, Objects.requireNonNull(components.get(component)).withDigest(digest));
      return this;
    }

    public Release without(String... names) {
      for (String name : names) {
        components.remove(name);
      }
      return this;
    }

    public Release registry(String value) {
      this.registry = value;
      return this;
    }

    public Release crds(String bundle) {
      this.crds = bundle;
      return this;
    }

    public PlatformRelease build() {
      return new PlatformRelease(
          CATALOG.manifestApiVersion(),
          PlatformRelease.KIND,
          version,
          registry,
          !crds.isEmpty(),
          crds,
          List.copyOf(components.values()));
    }
  }

  /** Plans an update of a cluster, reading its inventory the way the command does. */
  public static UpdatePlan plan(
      InMemoryPlatformCluster cluster, PlatformRelease release, Selection selection) {
    InventorySnapshot inventory = cluster.inventory(UpdatePlanner.query(CATALOG, release));
    return UpdatePlanner.plan(inventory, release, CATALOG, selection);
  }

  /** Plans with the default selection. */
  public static UpdatePlan plan(InMemoryPlatformCluster cluster, PlatformRelease release) {
    return plan(cluster, release, Selection.defaults());
  }

  /**
   * One line per row: {@code component action reason} (the reason's text), for exact comparisons.
   */
  public static List<String> rows(UpdatePlan plan) {
    return plan.rows().stream()
        .map(r -> (r.component() + " " + r.action().label() + " " + r.reason().text()).strip())
        .toList();
  }

  /** A CRD document of the platform's API group. */
  public static String crd(String plural, String kind, String version) {
    return "apiVersion: apiextensions.k8s.io/v1\n"
        + "kind: CustomResourceDefinition\n"
        + "metadata:\n"
        + "  name: "
        + plural
        + ".mcpruntime.org\n"
        + "spec:\n"
        + "  group: mcpruntime.org\n"
        + "  names:\n"
        + "    kind: "
        + kind
        + "\n"
        + "    plural: "
        + plural
        + "\n"
        + "  scope: Namespaced\n"
        + "  versions:\n"
        + "    - name: "
        + version
        + "\n"
        + "      served: true\n"
        + "      storage: true\n"
        + "      schema:\n"
        + "        openAPIV3Schema:\n"
        + "          type: object\n"
        + "          x-kubernetes-preserve-unknown-fields: true\n";
  }
}
