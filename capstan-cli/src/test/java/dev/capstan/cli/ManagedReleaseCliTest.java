package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warning before the CLI changes a release that a Release resource manages (its latest revision
 * names the Release as its source, as the controller records it), and none otherwise.
 */
class ManagedReleaseCliTest {
  @TempDir Path dir;

  private String err = "";

  private static final String WARNING =
      "capstan: warning: release demo/web is managed by the Release resource demo/web: its"
          + " controller casts the Release again at its next reconcile and undoes this %s;"
          + " suspend it first: capstan controller suspend web -n demo\n";

  /** The last run's standard error after its first line, which names the cluster worked on. */
  private String afterTheCluster() {
    assertThat(err).startsWith("capstan: working on the ");
    return err.substring(err.indexOf('\n') + 1);
  }

  /** The warning lines of the last run's standard error. */
  private List<String> warnings() {
    return err.lines().filter(l -> l.startsWith("capstan: warning:")).toList();
  }

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, @Nullable String>of()::get, dir, args);
    err = run.err();
    return run.code();
  }

  private void file(String name, @Nullable String source, String value) throws IOException {
    Files.writeString(
        dir.resolve(name),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata:
          name: web
          namespace: demo
        %s
        spec:
          configMaps:
          - name: settings
            data: {color: %s}
        """
            .formatted(source == null ? "" : "  source: \"" + source + "\"", value));
  }

  @Test
  void castRollbackAndUninstallOfAReleaseTheControllerCastWarnThatItWillUndoThem()
      throws IOException {
    file("v1.yaml", "capstan.dev/v1alpha1 Release demo/web", "blue");
    file("v2.yaml", "capstan.dev/v1alpha1 Release demo/web", "green");
    assertThat(run("release", "cast", "-f", "v1.yaml", "--yes")).isZero();
    assertThat(warnings()).isEmpty();

    // each warning comes first after the line that names the cluster, before the first write
    assertThat(run("release", "cast", "-f", "v2.yaml", "--yes")).isZero();
    assertThat(afterTheCluster()).startsWith(WARNING.formatted("cast"));
    assertThat(warnings()).hasSize(1);

    assertThat(run("release", "rollback", "web", "-n", "demo", "--yes")).isZero();
    assertThat(afterTheCluster()).startsWith(WARNING.formatted("rollback"));
    assertThat(warnings()).hasSize(1);

    assertThat(run("release", "uninstall", "web", "-n", "demo", "--yes")).isZero();
    assertThat(afterTheCluster()).startsWith(WARNING.formatted("uninstall"));
    assertThat(warnings()).hasSize(1);
  }

  @Test
  void aReleaseFromAFileIsChangedWithoutAWarning() throws IOException {
    file("v1.yaml", "git@example.com:shop.git", "blue");
    file("v2.yaml", null, "green");
    List<String> seen = new ArrayList<>();
    for (String[] args :
        List.of(
            new String[] {"release", "cast", "-f", "v1.yaml", "--yes"},
            new String[] {"release", "cast", "-f", "v2.yaml", "--yes"},
            new String[] {"release", "rollback", "web", "-n", "demo", "--yes"},
            new String[] {"release", "uninstall", "web", "-n", "demo", "--yes"})) {
      assertThat(run(args)).isZero();
      seen.addAll(warnings());
    }

    assertThat(seen).isEmpty();
  }
}
