package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health rules on the command line: a release file's rule with a bad expression, or a {@code
 * --health-rules} file's, is refused with exit code 2 and its position before anything is written;
 * good rules are taken.
 */
class HealthRulesCliTest {
  @TempDir Path dir;

  private String out = "";
  private String err = "";

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  private static String release(String options) {
    return "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: shop, namespace: demo}\n"
        + "spec:\n  configMaps:\n  - {name: a, data: {k: v}}\n"
        + options;
  }

  @Test
  void aBadExpressionInTheReleaseFileExits2WithItsPositionAndWritesNothing() throws IOException {
    Files.writeString(
        dir.resolve("shop.yaml"),
        release(
            """
              options:
                healthRules:
                - kind: example.com/Widget
                  current: "self.status.phase == 'Running' &&"
            """));

    assertThat(run("release", "cast", "-f", "shop.yaml", "--create-namespace", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith(
            "capstan: shop.yaml: spec.options.healthRules[0] (example.com/Widget).current: 1:34:"
                + " mismatched input '<EOF>'");
    // nothing was cast: the release is not recorded
    assertThat(run("release", "get", "shop", "-n", "demo")).isEqualTo(ExitCode.FAILED);
  }

  @Test
  void aHealthRulesFileIsCheckedAndTaken() throws IOException {
    Files.writeString(dir.resolve("shop.yaml"), release(""));
    Files.writeString(
        dir.resolve("rules.yaml"),
        """
        - kind: example.com/Widget
          current: self.status.readyMembers >= self.spec.members
          failed: self.status.phase == 'Failed'
        """);
    Files.writeString(
        dir.resolve("bad-rules.yaml"),
        """
        - kind: example.com/Widget
          current: self.status.conditions.all(c, self.status.conditions.all(d, true))
        """);

    assertThat(
            run(
                "release",
                "cast",
                "-f",
                "shop.yaml",
                "--health-rules",
                "bad-rules.yaml",
                "--create-namespace",
                "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .contains(
            "capstan: --health-rules 'bad-rules.yaml'[0] (example.com/Widget).current: estimated"
                + " cost ")
        .contains(" is over the limit of 20000");

    assertThat(
            run(
                "release",
                "cast",
                "-f",
                "shop.yaml",
                "--health-rules",
                "rules.yaml",
                "--create-namespace",
                "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release demo/shop revision 1 deployed.\n");
  }
}
