package dev.capstan.cli;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.Release;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code capstan release history}. */
@Command(name = "history", description = "List the recorded revisions of a release, newest first.")
final class HistoryCommand extends ReleaseSubcommand {
  @Parameters(paramLabel = "NAME", description = "The release name.")
  String name = "";

  @Override
  int run(Target target, ReleaseController controller) {
    String ns = common.namespace();
    List<Release> revisions = controller.history(ns, name);
    if (revisions.isEmpty()) {
      throw new ReleaseNotFoundException(ns + "/" + name, null);
    }
    if (json()) {
      printJson(ReleaseOutput.json(revisions));
    } else {
      out().print(ReleaseOutput.history(revisions));
    }
    return ExitCode.OK;
  }
}
