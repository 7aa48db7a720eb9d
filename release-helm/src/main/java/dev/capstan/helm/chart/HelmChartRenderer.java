package dev.capstan.helm.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.chart.RenderedChart;
import java.io.File;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ChartRenderer} that runs the Helm 3 (3.13 or later) or Helm 4 binary: {@code helm
 * pull} fetches a repository or OCI chart, {@code helm dependency build} a directory's missing
 * dependencies, and {@code helm template} renders it, CRDs included. The binary is {@value
 * #HELM_ENV} or {@code helm} on {@code PATH}; its version is checked once and recorded with each
 * revision it renders.
 *
 * <p>Every run gets a private folder (0700) for Helm's config, cache and data, and an environment
 * built from nothing: the process's own variables never reach Helm (no {@code KUBECONFIG}, no
 * in-cluster service account, no {@code HELM_*} setting, no plugin). Repository credentials go to
 * Helm in files of that folder, never on its command line. Helm fetches through an {@link
 * EgressProxy}, which refuses a cloud's metadata service, and private addresses but at the trusted
 * repositories' hosts when the request's {@link
 * dev.capstan.release.chart.RepositoryAccess#privateNetworks()} refuse them, closes a connection
 * silent for a minute and stops a fetch past what a chart and its index may take; a chart whose
 * values schemas would make {@code helm template} load another document is refused before it runs
 * ({@link ChartSchemas}). A rendering has one deadline for all its Helm processes ({@link
 * #withTimeout}), and Helm is stopped as soon as it prints more than a release's manifests may
 * hold. With cluster access, templates' {@code lookup} reads the cluster through the caller's
 * kubeconfig only (ARCHITECTURE.md, "Charts"):
 *
 * <ul>
 *   <li>Helm 3: {@code --dry-run=server} with the request's capabilities ({@code --kube-version},
 *       {@code --api-versions}); Helm adds its built-in API versions to them.
 *   <li>Helm 4: {@code --dry-run=server}, which discovers the capabilities itself and maps every
 *       rendered object (with {@code --take-ownership}: nothing is written, so no ownership is
 *       checked). A chart whose custom resources are of CRDs the cluster does not serve yet (its
 *       own {@code crds/}, on a first cast) cannot be mapped: it is rendered again without lookup,
 *       with a warning.
 * </ul>
 */
public final class HelmChartRenderer implements ChartRenderer {
  /** The environment variable naming the Helm binary. */
  public static final String HELM_ENV = "CAPSTAN_HELM";

  /**
   * How long one rendering may take, its Helm processes together ({@code repo update}, {@code
   * pull}, {@code template}, the values' merge): a pull of a large chart over a slow link included.
   */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

  /** How to get a Helm binary, ending every message about a missing or unusable one. */
  static final String HOW =
      "install Helm 3.13 or later, or 4 (https://helm.sh/docs/intro/install/), or name the binary"
          + " with "
          + HELM_ENV
          + "=/path/to/helm";

  private static final String MISSING_CRD = "ensure CRDs are installed first";

  private final HelmProcess helm;
  private final Duration timeout;
  private final @Nullable Path workRoot;
  private final EgressProxy.Resolver resolver;
  private volatile @Nullable HelmVersion version;

  private HelmChartRenderer(
      Path binary, Duration timeout, @Nullable Path workRoot, EgressProxy.Resolver resolver) {
    this.helm = new HelmProcess(binary);
    this.timeout = timeout;
    this.workRoot = workRoot;
    this.resolver = resolver;
  }

  /**
   * The renderer running {@code binary}. Nothing is run until the first rendering (or {@link
   * #version()}).
   */
  public static HelmChartRenderer of(Path binary) {
    return new HelmChartRenderer(
        requireNonNull(binary, "binary"), DEFAULT_TIMEOUT, null, InetAddress::getAllByName);
  }

  /**
   * The renderer running the binary {@value #HELM_ENV} names, else {@code helm} on {@code PATH}.
   *
   * @param env the environment to read them from
   * @throws ChartException in one line saying how to get a Helm binary, when there is none
   */
  public static HelmChartRenderer fromEnvironment(Function<String, @Nullable String> env) {
    String named = env.apply(HELM_ENV);
    if (named != null && !named.isBlank()) {
      Path binary = Path.of(named);
      if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
        throw new ChartException(
            HELM_ENV + " names no executable file: " + Escapes.quote(named) + "; " + HOW);
      }
      return of(binary);
    }
    String path = env.apply("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator, -1)) {
        Path binary = Path.of(dir.isEmpty() ? "." : dir, "helm");
        if (Files.isRegularFile(binary) && Files.isExecutable(binary)) {
          return of(binary);
        }
      }
    }
    throw new ChartException(
        "no Helm binary: 'helm' is not on PATH and " + HELM_ENV + " is not set; " + HOW);
  }

  /**
   * A copy whose renderings may each take {@code timeout}: the first Helm process still running
   * when it has passed is stopped, and the rendering fails naming it.
   */
  public HelmChartRenderer withTimeout(Duration timeout) {
    return new HelmChartRenderer(
        helm.binary(), requireNonNull(timeout, "timeout"), workRoot, resolver);
  }

  /** A copy whose proxy for Helm resolves hosts with {@code resolver} (tests). */
  HelmChartRenderer withResolver(EgressProxy.Resolver resolver) {
    return new HelmChartRenderer(
        helm.binary(), timeout, workRoot, requireNonNull(resolver, "resolver"));
  }

  /** A copy that makes its private folders under {@code dir} (default: the temporary folder). */
  public HelmChartRenderer withWorkRoot(Path dir) {
    return new HelmChartRenderer(helm.binary(), timeout, requireNonNull(dir, "dir"), resolver);
  }

  /**
   * The binary's version, as it reports it ({@code v3.22.0}), checked once.
   *
   * @throws ChartException when it is no Helm, or one Capstan does not render with
   */
  public String version() {
    return helmVersion(Deadline.after(timeout)).text();
  }

  private HelmVersion helmVersion(Deadline deadline) {
    HelmVersion v = version;
    if (v == null) {
      try (Workspace ws = Workspace.create(workRoot)) {
        HelmProcess.Result r =
            helm.run(List.of("version", "--template", "{{.Version}}"), base(ws), ws, deadline);
        if (r.exitCode() != 0) {
          throw new ChartException(
              Escapes.quote(helm.binary())
                  + " does not run as Helm ('version' failed: "
                  + r.reason()
                  + "); "
                  + HOW);
        }
        v = HelmVersion.check(r.out(), helm.binary().toString());
        version = v;
      }
    }
    return v;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Helm is stopped as soon as its output passes {@code limits}' bytes; the merged values are
   * read no further than their nodes.
   */
  @Override
  public RenderedChart render(ChartRequest request, RenderLimits limits) {
    requireNonNull(request, "request");
    requireNonNull(limits, "limits");
    Deadline deadline = Deadline.after(timeout);
    HelmVersion v = helmVersion(deadline);
    try (Workspace ws = Workspace.create(workRoot)) {
      Map<String, String> env = environment(ws, request.cluster());
      ChartSources.Fetched chart;
      EgressProxy.Rules rules =
          EgressProxy.Rules.defaults().withPrivateNetworks(request.repository().privateNetworks());
      try (EgressProxy proxy = EgressProxy.start(resolver, rules)) {
        try {
          chart = new ChartSources(helm, v, ws, proxied(env, proxy.url()), deadline).fetch(request);
        } catch (ChartException e) {
          throw naming(e, proxy.refusals());
        }
      }
      ChartSchemas.check(chart.path(), chart.label());
      List<String> values = HelmValues.args(request.values(), ws);
      List<String> warnings = new ArrayList<>();
      String manifests =
          template(request, v, ws, env, chart, values, warnings, deadline, limits.maxOutputBytes());
      return new RenderedChart(
          manifests,
          chart.meta().name(),
          chart.meta().version(),
          chart.meta().appVersion(),
          chart.digest(),
          HelmValues.merged(helm, ws, base(ws), values, chart.label(), deadline, limits),
          v.describe(),
          warnings);
    }
  }

  private String template(
      ChartRequest request,
      HelmVersion v,
      Workspace ws,
      Map<String, String> env,
      ChartSources.Fetched chart,
      List<String> values,
      List<String> warnings,
      Deadline deadline,
      long maxOutput) {
    ClusterAccess cluster = request.cluster();
    List<String> args = templateArgs(request, v, chart, values, cluster != null);
    HelmProcess.Result r = helm.run(args, env, ws, deadline, maxOutput);
    if (r.exitCode() != 0 && v.major() == 4 && cluster != null && r.err().contains(MISSING_CRD)) {
      warnings.add(
          "chart "
              + chart.label()
              + " renders custom resources of CRDs the cluster does not serve yet (its own"
              + " crds/, cast first): Helm 4 renders against the cluster only when it serves"
              + " every kind, so it was rendered without lookup (templates that look up existing"
              + " objects saw none); cast again once the CRDs are in to render with lookup");
      r =
          helm.run(
              templateArgs(request, v, chart, values, false), base(ws), ws, deadline, maxOutput);
    }
    if (r.exitCode() != 0) {
      throw new ChartException(
          "chart "
              + chart.label()
              + ": helm template failed: "
              + r.reason()
              + "; nothing was written");
    }
    return r.out();
  }

  /** {@code helm template}'s arguments; {@code lookup}: read the cluster for lookups. */
  static List<String> templateArgs(
      ChartRequest request,
      HelmVersion v,
      ChartSources.Fetched chart,
      List<String> values,
      boolean lookup) {
    List<String> args = new ArrayList<>();
    args.add("template");
    args.add(request.release());
    args.add(chart.path().toString());
    args.add("--namespace");
    args.add(request.namespace());
    args.add("--include-crds");
    args.addAll(values);
    if (request.upgrade()) {
      args.add("--is-upgrade");
    }
    boolean helmDiscovers = lookup && v.major() == 4;
    if (!helmDiscovers && request.capabilities() != null) {
      args.add("--kube-version");
      args.add(request.capabilities().kubeVersion());
      if (!request.capabilities().apiVersions().isEmpty()) {
        args.add("--api-versions");
        args.add(String.join(",", request.capabilities().apiVersions()));
      }
    }
    ClusterAccess cluster = request.cluster();
    if (lookup && cluster != null) {
      args.add("--dry-run=server");
      if (v.major() == 4) {
        args.add("--take-ownership");
        args.add("--disable-openapi-validation");
      }
      if (cluster.context() != null) {
        args.add("--kube-context");
        args.add(cluster.context());
      }
      if (cluster.asUser() != null) {
        args.add("--kube-as-user");
        args.add(cluster.asUser());
        for (String group : cluster.asGroups()) {
          args.add("--kube-as-group");
          args.add(group);
        }
      }
    }
    return args;
  }

  /**
   * Helm's environment: its homes in the workspace and nothing of this process; with cluster
   * access, the caller's kubeconfig and the variables the caller passes for its credential plugins.
   */
  static Map<String, String> environment(Workspace ws, @Nullable ClusterAccess cluster) {
    Map<String, String> env = new LinkedHashMap<>();
    if (cluster != null) {
      cluster
          .environment()
          .forEach(
              (k, val) -> {
                if (!k.startsWith("HELM_") && !k.equals("KUBECONFIG")) {
                  env.put(k, val);
                }
              });
      env.put("KUBECONFIG", String.join(File.pathSeparator, cluster.kubeconfigs()));
    }
    base(ws).forEach(env::putIfAbsent);
    base(ws)
        .forEach(
            (k, val) -> {
              if (k.startsWith("HELM_")) {
                env.put(k, val);
              }
            });
    return env;
  }

  /**
   * {@code failed} naming the first of the proxy's {@code refusals} when its message does not: Helm
   * words a repository it could not update without the reason ({@code failed to update the
   * following repositories}).
   */
  static ChartException naming(ChartException failed, List<String> refusals) {
    String message = String.valueOf(failed.getMessage());
    if (refusals.isEmpty() || message.contains(refusals.get(0))) {
      return failed;
    }
    String end = "; nothing was written";
    String head =
        message.endsWith(end) ? message.substring(0, message.length() - end.length()) : message;
    return new ChartException(head + " (" + refusals.get(0) + ")" + end, failed);
  }

  /**
   * {@code env} for a Helm process that fetches charts: every request it sends to a host other than
   * loopback goes through the {@link EgressProxy} at {@code proxy} (Go's clients read {@code
   * HTTPS_PROXY} and {@code HTTP_PROXY}, and send loopback requests directly), none bypasses it.
   */
  static Map<String, String> proxied(Map<String, String> env, String proxy) {
    Map<String, String> out = new LinkedHashMap<>();
    env.forEach(
        (k, val) -> {
          String name = k.toUpperCase(java.util.Locale.ROOT);
          if (!name.equals("HTTPS_PROXY")
              && !name.equals("HTTP_PROXY")
              && !name.equals("NO_PROXY")
              && !name.equals("ALL_PROXY")) {
            out.put(k, val);
          }
        });
    for (String name : List.of("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")) {
      out.put(name, proxy);
    }
    return out;
  }

  /** Helm's homes, credentials files and an empty plugin folder, all in the workspace. */
  static Map<String, String> base(Workspace ws) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", ws.dir("home").toString());
    env.put("TMPDIR", ws.dir("tmp").toString());
    env.put("HELM_CONFIG_HOME", ws.dir("config").toString());
    env.put("HELM_CACHE_HOME", ws.dir("cache").toString());
    env.put("HELM_DATA_HOME", ws.dir("data").toString());
    env.put("HELM_PLUGINS", ws.dir("plugins").toString());
    env.put("HELM_REGISTRY_CONFIG", ws.root().resolve("config/registry.json").toString());
    env.put("HELM_REPOSITORY_CONFIG", ws.root().resolve("config/repositories.yaml").toString());
    env.put("HELM_REPOSITORY_CACHE", ws.dir("cache/repository").toString());
    return env;
  }

  @Override
  public String toString() {
    HelmVersion v = version;
    return "HelmChartRenderer[" + helm.binary() + (v == null ? "" : " " + v.text()) + "]";
  }
}
