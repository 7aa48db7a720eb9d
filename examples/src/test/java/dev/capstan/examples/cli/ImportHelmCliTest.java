package dev.capstan.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan release import-helm} outside a Kubernetes cluster; the import itself is tested on
 * the real control plane with real Helm in release-helm's {@code HelmImportIT}.
 */
class ImportHelmCliTest {
  @TempDir Path dir;

  private String out = "";
  private String err = "";

  private int run(String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    Terminal terminal =
        new Terminal() {
          @Override
          public boolean interactive() {
            return false;
          }

          @Override
          public @Nullable String ask(String question) {
            return null;
          }
        };
    int code =
        new Cli(
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8),
                terminal,
                Map.<String, String>of()::get,
                dir)
            .run(args);
    out = o.toString(StandardCharsets.UTF_8);
    err = e.toString(StandardCharsets.UTF_8);
    return code;
  }

  @Test
  void importHelmOnTheInMemoryClusterIsRefusedAskingForAKubeconfig() {
    assertThat(run("--state", "state.json", "release", "import-helm", "shop", "-n", "shop"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(out).isEmpty();
    assertThat(err)
        .isEqualTo(
            "capstan: import-helm reads Helm's records from a Kubernetes cluster: pass"
                + " --kubeconfig FILE\n");
  }

  @Test
  void importHelmNeedsTheReleaseName() {
    assertThat(run("release", "import-helm", "-n", "shop")).isEqualTo(ExitCode.INVALID);

    assertThat(err)
        .startsWith("capstan: Missing required parameter: 'NAME'\n")
        .contains("Try 'capstan release import-helm --help'.");
  }
}
