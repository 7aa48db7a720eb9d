package dev.capstan.cli;

import dev.capstan.common.Durations;
import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.result.TestResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code capstan release test}: the release's test hooks, as {@code helm test}. */
@Command(
    name = "test",
    description =
        "Run the test hooks of a release's latest revision (helm.sh/hook: test), one at a time,"
            + " stopping at the first that fails; exit 1 if one failed.")
final class TestCommand extends ReleaseSubcommand {
  @Parameters(paramLabel = "NAME", description = "The release name.")
  String name = "";

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = dev.capstan.cli.Durations.class,
      description =
          "How long each test may run unless it sets capstan.dev/hook-timeout (default: 15m).")
  Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

  @Option(
      names = "--allow-hook",
      paramLabel = "KEY",
      description =
          "Let the record's test hook of this object ([group/]Kind/namespace/name) run although it"
              + " is outside the release's namespace; repeatable. It is written with your rights,"
              + " and a record is as trusted as whoever may write the release's records.")
  List<String> allowHooks = new ArrayList<>();

  @Override
  int run(Target target, ReleaseController controller) {
    // the tests it runs are listed first, and those outside the namespace refused unless named
    List<ResourceRef> allowed = allowHooks.stream().map(ResourceRef::parse).toList();
    HookPlan hooks = controller.planTestHooks(common.namespace(), name);
    ReleaseOutput.review(hooks, "test", allowed, !json(), out());
    TestResult result = controller.test(common.namespace(), name, timeout, allowed);
    if (json()) {
      com.fasterxml.jackson.databind.node.ObjectNode doc = ReleaseOutput.json().createObjectNode();
      doc.put("release", result.release().qualifiedName());
      doc.put("revision", result.release().revision());
      doc.put("passed", result.passed());
      doc.put("declared", result.declared());
      doc.set("hooks", ReleaseOutput.json(hooks));
      doc.set("tests", ReleaseOutput.json(result.outcomes(), false));
      printJson(doc);
    } else {
      StringBuilder sb = new StringBuilder();
      if (result.declared() == 0) {
        sb.append("release ")
            .append(Escapes.escape(result.release().qualifiedName()))
            .append(" revision ")
            .append(result.release().revision())
            .append(" has no test hook (helm.sh/hook: test)\n");
      }
      for (HookOutcome o : result.outcomes()) {
        sb.append(o.succeeded() ? "PASSED  " : "FAILED  ")
            .append(Escapes.escape(o.ref().key()))
            .append("  (")
            .append(Durations.format(o.took()))
            .append(')');
        if (o.message() != null) {
          sb.append(": ").append(Escapes.escape(o.message()));
        }
        sb.append('\n');
      }
      int skipped = result.declared() - result.outcomes().size();
      if (skipped > 0) {
        sb.append(skipped).append(skipped == 1 ? " test" : " tests").append(" not run\n");
      }
      out().print(sb);
    }
    return result.passed() ? ExitCode.OK : ExitCode.FAILED;
  }
}
