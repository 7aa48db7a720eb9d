package dev.capstan.cli;

import dev.capstan.release.ReleaseController;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Options every release subcommand has. */
final class CommonOptions {
  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description =
          "The release's home namespace (default: the file's, else the kubeconfig context's,"
              + " else default).")
  @Nullable String namespace;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description =
          "text, json or yaml (default: text); release list also name (one name a line) and wide"
              + " (more columns), release get name.")
  ReleaseCommand.Output output = ReleaseCommand.Output.text;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      description =
          "How many objects of one rank to write or delete at once (default: "
              + ReleaseCommand.DEFAULT_PARALLELISM
              + ").")
  int parallelism = ReleaseCommand.DEFAULT_PARALLELISM;

  @Option(
      names = "--delete-parallelism",
      paramLabel = "N",
      description =
          "How many objects of one rank to delete at once in an uninstall or prune (default: "
              + ReleaseController.DEFAULT_DELETE_PARALLELISM
              + "; 1 with --parallelism 1).")
  @Nullable Integer deleteParallelism;

  /** The namespace when no -n is given: the kubeconfig context's, else default. */
  String defaultNamespace = "default";

  /** {@code -n}, else {@link #defaultNamespace}. */
  String namespace() {
    return namespace == null ? defaultNamespace : namespace;
  }
}
