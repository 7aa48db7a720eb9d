package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.helm.testing.ChartRepositoryServer;
import dev.capstan.helm.testing.HelmBinaries;
import dev.capstan.helm.testing.SecureRegistry;
import dev.capstan.helm.testing.TestCa;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.RenderedChart;
import dev.capstan.release.chart.RepositoryAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Charts fetched by real Helm 3 and 4 from a local HTTPS chart repository and the local OCI
 * registry, both with TLS by a CA of the test's own and with credentials: version ranges resolve as
 * Helm resolves them, the digest is the archive's, and refused credentials are one line.
 */
class ChartSourcesIT {
  private static final String CHART = "cache";
  private static final List<String> VERSIONS = List.of("0.1.0", "0.1.5", "0.2.0");

  private static Path dir;
  private static TestCa ca;
  private static Path packaged;
  private static ChartRepositoryServer repo;
  private static SecureRegistry registry;

  @BeforeAll
  static void sources() throws Exception {
    dir = Files.createTempDirectory("chart-sources");
    ca = TestCa.create(dir.resolve("ca"));
    packaged = Files.createDirectories(dir.resolve("repo"));
    Path source = Path.of("src/test/resources/charts", CHART).toAbsolutePath();
    Path home = dir.resolve("home");
    for (String version : VERSIONS) {
      HelmBinaries.packaged(source, version, packaged, home);
    }
    repo = ChartRepositoryServer.start(packaged, ca, SecureRegistry.USER, SecureRegistry.PASSWORD);
    HelmBinaries.helm3(home, "repo", "index", packaged.toString(), "--url", repo.url());
    registry = SecureRegistry.start(Files.createDirectories(dir.resolve("registry")), ca);
    registry.login(home);
    for (String version : VERSIONS) {
      HelmBinaries.helm3(
          home,
          "push",
          packaged.resolve(CHART + "-" + version + ".tgz").toString(),
          "oci://" + registry.host() + "/charts",
          "--ca-file",
          ca.ca().toString());
    }
  }

  @AfterAll
  static void stop() {
    if (repo != null) {
      repo.close();
    }
    if (registry != null) {
      registry.close();
    }
  }

  private static RepositoryAccess access(String password) {
    return RepositoryAccess.anonymous()
        .withCredentials(SecureRegistry.USER, password)
        .withCaFile(ca.ca().toString());
  }

  private static ChartRequest request(ChartReference chart) {
    return ChartRequest.of(chart, "shop", "web").withValues(ChartValues.none().withSet("size=4"));
  }

