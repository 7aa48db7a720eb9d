package dev.capstan.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The options of {@code release cast} and {@code release plan} that cast a Helm chart. */
final class ChartOptions {
  @Option(
      names = "--chart",
      paramLabel = "REF",
      description =
          "Cast a Helm chart, rendered by the Helm binary ($CAPSTAN_HELM, else helm on PATH): a"
              + " chart directory, a .tgz, oci://HOST/PATH/NAME, or a chart's name with --repo."
              + " -f then names values files.")
  @Nullable String chart;

  @Option(
      names = "--repo",
      paramLabel = "URL",
      description = "The chart repository (its index.yaml) of --chart NAME.")
  @Nullable String repo;

  @Option(
      names = "--chart-version",
      paramLabel = "V",
      description =
          "The version of a repository or OCI chart: exact, or a range (^1.2, ~1.2.0, >=1 <2);"
              + " default: the newest that is no pre-release. (helm's --version: here --version"
              + " is Capstan's own, on every command.)")
  @Nullable String version;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Set a chart value, as helm --set does (repeatable).")
  List<String> set = new ArrayList<>();

  @Option(
      names = "--set-string",
      paramLabel = "KEY=VALUE",
      description = "Set a chart value as a string (repeatable).")
  List<String> setString = new ArrayList<>();

  @Option(
      names = "--set-file",
      paramLabel = "KEY=FILE",
      description = "Set a chart value to a file's content (repeatable).")
  List<String> setFile = new ArrayList<>();

  @Option(
      names = "--username",
      paramLabel = "USER",
      description = "The user of the chart repository or registry.")
  @Nullable String username;

  @Option(
      names = "--password-stdin",
      description = "Read the repository's or registry's password from standard input.")
  boolean passwordStdin;

  @Option(
      names = "--ca-file",
      paramLabel = "FILE",
      description = "Trust this CA bundle (PEM) for the chart repository's or registry's TLS.")
  @Nullable Path caFile;

  @Option(
      names = "--plain-http",
      description = "Reach the OCI registry over plain HTTP (a registry on this machine).")
  boolean plainHttp;

  @Option(
      names = "--no-hooks",
      description =
          "Cast a chart without its hooks (none run or recorded), as helm install --no-hooks"
              + " does.")
  boolean noHooks;

  /** Whether a chart is cast. */
  boolean given() {
    return chart != null;
  }

  /**
   * Refuses the chart options without {@code --chart}.
   *
   * @throws IllegalArgumentException naming the first one given
   */
  void refuseWithoutChart() {
    String given =
        repo != null
            ? "--repo"
            : version != null
                ? "--chart-version"
                : !set.isEmpty()
                    ? "--set"
                    : !setString.isEmpty()
                        ? "--set-string"
                        : !setFile.isEmpty()
                            ? "--set-file"
                            : username != null
                                ? "--username"
                                : passwordStdin
                                    ? "--password-stdin"
                                    : caFile != null
                                        ? "--ca-file"
                                        : plainHttp
                                            ? "--plain-http"
                                            : noHooks ? "--no-hooks" : null;
    if (given != null) {
      throw new IllegalArgumentException(given + " is for a chart: give --chart REF too");
    }
  }
}
