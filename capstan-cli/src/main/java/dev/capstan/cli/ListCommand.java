package dev.capstan.cli;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Release;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code capstan release list}. */
@Command(name = "list", aliases = "ls", description = "List the releases of a namespace.")
final class ListCommand extends ReleaseSubcommand {
  @Option(names = "--all", description = "Include uninstalled releases (tombstones).")
  boolean all;

  @Override
  int run(Target target, ReleaseController controller) {
    List<Release> releases = controller.list(common.namespace(), all);
    if (json()) {
      printJson(ReleaseOutput.json(releases));
    } else {
      out().print(ReleaseOutput.table(releases));
    }
    return ExitCode.OK;
  }
}
