package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

/**
 * How a command ended.
 *
 * @param exitCode the exit code
 * @param output what it printed (stdout and stderr interleaved), possibly trimmed to its tail
 */
public record CommandResult(int exitCode, String output) {
  /** Validates the fields. */
  public CommandResult {
    requireNonNull(output, "output");
  }

  /**
   * Tells whether the command succeeded.
   *
   * @return true for exit code 0
   */
  public boolean succeeded() {
    return exitCode == 0;
  }
}
