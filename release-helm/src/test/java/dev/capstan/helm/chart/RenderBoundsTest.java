package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartOutputTooLargeException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.PrivateNetworks;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.chart.RepositoryAccess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What bounds one rendering, with a stand-in {@code helm} (a shell script): one deadline for all
 * its Helm processes, Helm's output watched while it runs, and the request's private networks
 * reaching Helm's proxy. Only loopback is ever connected to.
 */
class RenderBoundsTest {
  @TempDir Path dir;

  /** A stand-in helm: {@code version} answers 3.22.0, each other verb runs {@code cases}. */
  private Path helm(String cases) throws IOException {
    Path script = dir.resolve("helm");
    Files.writeString(
        script,
        """
        #!/bin/bash
        case "$1" in
          version) printf v3.22.0 ;;
        %s
        esac
        """
            .formatted(cases),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  private Path chart() throws IOException {
    return TestCharts.chart(
        dir.resolve("charts/web"),
        Map.of("Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"));
  }

  private static ChartRequest repositoryChart() {
    return ChartRequest.of(
        new ChartReference.Repository("https://charts.example", "cache"), "shop", "web");
  }

  @Test
  void theDeadlineIsTheWholeRenderingsAndTheStepThatRunsOutOfItIsNamed() throws IOException {
    // each step fits in 6 s, the two do not: only a deadline they share stops the second
    HelmChartRenderer helm =
        HelmChartRenderer.of(helm("  repo) sleep 4 ;;\n  pull) sleep 4 ;;"))
            .withWorkRoot(dir)
            .withTimeout(Duration.ofSeconds(6));

    assertThatThrownBy(() -> helm.render(repositoryChart()))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "helm pull did not finish by the rendering's deadline (6s for all its Helm"
                + " processes); nothing was written");
  }

  @Test
  void aStepOfTwoWordsIsNamedByBoth() throws IOException {
    HelmChartRenderer helm =
        HelmChartRenderer.of(helm("  repo) sleep 60 ;;"))
            .withWorkRoot(dir)
            .withTimeout(Duration.ofSeconds(3));

    assertThatThrownBy(() -> helm.render(repositoryChart()))
        .hasMessage(
            "helm repo update did not finish by the rendering's deadline (3s for all its Helm"
                + " processes); nothing was written");
  }

  @Test
  void aStepIsNotStartedOnceTheDeadlineHasPassed() throws IOException {
    HelmProcess helm = new HelmProcess(helm(""));
    try (Workspace ws = Workspace.create(dir)) {
      assertThatThrownBy(
              () ->
                  helm.run(
                      List.of("template", "values", "x"),
                      Map.of(),
                      ws,
                      Deadline.after(Duration.ZERO)))
          .isInstanceOf(ChartException.class)
          .hasMessage(
              "helm template was not started: the rendering's deadline (0s for all its Helm"
                  + " processes) had passed; nothing was written");
    }
  }

  @Test
  void helmIsStoppedAsSoonAsItPrintsMoreThanTheLimitNotWhenItEnds() throws IOException {
    HelmChartRenderer helm =
        HelmChartRenderer.of(
                helm(
                    "  template) head -c "
                        + (HelmProcess.MAX_OUTPUT + 4096)
                        + " /dev/zero; exec sleep 300 ;;"))
            .withWorkRoot(dir);
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                helm.render(
                    ChartRequest.of(
                        new ChartReference.Directory(chart().toString()), "shop", "web")))
        .isInstanceOf(ChartException.class)
        .hasMessage("helm printed more than 64 MiB, over the limit of a release's manifests");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofMinutes(2)); // Helm sleeps 300 s
  }

  @Test
  void helmIsStoppedAtTheLimitTheCallerGivesNotAtTheReleasesAndTheExcessIsNeverRead()
      throws IOException {
    HelmChartRenderer helm =
        HelmChartRenderer.of(
                helm("  template) head -c " + (3 << 20) + " /dev/zero; exec sleep 300 ;;"))
            .withWorkRoot(dir);
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                helm.render(
                    ChartRequest.of(
                        new ChartReference.Directory(chart().toString()), "shop", "web"),
                    new RenderLimits(1 << 20, Long.MAX_VALUE)))
        .isInstanceOfSatisfying(
            ChartOutputTooLargeException.class,
            e -> {
              assertThat(e.what()).isEqualTo("rendered output");
              assertThat(e.bytes()).isGreaterThan(1 << 20);
            })
        .hasMessage(
            "helm printed more than 1 MiB, over the limit of what this release's rendering may"
                + " print");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofMinutes(2)); // Helm sleeps 300 s
  }

  @Test
  void theMergedValuesAreReadNoFurtherThanTheirNodes() throws IOException {
    // the values' run prints a list of 1,000 empty mappings: 1,003 nodes, 2,006 tokens
    HelmChartRenderer helm =
        HelmChartRenderer.of(
                helm(
                    """
                      template)
                        if [ "$2" = values ]; then
                          printf '{"a":['; for i in $(seq 999); do printf '{},'; done; printf '{}]}'
                        else
                          printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n'
                        fi ;;"""))
            .withWorkRoot(dir);
    ChartRequest request =
        ChartRequest.of(new ChartReference.Directory(chart().toString()), "shop", "web")
            .withValues(ChartValues.none().withFile("values.yaml", "a: []\n"));

    assertThatThrownBy(() -> helm.render(request, new RenderLimits(1 << 20, 1000)))
        .isInstanceOfSatisfying(
            ChartOutputTooLargeException.class,
            e -> {
              assertThat(e.what()).isEqualTo("merged values");
              assertThat(e.nodes()).isEqualTo(1001);
            })
        .hasMessageStartingWith("chart ")
        .hasMessageEndingWith(
            ": the values hold more than 1000 nodes (mappings, lists, keys and values), over the"
                + " limit of what this release's rendering may read; give fewer values; nothing"
                + " was written");
    assertThat(helm.render(request, new RenderLimits(1 << 20, 1003)).values().get("a"))
        .asList()
        .hasSize(1000);
  }

  @Test
  void helmIsStoppedAsSoonAsItPrintsMoreThanTheLimitOfMessages() throws IOException {
    HelmChartRenderer helm =
        HelmChartRenderer.of(
                helm(
                    "  template) head -c "
                        + (HelmProcess.MAX_OUTPUT + 4096)
                        + " /dev/zero >&2; exec sleep 300 ;;"))
            .withWorkRoot(dir);
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                helm.render(
                    ChartRequest.of(
                        new ChartReference.Directory(chart().toString()), "shop", "web")))
        .hasMessage(
            "helm template printed more than 64 MiB of messages (standard error); nothing was"
                + " written");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofMinutes(2)); // Helm sleeps 300 s
  }

  /**
   * The request's private networks reach the proxy Helm fetches through: a host the index names
   * (here {@code mirror.test}, resolved by the test to loopback) is refused, and the failure says
   * why.
   */
  @Test
  void theRequestsPrivateNetworksRuleHelmsProxyAndTheRefusalIsNamed() throws IOException {
    // what Helm does with a chart URL of the index: a CONNECT to its host through the proxy
    String connect =
        """
          repo)
            p="${HTTPS_PROXY#http://}"; exec 3<>"/dev/tcp/${p%:*}/${p##*:}"
            printf 'CONNECT mirror.test:443 HTTP/1.1\\r\\n\\r\\n' >&3
            IFS= read -r line <&3
            echo 'Error: looking up the index failed' >&2; exit 1 ;;
        """;
    HelmChartRenderer helm =
        HelmChartRenderer.of(helm(connect))
            .withWorkRoot(dir)
            .withResolver(RenderBoundsTest::loopbackOnly);

    assertThatThrownBy(
            () ->
                helm.render(
                    repositoryChart()
                        .withRepository(
                            RepositoryAccess.anonymous()
                                .withPrivateNetworks(
                                    PrivateNetworks.onlyAt(List.of("https://charts.example"))))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart https://charts.example cache: the chart repository did not give the chart:"
                + " looking up the index failed (refused by Capstan: 'mirror.test' is 127.0.0.1"
                + " (loopback, 127.0.0.0/8); a chart source may lead to a private address only at"
                + " a trusted repository's host and port (charts.example:443)); nothing was"
                + " written");
  }

  /**
   * An index's plain {@code http://} chart URL: Helm prints the proxy's refusal with its 403, which
   * is no repository asking for credentials.
   */
  @Test
  void aRefusalOfAPlainHttpChartUrlIsSaidAsItIsAndAsksForNoCredentials() throws IOException {
    // what Helm 3 does with an http:// chart URL: a GET through the proxy, and its status printed
    String get =
        """
          repo) ;;
          pull)
            p="${HTTP_PROXY#http://}"; exec 3<>"/dev/tcp/${p%:*}/${p##*:}"
            printf 'GET http://mirror.test/cache-0.1.0.tgz HTTP/1.1\\r\\nHost: mirror.test\\r\\n\\r\\n' >&3
            IFS= read -r line <&3; line="${line%$'\\r'}"
            echo "Error: failed to fetch http://mirror.test/cache-0.1.0.tgz : ${line#HTTP/1.1 }" >&2
            exit 1 ;;
        """;
    HelmChartRenderer helm =
        HelmChartRenderer.of(helm(get))
            .withWorkRoot(dir)
            .withResolver(RenderBoundsTest::loopbackOnly);

    assertThatThrownBy(
            () ->
                helm.render(
                    repositoryChart()
                        .withRepository(
                            RepositoryAccess.anonymous()
                                .withCredentials("bot", "hunter2")
                                .withPrivateNetworks(
                                    PrivateNetworks.onlyAt(List.of("https://charts.example"))))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart https://charts.example cache: the chart repository did not give the chart:"
                + " failed to fetch http://mirror.test/cache-0.1.0.tgz : 403 refused by Capstan:"
                + " 'mirror.test' is 127.0.0.1 (loopback, 127.0.0.0/8); a chart source may lead to"
                + " a private address only at a trusted repository's host and port"
                + " (charts.example:443); nothing was written");
  }

  /** Every name is 127.0.0.1: nothing but loopback is ever connected to. */
  private static InetAddress[] loopbackOnly(String host) throws UnknownHostException {
    return new InetAddress[] {InetAddress.getLoopbackAddress()};
  }
}
