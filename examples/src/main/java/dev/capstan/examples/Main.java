package dev.capstan.examples;

import java.io.PrintStream;

/** Entry point of the examples jar: {@code demo} runs the demo on the in-memory cluster. */
public final class Main {
  private Main() {}

  /**
   * Runs the command named by the first argument.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    PrintStream out = System.out;
    if (args.length == 0 || !args[0].equals("demo")) {
      System.err.println("usage: capstan demo");
      System.exit(2);
      return;
    }
    ReleaseDemo.run(out);
  }
}
