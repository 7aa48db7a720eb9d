package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The destructive-change gate on the command line: a cast pruning a protected claim, or over the
 * delete budget, is refused with exit code 7 listing what would go, {@code --yes} is no approval,
 * {@code --approve-delete} is, and a plan file carries the approvals it was made with.
 */
class DeleteGateCliTest {
  @TempDir Path dir;

  private String out = "";
  private String err = "";

  private static final String STATE = ".capstan/state.json";

  private static String release(boolean data, String... maps) {
    StringBuilder sb =
        new StringBuilder(
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: shop, namespace: demo}
            spec:
              configMaps:
            """);
    for (String m : maps) {
      sb.append("  - {name: ").append(m).append(", data: {k: v}}\n");
    }
    if (data) {
      sb.append("  volumes:\n  - {name: data, size: 1Gi, reclaimPolicy: Delete}\n");
    }
    return sb.toString();
  }

  @BeforeEach
  void files() throws IOException {
    Files.writeString(dir.resolve("v1.yaml"), release(true, "a", "b", "c", "d"));
    Files.writeString(dir.resolve("no-data.yaml"), release(false, "a", "b", "c", "d"));
    Files.writeString(dir.resolve("two-maps.yaml"), release(true, "a", "b"));
  }

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  private String working() {
    return "capstan: working on the in-memory cluster (state in " + dir.resolve(STATE) + ")\n";
  }

  @Test
  void aProtectedClaimIsRefusedWithExitCode7EvenWithYesAndCastWhenApprovedByName() {
    assertThat(run("release", "cast", "-f", "v1.yaml", "--create-namespace")).as(err).isZero();

    assertThat(run("release", "cast", "-f", "no-data.yaml", "--yes")).isEqualTo(ExitCode.REFUSED);
    assertThat(err)
        .isEqualTo(
            working()
                + "capstan: release demo/shop: the plan deletes 1 object(s) the delete gate keeps;"
                + " nothing was written; approve each by name to cast it: the CLI's"
                + " --approve-delete KEY (once per object), or spec.options.approveDeletes in the"
                + " release file or Release, or ReleaseOptions.deleteGate().approving(..)\n"
                + "  - PersistentVolumeClaim/demo/data (prune): PersistentVolumeClaim is a"
                + " protected kind\n");
    assertThat(run("release", "get", "shop", "-n", "demo")).isZero();
    assertThat(out).contains("Revision:    1\n");

    // refused before anyone is asked to confirm it
    assertThat(run("release", "cast", "-f", "no-data.yaml")).isEqualTo(ExitCode.REFUSED);
    assertThat(err).doesNotContain("confirm");

    assertThat(
            run(
                "release",
                "cast",
                "-f",
                "no-data.yaml",
                "--yes",
                "--approve-delete",
                "PersistentVolumeClaim/demo/data"))
        .as(err)
        .isZero();
    assertThat(out)
        .contains("  - prune      PersistentVolumeClaim/demo/data  ⚠ destructive\n")
        .endsWith("Release demo/shop revision 2 deployed.\n");
  }

  @Test
  void aPlanOverTheBudgetIsRefusedAndCastWhenEnoughIsApproved() {
    assertThat(run("release", "cast", "-f", "v1.yaml", "--create-namespace")).as(err).isZero();

    assertThat(run("release", "cast", "-f", "two-maps.yaml", "--yes", "--delete-budget", "1"))
        .isEqualTo(ExitCode.REFUSED);
    assertThat(err)
        .endsWith(
            "  - ConfigMap/demo/c (prune): the plan deletes 2 object(s) unapproved, over the"
                + " budget of 1 delete(s)\n"
                + "  - ConfigMap/demo/d (prune): the plan deletes 2 object(s) unapproved, over the"
                + " budget of 1 delete(s)\n");

    assertThat(
            run(
                "release",
                "cast",
                "-f",
                "two-maps.yaml",
                "--yes",
                "--delete-budget",
                "40%",
                "--approve-delete",
                "ConfigMap/demo/d"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release demo/shop revision 2 deployed.\n");
  }

  @Test
  void thePlanFileCarriesItsApprovalToTheCast() {
    assertThat(run("release", "cast", "-f", "v1.yaml", "--create-namespace")).as(err).isZero();

    // planned without an approval: the plan is refused, and saved nowhere
    assertThat(run("release", "plan", "-f", "no-data.yaml", "--out", "refused.json"))
        .isEqualTo(ExitCode.REFUSED);
    assertThat(Files.exists(dir.resolve("refused.json"))).isFalse();

    assertThat(
            run(
                "release",
                "plan",
                "-f",
                "no-data.yaml",
                "--out",
                "plan.json",
                "--approve-delete",
                "PersistentVolumeClaim/demo/data"))
        .as(err)
        .isZero();
    // cast with no approval on the command line: the plan's holds
    assertThat(run("release", "cast", "-f", "no-data.yaml", "--plan", "plan.json", "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release demo/shop revision 2 deployed.\n");
  }

  @Test
  void badGateFlagsAreRefusedWithExitCode2NamingTheFlagAndValue() {
    assertThat(run("release", "cast", "-f", "v1.yaml", "--delete-budget", "lots"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .endsWith(
            "capstan: --delete-budget: delete budget must be a count (10) or a share of the"
                + " release (20%): 'lots'\n");
    assertThat(run("release", "cast", "-f", "v1.yaml", "--approve-delete", "data"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .endsWith(
            "capstan: --approve-delete: resource key must have the form"
                + " [group/]Kind/namespace/name: 'data'\n");
  }
}
