package dev.capstan.examples;

import dev.capstan.examples.cli.Cli;

/** Entry point of the examples jar: the {@code capstan} command line. */
public final class Main {
  private Main() {}

  /**
   * Runs one {@code capstan} command and exits with its code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(Cli.system().run(args));
  }
}
