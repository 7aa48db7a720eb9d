package dev.capstan.update.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.update.catalog.MetadataKeys;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.PlanAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.RowReason;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Recovery commands are printed for people to paste into a shell, and their values come from the
 * live cluster (an image, an env value), so a hostile value must stay one argument. These tests run
 * the real {@code /bin/sh}.
 */
class RecoveryCommandShellTest {

  static Stream<String> hostile() {
    return Stream.of(
        "reg.example/app:v1$(touch /tmp/capstan-pwned)",
        "reg.example/app:`id`",
        "reg.example/app:v1; rm -rf /",
        "reg.example/app:v1 && echo owned",
        "image with spaces",
        "it's quoted",
        "\"double\" quoted",
        "'",
        "''",
        "back\\slash",
        "glob*?[a]",
        "~root",
        "#comment",
        "new\nline",
        "tab\there",
        "$HOME ${PATH} $1",
        "!history",
        "",
        "-n",
        "ünïcödé");
  }

  @ParameterizedTest
  @MethodSource("hostile")
  void quotedWordRoundTripsThroughShByteForByte(String word) throws Exception {
    String script = "printf '%s' " + ShellWords.quote(word);

    assertThat(sh("-n", "-c", script).exitCode).isZero();
    Result run = sh("-c", script);
    assertThat(run.exitCode).isZero();
    assertThat(run.stdout).isEqualTo(word.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @MethodSource("hostile")
  void recoveryCommandParsesAsTheIntendedArguments(String value) throws Exception {
    Workload w = Workload.of("apps", "web");
    PlanRow image = row("web", "c;$(x)", "", value);
    PlanRow env = row("sidecar", "side car", "IMG`id`", value);
    UpdatePlan plan =
        new UpdatePlan(
            ClusterInfo.unknown(),
            "",
            "v2",
            "v1",
            false,
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(image, env),
            List.of(),
            List.of(),
            MetadataKeys.defaults());

    UpdateResult result =
        UpdateApplier.apply(InMemoryPlatformCluster.create(), plan, ApplyOptions.defaults());

    List<String> recovery = result.workloads().get(0).recovery();
    assertThat(result.workloads().get(0).workload()).isEqualTo(w);
    assertThat(recovery).hasSize(3);
    assertThat(args(recovery.get(0)))
        .containsExactly("-n", "apps", "rollout", "undo", "deployment/web");
    assertThat(args(recovery.get(1)))
        .containsExactly("-n", "apps", "set", "image", "deployment/web", "c;$(x)=" + value);
    assertThat(args(recovery.get(2)))
        .containsExactly(
            "-n", "apps", "set", "env", "deployment/web", "-c", "side car", "IMG`id`=" + value);
  }

  /** Runs the command with {@code kubectl} defined as a function that prints its arguments. */
  private static List<String> args(String command) throws Exception {
    assertThat(sh("-n", "-c", command).exitCode).as("sh -n %s", command).isZero();
    Result run =
        sh("-c", "kubectl() { for a in \"$@\"; do printf '%s\\0' \"$a\"; done; }; " + command);
    assertThat(run.exitCode).as("sh -c %s", command).isZero();
    String out = new String(run.stdout, StandardCharsets.UTF_8);
    List<String> args = new ArrayList<>(Arrays.asList(out.split("\0", -1)));
    args.remove(args.size() - 1);
    return args;
  }

  private static PlanRow row(String component, String container, String envVar, String current) {
    return new PlanRow(
        component,
        "apps",
        "web",
        container,
        envVar,
        current,
        "",
        "reg.example/app:v2",
        "v1",
        "v2",
        PlanAction.UPDATE,
        RowReason.NONE,
        List.of(),
        false);
  }

  private static final class Result {
    final int exitCode;
    final byte[] stdout;

    Result(int exitCode, byte[] stdout) {
      this.exitCode = exitCode;
      this.stdout = stdout;
    }
  }

  private static Result sh(String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>();
    argv.add("/bin/sh");
    argv.addAll(List.of(args));
    Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = p.getInputStream()) {
      in.transferTo(out);
    }
    return new Result(p.waitFor(), out.toByteArray());
  }
}
