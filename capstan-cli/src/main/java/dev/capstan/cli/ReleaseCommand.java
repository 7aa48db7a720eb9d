package dev.capstan.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code capstan release ...}: plan, cast, inspect, roll back and uninstall releases (subcommands
 * added by {@link CommandTree}).
 */
@Command(
    name = "release",
    description = "Plan, cast, inspect, roll back and uninstall releases.",
    mixinStandardHelpOptions = true)
final class ReleaseCommand implements Runnable {
  @ParentCommand @Nullable CapstanCommand root;

  @Override
  public void run() {
    root().cli.out().print(new picocli.CommandLine(this).getUsageMessage());
  }

  CapstanCommand root() {
    if (root == null) {
      throw new IllegalStateException("no parent command");
    }
    return root;
  }

  /**
   * The output format: {@code name} (one release name a line) and {@code wide} (more columns) only
   * where a command lists releases ({@link ReleaseSubcommand#outputs()}).
   */
  enum Output {
    text,
    json,
    yaml,
    name,
    wide
  }

  /**
   * Writes and deletes in flight at once: enough to hide a real API server's round trip (its
   * default client limits are far above), few enough not to crowd it.
   */
  static final int DEFAULT_PARALLELISM = 16;
}
