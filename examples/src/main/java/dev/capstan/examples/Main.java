package dev.capstan.examples;

import java.io.PrintStream;

/** Entry point of the examples jar. */
public final class Main {
  private Main() {}

  /**
   * Runs the command named by the first argument.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    PrintStream out = System.out;
    out.println("Capstan examples: the demo arrives with the release engine.");
  }
}
