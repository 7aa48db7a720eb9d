package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.ResourceRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release namespace comes from the overrides, else the file, else the overrides' default
 * namespace (a command line's kubeconfig context), else {@code default}.
 */
class DefaultNamespaceTest {
  @TempDir Path dir;

  private static @Nullable String noEnv(String name) {
    return null;
  }

  private static String keys(ReleaseFile f) {
    return String.join(", ", f.payloads().refs().stream().map(ResourceRef::key).toList());
  }

  private Path releaseFile(String metadata) throws IOException {
    Path file = dir.resolve("release.yaml");
    Files.writeString(
        file,
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: %s
        spec:
          configMaps:
          - {name: settings, data: {k: v}}
        """
            .formatted(metadata));
    return file;
  }

  @Test
  void aReleaseFileWithoutANamespaceTakesTheDefaultNamespace() throws IOException {
    Path file = releaseFile("{name: web}");

    ReleaseFile f =
        ReleaseFiles.read(file, new Overrides(null, null, "team-a"), DefaultNamespaceTest::noEnv);

    assertThat(f.namespace()).isEqualTo("team-a");
    assertThat(keys(f)).isEqualTo("ConfigMap/team-a/settings");
    assertThat(
            ReleaseFiles.read(file, new Overrides(null, null), DefaultNamespaceTest::noEnv)
                .namespace())
        .isEqualTo("default");
    assertThat(
            ReleaseFiles.read(
                    file, new Overrides("shop", null, "team-a"), DefaultNamespaceTest::noEnv)
                .namespace())
        .isEqualTo("shop");
  }

  @Test
  void aReleaseFilesOwnNamespaceWinsOverTheDefaultNamespace() throws IOException {
    Path file = releaseFile("{name: web, namespace: default}");

    ReleaseFile f =
        ReleaseFiles.read(file, new Overrides(null, null, "team-a"), DefaultNamespaceTest::noEnv);

    assertThat(f.namespace()).isEqualTo("default");
    assertThat(keys(f)).isEqualTo("ConfigMap/default/settings");
  }

  @Test
  void plainManifestsWithoutANamespaceGoToTheDefaultNamespace() throws IOException {
    Path file = dir.resolve("app.yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: a}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: b, namespace: elsewhere}
        """);

    ReleaseFile f =
        ReleaseFiles.read(file, new Overrides(null, "app", "team-a"), DefaultNamespaceTest::noEnv);

    assertThat(f.namespace()).isEqualTo("team-a");
    assertThat(keys(f)).isEqualTo("ConfigMap/elsewhere/b, ConfigMap/team-a/a");
    assertThat(
            ReleaseFiles.read(
                    file, new Overrides("shop", "app", "team-a"), DefaultNamespaceTest::noEnv)
                .namespace())
        .isEqualTo("shop");
  }
}
