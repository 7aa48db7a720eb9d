package dev.capstan.release.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryChartsTest {
  private static final String OCI = "oci://registry.example/charts/shop";

  private final InMemoryCharts charts =
      new InMemoryCharts()
          .chart(OCI, "shop", "1.0.0", (request, values) -> "v1: " + values)
          .chart(OCI, "shop", "1.10.0", (request, values) -> "v110: " + values)
          .chart(OCI, "shop", "1.9.0", (request, values) -> "v19: " + values);

  private static ChartRequest request() {
    return ChartRequest.of(new ChartReference.Oci(OCI), "shop", "web");
  }

  @Test
  void withoutAVersionTheNewestIsRenderedAndTheRequestIsKept() {
    RenderedChart rendered = charts.render(request());

    assertThat(rendered.version()).isEqualTo("1.10.0");
    assertThat(rendered.manifests()).isEqualTo("v110: {}");
    assertThat(rendered.renderer()).isEqualTo("in-memory");
    assertThat(rendered.digest()).matches("sha256:[0-9a-f]{64}");
    assertThat(charts.render(request()).digest()).isEqualTo(rendered.digest());
    assertThat(charts.requests()).containsExactly(request(), request());
  }

  @Test
  void anExactVersionIsRenderedAndARangeOrAMissingOneIsRefused() {
    assertThat(charts.render(request().withVersion("1.0.0")).manifests()).isEqualTo("v1: {}");
    assertThatThrownBy(() -> charts.render(request().withVersion("^1.0")))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart oci://registry.example/charts/shop: in-memory charts take an exact version, not"
                + " the range '^1.0'");
    assertThatThrownBy(() -> charts.render(request().withVersion("2.0.0")))
        .isInstanceOf(ChartException.class)
        .hasMessage("chart oci://registry.example/charts/shop version 2.0.0 not found");
  }

  @Test
  void valuesMergeFilesInOrderThenSetThenSetStringThenSetFile() {
    ChartValues values =
        ChartValues.none()
            .withFile("a.yaml", "replicas: 1\nauth: {user: app, password: one}\ntags: [x]\n")
            .withFile("b.yaml", "auth: {password: two}\ntags: null\n")
            .withSet("replicas=3,debug=true")
            .withSet("image.tag=1.2")
            .withSetString("port=8080")
            .withSetFile("config", "conf.txt", "line\n");

    RenderedChart rendered = charts.render(request().withValues(values));

    assertThat(rendered.values())
        .isEqualTo(
            Map.of(
                "replicas",
                3L,
                "debug",
                true,
                "auth",
                Map.of("user", "app", "password", "two"),
                "image",
                Map.of("tag", "1.2"),
                "port",
                "8080",
                "config",
                "line\n"));
  }

  @Test
  void aListIndexIsRefusedNamingTheFlag() {
    assertThatThrownBy(
            () -> charts.render(request().withValues(ChartValues.none().withSet("a[0]=b"))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "--set: in-memory charts take KEY=VALUE with a dotted key, no list index: 'a[0]'");
  }

  @Test
  void nothingPrintsAValueOrACredential() {
    ChartValues values = ChartValues.none().withSet("auth.password=hunter2").withFile("v", "x: y");
    RepositoryAccess repository = RepositoryAccess.anonymous().withCredentials("bot", "hunter2");
    ClusterAccess cluster =
        ClusterAccess.of(List.of("/home/me/.kube/config"), "dev", Map.of("TOKEN", "hunter2"));

    assertThat(values.toString())
        .isEqualTo("ChartValues[1 file(s), 1 --set, 0 --set-string, 0 --set-file]");
    assertThat(repository.toString())
        .isEqualTo("RepositoryAccess[user bot, password (hidden)]")
        .doesNotContain("hunter2");
    assertThat(cluster.toString())
        .isEqualTo("ClusterAccess[/home/me/.kube/config context dev, 1 environment variable(s)]");
    assertThat(request().withValues(values).withRepository(repository).withCluster(cluster))
        .asString()
        .doesNotContain("hunter2");
    assertThatThrownBy(() -> ChartValues.none().withSet("hunter2"))
        .hasMessage(
            "--set takes KEY=VALUE: an expression without '=' (not shown: a value may be"
                + " secret)");
  }

  @Test
  void referencesAreParsedAsTheCommandLineNamesThem() {
    assertThat(ChartReference.parse("oci://127.0.0.1:5000/charts/shop", null))
        .isEqualTo(new ChartReference.Oci("oci://127.0.0.1:5000/charts/shop"));
    assertThat(ChartReference.parse("shop", "https://charts.example.com"))
        .isEqualTo(new ChartReference.Repository("https://charts.example.com", "shop"));
    assertThat(ChartReference.parse("dist/shop-1.0.0.tgz", null))
        .isEqualTo(new ChartReference.Archive("dist/shop-1.0.0.tgz"));
    assertThat(ChartReference.parse("./charts/shop", null))
        .isEqualTo(new ChartReference.Directory("./charts/shop"));
    assertThatThrownBy(() -> ChartReference.parse("https://charts.example.com/shop", null))
        .hasMessage(
            "--chart 'https://charts.example.com/shop': a chart from a chart repository is named"
                + " by --repo URL and the chart's name (--chart NAME --repo"
                + " https://charts.example.com)");
    assertThatThrownBy(() -> ChartReference.parse("oci://Host/Shop:1.0", null))
        .hasMessageStartingWith("an OCI chart must be oci://HOST[:PORT]/PATH/NAME");
    // thousands of path steps or separators are checked without overflowing the stack
    String deep = "oci://127.0.0.1:5000" + "/a".repeat(100_000);
    assertThat(new ChartReference.Oci(deep).describe()).isEqualTo(deep);
    String dotted = "oci://127.0.0.1:5000/a" + ".a".repeat(100_000) + "/Shop";
    assertThatThrownBy(() -> new ChartReference.Oci(dotted))
        .hasMessage(
            "an OCI chart must be oci://HOST[:PORT]/PATH/NAME, lower-case, without a tag (give"
                + " the version with --chart-version): '"
                + dotted
                + "'");
    assertThatThrownBy(() -> ChartReference.parse("shop/web", "https://charts.example.com"))
        .hasMessageStartingWith("with --repo, the chart must be a chart's name");
    assertThatThrownBy(
            () ->
                ChartRequest.of(new ChartReference.Directory("./shop"), "shop", "web")
                    .withVersion("1.0.0"))
        .hasMessage(
            "--chart-version '1.0.0': a chart directory or .tgz has its own version (Chart.yaml);"
                + " --chart-version picks one from a chart repository or an OCI registry");
  }

  @Test
  void capabilitiesAreCheckedAndSorted() {
    Capabilities caps = new Capabilities("v1.37.2", List.of("v1/Secret", "apps/v1", "v1"));

    assertThat(caps.apiVersions()).containsExactly("apps/v1", "v1", "v1/Secret");
    assertThatThrownBy(() -> new Capabilities("latest", List.of()))
        .hasMessage(
            "capabilities.kubeVersion must be a Kubernetes version such as v1.37.2: 'latest'");
    assertThatThrownBy(() -> new Capabilities("v1.37.2", List.of("apps v1")))
        .hasMessage(
            "capabilities.apiVersions: each must be group/version or group/version/Kind: 'apps"
                + " v1'");
  }
}