  private static String sha256(Path file) throws Exception {
    return "sha256:"
        + HexFormat.of()
            .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void aRepositoryChartIsFetchedWithCredentialsAndARangePicksTheNewestMatch(int major)
      throws Exception {
    int before = repo.requests().size();

    RenderedChart chart =
        HelmChartRenderer.of(Helm.binary(major))
            .render(
                request(new ChartReference.Repository(repo.url(), CHART))
                    .withVersion("~0.1.0")
                    .withRepository(access(SecureRegistry.PASSWORD)));

    assertThat(chart.name() + " " + chart.version()).isEqualTo("cache 0.1.5");
    assertThat(chart.digest()).isEqualTo(sha256(packaged.resolve("cache-0.1.5.tgz")));
    assertThat(chart.manifests()).contains("name: web-cache").contains("size: \"4\"");
    assertThat(chart.values()).isEqualTo(Map.of("size", 4L));
    assertThat(repo.requests().subList(before, repo.requests().size()))
        .containsExactly("GET /charts/index.yaml ok", "GET /charts/cache-0.1.5.tgz ok");
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void anOciChartIsPulledWithCredentialsNewestWithoutAVersionOrTheRangesMatch(int major)
      throws Exception {
    HelmChartRenderer helm = HelmChartRenderer.of(Helm.binary(major));
    ChartRequest oci =
        request(new ChartReference.Oci("oci://" + registry.host() + "/charts/" + CHART))
            .withRepository(access(SecureRegistry.PASSWORD));

    RenderedChart newest = helm.render(oci);
    RenderedChart ranged = helm.render(oci.withVersion("^0.1.0"));

    assertThat(newest.version()).isEqualTo("0.2.0");
    assertThat(newest.digest()).isEqualTo(sha256(packaged.resolve("cache-0.2.0.tgz")));
    assertThat(ranged.version()).isEqualTo("0.1.5");
    assertThat(ranged.manifests()).contains("name: web-cache");
  }

  /**
   * A chart repository whose index sends Helm to a cloud's metadata service for the chart itself:
   * Helm reaches every host but loopback through Capstan's proxy only, which refuses that address
   * before it connects anywhere; the cast stops with the reason and nothing written.
   */
  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void aChartUrlAtAMetadataServiceIsRefusedBeforeAnyConnection(int major) throws Exception {
    Path trap = Files.createDirectories(dir.resolve("trap-" + major));
    Files.copy(packaged.resolve(CHART + "-0.2.0.tgz"), trap.resolve(CHART + "-0.2.0.tgz"));
    HelmBinaries.helm3(
        dir.resolve("home"),
        "repo",
        "index",
        trap.toString(),
        "--url",
        "https://169.254.169.254/charts");
    try (ChartRepositoryServer trapping =
        ChartRepositoryServer.start(trap, ca, SecureRegistry.USER, SecureRegistry.PASSWORD)) {
      HelmChartRenderer helm = HelmChartRenderer.of(Helm.binary(major));
      ChartRequest request =
          request(new ChartReference.Repository(trapping.url(), CHART))
              .withRepository(access(SecureRegistry.PASSWORD));

      assertThatThrownBy(() -> helm.render(request))
          .isInstanceOf(ChartException.class)
          .hasMessageContaining(
              "refused by Capstan: '169.254.169.254' is 169.254.169.254 (link-local, where a"
                  + " cloud's metadata service answers); a chart source may not lead there")
          .hasMessageEndingWith("; nothing was written");
      assertThat(trapping.requests()).containsExactly("GET /charts/index.yaml ok");
    }
  }

  /** A repository at a metadata service: Helm's update fails, and the message says why. */
  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void aRepositoryAtAMetadataServiceIsRefusedWithTheReason(int major) {
    HelmChartRenderer helm = HelmChartRenderer.of(Helm.binary(major));
    ChartRequest request =
        request(new ChartReference.Repository("https://169.254.169.254/charts", CHART));

    assertThatThrownBy(() -> helm.render(request))
        .isInstanceOf(ChartException.class)
        .hasMessageStartingWith("chart https://169.254.169.254/charts cache: the chart repository")
        .hasMessageEndingWith(
            " (refused by Capstan: '169.254.169.254' is 169.254.169.254 (link-local, where a"
                + " cloud's metadata service answers); a chart source may not lead there); nothing"
                + " was written");
  }

  @Test
  void refusedCredentialsAreOneLineNamingTheUserAndMissingOnesSayWhatToGive() {
    HelmChartRenderer helm = HelmChartRenderer.of(Helm.binary(3));
    ChartReference.Repository fromRepo = new ChartReference.Repository(repo.url(), CHART);
    ChartReference.Oci fromRegistry =
        new ChartReference.Oci("oci://" + registry.host() + "/charts/" + CHART);

    assertThatThrownBy(() -> helm.render(request(fromRepo).withRepository(access("wrong"))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart "
                + repo.url()
                + " cache: the chart repository refused the credentials of user 'charts' (HTTP"
                + " 401): check --username and the password given with --password-stdin; nothing"
                + " was written");
    assertThatThrownBy(() -> helm.render(request(fromRegistry).withRepository(access("wrong"))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart oci://"
                + registry.host()
                + "/charts/cache: the registry refused the credentials of user 'charts' (HTTP"
                + " 401): check --username and the password given with --password-stdin; nothing"
                + " was written");
    assertThatThrownBy(
            () ->
                helm.render(
                    request(fromRegistry)
                        .withRepository(
                            RepositoryAccess.anonymous().withCaFile(ca.ca().toString()))))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart oci://"
                + registry.host()
                + "/charts/cache: the registry asks for credentials (HTTP 401): give --username and"
                + " --password-stdin; nothing was written");
  }

  @Test
  void aPackagedChartRendersAsItIsAndItsDigestIsTheArchives() throws Exception {
    Path archive = packaged.resolve("cache-0.2.0.tgz");

    RenderedChart chart =
        HelmChartRenderer.of(Helm.binary(4))
            .render(request(new ChartReference.Archive(archive.toString())));

    assertThat(chart.name() + " " + chart.version()).isEqualTo("cache 0.2.0");
    assertThat(chart.digest()).isEqualTo(sha256(archive));
    assertThat(chart.renderer()).isEqualTo("helm v4.3.1");
  }
}
