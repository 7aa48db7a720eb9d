package dev.capstan.update.build.process;

import java.util.List;

/** Runs a program with an argument list (never through a shell). */
@FunctionalInterface
public interface CommandRunner {

  /**
   * Runs a program and waits for it.
   *
   * @param argv the program and its arguments
   * @return how it ended
   * @throws dev.capstan.update.ImageBuildException when it cannot be started or the wait is
   *     interrupted (the process is then destroyed and the interrupt flag restored)
   */
  CommandResult run(List<String> argv);

  /**
   * Returns the runner that starts operating-system processes.
   *
   * @return a {@link ProcessBuilder}-based runner
   */
  static CommandRunner processes() {
    return new ProcessCommandRunner();
  }
}
