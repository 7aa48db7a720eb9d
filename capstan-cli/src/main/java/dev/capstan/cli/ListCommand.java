package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Release;
import dev.capstan.release.result.ReleaseListing;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code capstan release list}: a namespace's releases, or with {@code -A} every namespace's (one
 * read of the store either way).
 */
@Command(
    name = "list",
    aliases = "ls",
    description = "List the releases of a namespace, or of every namespace (-A).")
final class ListCommand extends ReleaseSubcommand {
  @Option(names = "--all", description = "Include uninstalled releases (tombstones).")
  boolean all;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "List the releases of every namespace (with a NAMESPACE column).")
  boolean allNamespaces;

  @Override
  Set<ReleaseCommand.Output> outputs() {
    return EnumSet.allOf(ReleaseCommand.Output.class);
  }

  @Override
  int run(Target target, ReleaseController controller) {
    if (allNamespaces && common.namespace != null) {
      throw new IllegalArgumentException(
          "-A lists every namespace and -n names one: pass one of them");
    }
    // a release whose record cannot be read fails alone: the others are listed, it is named
    List<ReleaseListing> listing =
        allNamespaces
            ? controller.listingInAllNamespaces(all)
            : controller.listing(common.namespace(), all);
    List<Release> releases =
        listing.stream()
            .filter(ReleaseListing.Recorded.class::isInstance)
            .map(l -> ((ReleaseListing.Recorded) l).release())
            .toList();
    List<ReleaseListing.Unreadable> unreadable =
        listing.stream()
            .filter(ReleaseListing.Unreadable.class::isInstance)
            .map(ReleaseListing.Unreadable.class::cast)
            .toList();
    switch (common.output) {
      case json, yaml -> printJson(ReleaseOutput.json(releases));
      case name ->
          releases.forEach(
              r -> out().println(Escapes.escape(allNamespaces ? r.qualifiedName() : r.name())));
      default ->
          out()
              .print(
                  ReleaseOutput.table(
                      releases, allNamespaces, common.output == ReleaseCommand.Output.wide));
    }
    unreadable.forEach(u -> cli().err().println("capstan: " + Escapes.escape(u.problem())));
    return unreadable.isEmpty() ? ExitCode.OK : ExitCode.FAILED;
  }
}
