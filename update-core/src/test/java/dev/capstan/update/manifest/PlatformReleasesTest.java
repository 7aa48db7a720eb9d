package dev.capstan.update.manifest;

import static dev.capstan.update.McpRuntime.catalog;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.InvalidManifestException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Manifest validation, one fixture per rule: each file under {@code manifest/invalid/} starts with
 * {@code # expect:} lines, the exact problems the manifest must be rejected with.
 */
class PlatformReleasesTest {

  static Stream<String> invalidManifests() throws IOException {
    try (Stream<Path> files = Files.list(dir("invalid"))) {
      return files.map(p -> p.getFileName().toString()).sorted().toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidManifests")
  void rejectsWithExactlyTheExpectedProblems(String file) throws IOException {
    Path path = dir("invalid").resolve(file);
    List<String> expected =
        Files.readAllLines(path).stream()
            .filter(line -> line.startsWith("# expect: "))
            .map(line -> line.substring("# expect: ".length()))
            .toList();
    assertThat(expected).as("fixture %s names its expected problems", file).isNotEmpty();

    assertThatThrownBy(() -> PlatformReleases.parse(Files.readAllBytes(path), file, catalog()))
        .isInstanceOfSatisfying(
            InvalidManifestException.class,
            e -> assertThat(e.problems()).containsExactlyElementsOf(expected));
  }

  @Test
  void severalProblemsAreReportedTogetherWithTheirPaths() throws IOException {
    byte[] bytes = Files.readAllBytes(dir("").resolve("several-problems.yaml"));

    assertThatThrownBy(() -> PlatformReleases.parse(bytes, "several-problems.yaml", catalog()))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest several-problems.yaml: 8 problems:\n"
                + "  - channel is not a known field; known fields are apiVersion, kind, version,"
                + " registry, crdChange, crds, components\n"
                + "  - version must be semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] with an optional"
                + " leading v: '0.5-beta'\n"
                + "  - registry must match [A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?:"
                + " 'bad host'\n"
                + "  - components[0].tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}: 'v1 beta'\n"
                + "  - components[1].repository must be an image repository without tag or digest:"
                + " 'traefik:v3'\n"
                + "  - components[2].digest must match sha256:[a-f0-9]{64}: 'sha256:xyz'\n"
                + "  - components[1].name is not a component of the catalog (known:"
                + " cert-manager-controller, cert-manager-webhook, cert-manager-cainjector, operator,"
                + " gateway-proxy, platform-api, runtime-api, analytics-api, ingest, processor, ui,"
                + " doctor-smoke, mcp-auth): 'traefik'\n"
                + "  - components[2].name duplicates components[0]: 'operator'");
  }

  @Test
  void yamlAndJsonReadTheSameManifest() throws IOException {
    PlatformRelease yaml = parse("valid/platform-manifest.yaml");
    PlatformRelease json = parse("valid/platform-manifest.json");

    assertThat(json.components()).isEqualTo(yaml.components());
    assertThat(json.crdBundle()).isEqualTo(yaml.crdBundle());
    assertThat(yaml.version()).isEqualTo("v0.5.0");
    assertThat(yaml.registry()).isEqualTo("ghcr.io");
    assertThat(yaml.crdChange()).isTrue();
    assertThat(yaml.components())
        .containsExactly(
            ManifestComponent.of("operator", "mcp-runtime-operator", "v0.5.0")
                .withDigest("sha256:" + "1".repeat(64)),
            ManifestComponent.of("ui", "mcp-ui", "v0.5.0"));
    assertThat(yaml.crdBundle().names()).containsExactly("mcpservers.mcpruntime.org");
  }

  @Test
  void jsonDuplicateKeysAndTrailingGarbageAreRejected() {
    assertThatThrownBy(() -> parseText("{\"version\": \"v1.0.0\", \"version\": \"v2.0.0\"}"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageStartingWith(
            "invalid release manifest m.json: not valid JSON at line 1, column 32: Duplicate field 'version'");
    assertThatThrownBy(() -> parseText("{\"version\": \"v1.0.0\"} {}"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageEndingWith(
            "not valid JSON at line 1, column 23: more content after the end of the document");
  }

  @Test
  void manifestsOverFourMebibytesAreRejectedBeforeParsing() {
    byte[] big = new byte[PlatformReleases.MAX_BYTES + 1];
    Arrays.fill(big, (byte) ' ');

    assertThatThrownBy(() -> PlatformReleases.parse(big, "big.yaml", catalog()))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest big.yaml: document is 4194305 bytes; the limit is 4194304"
                + " bytes (4 MiB)");
  }

  @Test
  void recordsValidateThemselvesWhenBuiltInJava() {
    assertThatThrownBy(() -> ManifestComponent.of("ui", "mcp-ui:v1", "v1 beta"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            """
            invalid release manifest component 'ui': 2 problems:
              - repository must be an image repository without tag or digest: 'mcp-ui:v1'
              - tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}: 'v1 beta'""");
    assertThatThrownBy(
            () ->
                PlatformRelease.of(
                    "mcpruntime.org/v1alpha1",
                    "latest",
                    List.of(
                        ManifestComponent.of("ui", "mcp-ui", "v1"),
                        ManifestComponent.of("ui", "mcp-ui", "v2"))))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest for version latest: 2 problems:\n"
                + "  - version must be semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] with an"
                + " optional leading v: 'latest'\n"
                + "  - components[1].name duplicates components[0]: 'ui'");
  }

  @Test
  void checkRejectsAManifestThatDoesNotFitTheCatalog() {
    PlatformRelease other =
        PlatformRelease.of(
            "example.com/v1", "v1.0.0", List.of(ManifestComponent.of("web", "web", "v1.0.0")));

    assertThatThrownBy(() -> PlatformReleases.check(other, "other.yaml", catalog()))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageContaining("apiVersion must be 'mcpruntime.org/v1alpha1': 'example.com/v1'")
        .hasMessageContaining("components[0].name is not a component of the catalog");
  }

  @Test
  void generatedManifestsNameEveryBuiltComponent() {
    PlatformRelease release = PlatformReleases.generate(catalog(), "v0.5.0", false, "");

    assertThat(release.components())
        .extracting(c -> c.name() + "=" + c.repository() + ":" + c.tag())
        .containsExactly(
            "operator=mcp-runtime-operator:v0.5.0",
            "gateway-proxy=mcp-gateway:v0.5.0",
            "platform-api=mcp-platform-api:v0.5.0",
            "runtime-api=mcp-runtime-api:v0.5.0",
            "analytics-api=mcp-analytics-api:v0.5.0",
            "ingest=mcp-ingest:v0.5.0",
            "processor=mcp-processor:v0.5.0",
            "ui=mcp-ui:v0.5.0",
            "doctor-smoke=mcp-runtime-doctor-smoke:v0.5.0");
    PlatformRelease reread =
        PlatformReleases.parse(
            PlatformReleases.toJson(release).getBytes(StandardCharsets.UTF_8),
            "gen.json",
            catalog());
    assertThat(reread).isEqualTo(release);

    String commit = "0123456789abcdef0123456789abcdef01234567";
    PlatformRelease forCommit =
        PlatformReleases.generateForCommit(catalog(), "v0.5.0", commit, false, "");
    assertThat(forCommit.components())
        .allSatisfy(c -> assertThat(c.tag()).isEqualTo("v0.5.0-g" + commit));
    assertThatThrownBy(
            () -> PlatformReleases.generateForCommit(catalog(), "v0.5.0", "ABC", false, ""))
        .hasMessage("commit must be 40 lowercase hex digits: 'ABC'");
  }

  @Test
  void generatedJsonLeavesOutEmptyOptionalFields() {
    PlatformRelease release =
        PlatformRelease.of(
            "mcpruntime.org/v1alpha1",
            "v0.5.0",
            List.of(ManifestComponent.of("ui", "mcp-ui", "v0.5.0")));

    assertThat(PlatformReleases.toJson(release))
        .isEqualTo(
            """
            {
              "apiVersion" : "mcpruntime.org/v1alpha1",
              "kind" : "PlatformRelease",
              "version" : "v0.5.0",
              "components" : [ {
                "name" : "ui",
                "repository" : "mcp-ui",
                "tag" : "v0.5.0"
              } ]
            }
            """);
  }

  private static PlatformRelease parse(String file) throws IOException {
    return PlatformReleases.parse(Files.readAllBytes(dir("").resolve(file)), file, catalog());
  }

  private static PlatformRelease parseText(String text) {
    return PlatformReleases.parse(text.getBytes(StandardCharsets.UTF_8), "m.json", catalog());
  }

  static Path dir(String name) {
    try {
      return Path.of(
              Objects.requireNonNull(
                      PlatformReleasesTest.class.getResource("/dev/capstan/update/manifest"))
                  .toURI())
          .resolve(name);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
