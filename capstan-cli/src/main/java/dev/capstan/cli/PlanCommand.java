package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.common.IoFailures;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code capstan release plan}. */
@Command(name = "plan", description = "Show what a cast would do, without changing anything.")
final class PlanCommand extends ReleaseSubcommand {
  @Mixin FileOptions file = new FileOptions();

  @Mixin DeleteGateOptions gate = new DeleteGateOptions();

  @Mixin ChartOptions chart = new ChartOptions();

  @Option(names = "--show-unchanged", description = "List unchanged objects too.")
  boolean showUnchanged;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "The readiness timeout the saved plan is cast with (default: 15m).")
  Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description =
          "Save the plan (no secret value: only hashes) for 'release cast -f FILE --plan FILE',"
              + " which casts exactly it or refuses when something moved.")
  @Nullable Path outFile;

  @Override
  int run(Target target, ReleaseController controller) {
    ReleaseInput in = input(file, gate, chart, timeout, target, controller);
    Plan plan = controller.planWithDiff(in);
    if (json()) {
      printJson(PlanRenderer.jsonTree(plan));
    } else {
      out().print(PlanRenderer.text(plan, showUnchanged));
    }
    if (!plan.applyable()) {
      return ExitCode.BLOCKED;
    }
    java.util.Optional<DeleteRefusal> refused = DeleteRefusal.of(plan);
    if (refused.isPresent()) {
      // saved nowhere: plan again with --approve-delete, and the file carries the approvals
      throw new DestructiveChangeRefusedException(plan, refused.get());
    }
    Path given = outFile;
    if (given != null) {
      writePlan(given, plan);
      cli()
          .err()
          .println(
              "capstan: plan saved to "
                  + Escapes.quote(given)
                  + "; cast exactly it with: capstan release cast "
                  + (chart.given()
                      ? Escapes.escape(in.spec().name()) + " " + ChartInput.describe(chart)
                      : "-f " + Escapes.quote(file.releaseFile()))
                  + " --plan "
                  + Escapes.quote(given)
                  + (chart.given() ? " (and the same values)" : ""));
    }
    return ExitCode.OK;
  }

  private void writePlan(Path given, Plan plan) {
    Path path = cli().resolve(given).toAbsolutePath();
    try {
      Files.createDirectories(path.getParent()); // as -o of a directory that is not there yet
      Files.write(path, PlanCodec.encode(plan));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--out: cannot write " + Escapes.quote(given) + ": " + IoFailures.reason(e), e);
    }
  }
}
