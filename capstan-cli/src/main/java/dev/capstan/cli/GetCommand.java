package dev.capstan.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Release;
import dev.capstan.release.result.OperationInProgress;
import java.time.Instant;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code capstan release get}. */
@Command(name = "get", aliases = "status", description = "Show the latest revision of a release.")
final class GetCommand extends ReleaseSubcommand {
  @Parameters(paramLabel = "NAME", description = "The release name.")
  String name = "";

  @Option(
      names = "--values",
      description =
          "Show the values the release's chart was cast with (secret ones masked), as helm get"
              + " values does.")
  boolean values;

  @Override
  java.util.Set<ReleaseCommand.Output> outputs() {
    java.util.Set<ReleaseCommand.Output> outputs = super.outputs();
    outputs.add(ReleaseCommand.Output.name);
    return outputs;
  }

  @Override
  int run(Target target, ReleaseController controller) {
    String ns = common.namespace();
    Optional<Release> found = controller.get(ns, name);
    Optional<OperationInProgress> now = controller.inProgress(ns, name);
    Instant at = Instant.now();
    if (found.isEmpty()) {
      // a first cast records its revision when it ends: until then its lease says it runs
      now.ifPresent(
          p ->
              cli()
                  .err()
                  .println(
                      "capstan: "
                          + Escapes.escape(ns + "/" + name)
                          + " has no recorded revision yet; "
                          + ReleaseOutput.inProgress(p, at)));
      throw new ReleaseNotFoundException(ns + "/" + name, null);
    }
    Release r = found.get();
    if (values) {
      ChartOrigin chart = r.chart();
      if (chart == null) {
        throw new ReleaseException(
            "release "
                + Escapes.escape(r.qualifiedName())
                + " revision "
                + r.revision()
                + " was not cast from a chart: it records no values");
      }
      if (json()) {
        printJson(ReleaseOutput.values(r, chart));
      } else {
        out().print(ReleaseOutput.valuesText(r, chart));
      }
      return ExitCode.OK;
    }
    if (common.output == ReleaseCommand.Output.name) {
      out().println(Escapes.escape(r.name()));
    } else if (json()) {
      ObjectNode doc = ReleaseOutput.json(r);
      now.ifPresent(p -> doc.set("inProgress", ReleaseOutput.json(p, at)));
      printJson(doc);
    } else {
      out().print(ReleaseOutput.text(r, now.orElse(null), at));
    }
    return ExitCode.OK;
  }
}
