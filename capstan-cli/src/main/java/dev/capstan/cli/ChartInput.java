package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.k8s.KubeCapabilities;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.chart.RepositoryAccess;
import dev.capstan.release.file.ChartRelease;
import dev.capstan.release.file.ChartReleases;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.ReleaseInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * {@code --chart}: the release a cast or plan of a Helm chart casts. Renders the chart with Helm
 * for the target cluster (its capabilities, and {@code lookup} through the user's own kubeconfig
 * and context), reads it as every manifest is read, and says on standard error what the chart holds
 * beside its objects. Its hooks are the release's hooks (the cast runs them, {@code release test}
 * its tests) unless {@code --no-hooks}.
 */
final class ChartInput {
  /**
   * The variables a kubeconfig's credential plugin may need, passed to Helm for its {@code lookup}
   * (no other of the user's environment is): the shell's, and those of the cloud CLIs that
   * kubeconfigs call ({@code aws eks get-token}, {@code gke-gcloud-auth-plugin}, {@code
   * kubelogin}).
   */
  static final List<String> PLUGIN_ENVIRONMENT =
      List.of(
          "PATH",
          "HOME",
          "USER",
          "LANG",
          "XDG_CONFIG_HOME",
          "XDG_CACHE_HOME",
          "KUBECACHEDIR",
          "AWS_PROFILE",
          "AWS_REGION",
          "AWS_DEFAULT_REGION",
          "AWS_CONFIG_FILE",
          "AWS_SHARED_CREDENTIALS_FILE",
          "AWS_ACCESS_KEY_ID",
          "AWS_SECRET_ACCESS_KEY",
          "AWS_SESSION_TOKEN",
          "AWS_ROLE_ARN",
          "AWS_WEB_IDENTITY_TOKEN_FILE",
          "CLOUDSDK_CONFIG",
          "GOOGLE_APPLICATION_CREDENTIALS",
          "USE_GKE_GCLOUD_AUTH_PLUGIN",
          "AZURE_CONFIG_DIR",
          "AAD_SERVICE_PRINCIPAL_CLIENT_ID",
          "AAD_SERVICE_PRINCIPAL_CLIENT_SECRET");

  /** The largest values file read: the release file's limit. */
  private static final long MAX_VALUES_BYTES = 32L << 20;

  private ChartInput() {}

  /**
   * Renders the chart of {@code options} as the release {@code namespace/name}.
   *
   * @param valuesFiles the {@code -f} values files, in order
   */
  static ReleaseInput load(
      Cli cli,
      ChartOptions options,
      List<Path> valuesFiles,
      String namespace,
      @Nullable String name,
      Target target,
      ReleaseController controller) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "a chart's release needs a name: capstan release cast NAME --chart "
              + Escapes.escape(String.valueOf(options.chart)));
    }
    ChartReference chart = ChartReference.parse(String.valueOf(options.chart), options.repo);
    if (chart instanceof ChartReference.Directory d) {
      chart = new ChartReference.Directory(cli.resolve(Path.of(d.path())).toString());
    } else if (chart instanceof ChartReference.Archive a) {
      chart = new ChartReference.Archive(cli.resolve(Path.of(a.path())).toString());
    }
    ChartRequest request =
        ChartRequest.of(chart, namespace, name)
            .withVersion(options.version)
            .withValues(values(cli, options, valuesFiles))
            .withRepository(repository(cli, options));
    KubernetesTarget kube = target.kubernetes();
    if (kube != null) {
      Map<String, String> env = new TreeMap<>();
      for (String variable : PLUGIN_ENVIRONMENT) {
        String value = cli.env().apply(variable);
        if (value != null) {
          env.put(variable, value);
        }
      }
      request =
          request
              .withCapabilities(KubeCapabilities.read(kube.clients()))
              .withCluster(
                  ClusterAccess.of(
                      kube.choice().kubeconfigs().stream().map(Path::toString).toList(),
                      kube.choice().context(),
                      env))
              .withUpgrade(controller.get(namespace, name).isPresent());
    }
    ChartRelease release =
        ChartReleases.render(HelmChartRenderer.fromEnvironment(cli.env()), request);
    for (String warning : release.warnings()) {
      cli.err().println("capstan: warning: " + warning);
    }
    for (String skipped : release.skipped()) {
      cli.err().println("capstan: " + skipped);
    }
    if (options.noHooks) {
      List<Hook> left = new ArrayList<>(release.hooks());
      left.addAll(release.tests());
      if (!left.isEmpty()) {
        cli.err()
            .println(
                "capstan: chart "
                    + Escapes.escape(release.chart().describe())
                    + ": --no-hooks: its hooks are neither run nor recorded: "
                    + left.stream().map(Hook::describe).collect(Collectors.joining(", ")));
      }
      return release.inputWithoutHooks();
    }
    return release.input();
  }

  private static ChartValues values(Cli cli, ChartOptions options, List<Path> files) {
    ChartValues values = ChartValues.none();
    for (Path file : files) {
      values = values.withFile(file.toString(), read(cli, file, "-f"));
    }
    for (String e : options.set) {
      values = values.withSet(e);
    }
    for (String e : options.setString) {
      values = values.withSetString(e);
    }
    for (String e : options.setFile) {
      int eq = e.indexOf('=');
      if (eq <= 0 || eq == e.length() - 1) {
        throw new IllegalArgumentException("--set-file takes KEY=FILE: " + Escapes.quote(e));
      }
      Path file = Path.of(e.substring(eq + 1));
      values =
          values.withSetFile(e.substring(0, eq), file.toString(), read(cli, file, "--set-file"));
    }
    return values;
  }

  private static RepositoryAccess repository(Cli cli, ChartOptions options) {
    RepositoryAccess access = RepositoryAccess.anonymous().withPlainHttp(options.plainHttp);
    if (options.caFile != null) {
      Path ca = cli.resolve(options.caFile);
      if (!Files.isRegularFile(ca)) {
        throw new IllegalArgumentException(
            "--ca-file: no such file: " + Escapes.quote(options.caFile));
      }
      access = access.withCaFile(ca.toString());
    }
    if (options.passwordStdin) {
      if (options.username == null) {
        throw new IllegalArgumentException("--password-stdin needs --username");
      }
      String password = cli.terminal().ask("");
      if (password == null || password.isEmpty()) {
        throw new IllegalArgumentException(
            "--password-stdin: no password on standard input (echo \"$PASSWORD\" | capstan ...)");
      }
      access = access.withCredentials(options.username, password.strip());
    } else if (options.username != null) {
      throw new IllegalArgumentException(
          "--username needs the password on standard input: --password-stdin");
    }
    return access;
  }

  private static String read(Cli cli, Path file, String flag) {
    Path path = cli.resolve(file);
    try {
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException(flag + ": no such file: " + Escapes.quote(file));
      }
      if (Files.size(path) > MAX_VALUES_BYTES) {
        throw new IllegalArgumentException(
            flag + ": " + Escapes.quote(file) + " is over " + (MAX_VALUES_BYTES >> 20) + " MiB");
      }
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          flag + ": cannot read " + Escapes.quote(file) + ": " + e.getClass().getSimpleName(), e);
    }
  }

  /** The chart of {@code options} as the user named it, for messages. */
  static String describe(ChartOptions options) {
    List<String> parts = new ArrayList<>();
    parts.add("--chart " + options.chart);
    if (options.repo != null) {
      parts.add("--repo " + options.repo);
    }
    if (options.version != null) {
      parts.add("--chart-version " + options.version);
    }
    return Escapes.escape(String.join(" ", parts));
  }
}
