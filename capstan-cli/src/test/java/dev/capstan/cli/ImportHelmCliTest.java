package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.helm.HelmImportPlan;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Precondition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void importHelmOnTheInMemoryClusterIsRefusedAskingForAKubeconfig() {
    assertThat(run("--state", "state.json", "release", "import-helm", "shop", "-n", "shop"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(out).isEmpty();
    assertThat(err)
        .isEqualTo(
            "capstan: import-helm reads Helm's records from a Kubernetes cluster, not the"
                + " in-memory cluster (state in "
                + dir.resolve("state.json")
                + "): pass --kubeconfig FILE\n");
  }

  @Test
  void importHelmNeedsTheReleaseName() {
    assertThat(run("release", "import-helm", "-n", "shop")).isEqualTo(ExitCode.INVALID);

    assertThat(err)
        .startsWith("capstan: Missing required parameter: 'NAME'\n")
        .contains("Try 'capstan release import-helm --help'.");
  }

  @Test
  void theResultSaysWhichHookObjectsWereMarkedAndWhyAnyWasLeftAsItIs() {
    HelmImportPlan.HookObject marked = hook("shop-migrated", true);
    HelmImportPlan.HookObject absent = hook("shop-seeded", false);
    HelmImportPlan.HookObject left =
        hook("shop-check", true)
            .leftAsIs("changed since it was looked at (uid or resourceVersion); not marked");

    assertThat(ImportHelmCommand.hookLines(List.of(marked, absent, left)))
        .containsExactly(
            "Hook objects: 1 marked as this release's, 1 left as it is, 1 absent.",
            "  · ConfigMap/shop/shop-check: changed since it was looked at (uid or"
                + " resourceVersion); not marked");
    assertThat(ImportHelmCommand.hookLines(List.of(marked)))
        .containsExactly("Hook objects: 1 marked as this release's, 0 left as they are, 0 absent.");
    assertThat(ImportHelmCommand.hookLines(List.of())).isEmpty();
  }

  private static HelmImportPlan.HookObject hook(String name, boolean present) {
    return new HelmImportPlan.HookObject(
        ResourceRef.of(Kind.CONFIG_MAP, "shop", name),
        List.of("post-install"),
        present,
        null,
        present ? Precondition.observed("uid-" + name, "7") : Precondition.absent());
  }
}
