package dev.capstan.cli.update;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/** Asks the operator to confirm an update. */
public interface Confirmer {

  /**
   * Tells whether there is someone to ask (a terminal).
   *
   * @return false when the update must be confirmed with {@code --yes} instead
   */
  boolean isInteractive();

  /**
   * Shows a prompt and reads one reply line.
   *
   * @param prompt the question, possibly preceded by a summary
   * @return the reply without its line break; empty at end of input
   */
  String ask(String prompt);

  /**
   * Returns a confirmer for non-interactive runs: it has no one to ask.
   *
   * @return a confirmer whose {@link #isInteractive()} is false
   */
  static Confirmer nonInteractive() {
    return new Confirmer() {
      @Override
      public boolean isInteractive() {
        return false;
      }

      @Override
      public String ask(String prompt) {
        throw new IllegalStateException("no terminal to ask: " + prompt);
      }
    };
  }

  /**
   * Returns a confirmer over a reader and a stream (treated as a terminal).
   *
   * @param in where replies are read
   * @param out where prompts are written
   * @return the confirmer
   */
  static Confirmer of(BufferedReader in, PrintStream out) {
    requireNonNull(in, "in");
    requireNonNull(out, "out");
    return new Confirmer() {
      @Override
      public boolean isInteractive() {
        return true;
      }

      @Override
      public String ask(String prompt) {
        out.print(prompt);
        out.flush();
        try {
          String line = in.readLine();
          return line == null ? "" : line;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /**
   * Returns the confirmer of the JVM's console: interactive only when stdin and stdout are a
   * terminal.
   *
   * @return the confirmer
   */
  @SuppressWarnings("SystemConsoleNull") // JDK 22+ is handled by isTerminal below
  static Confirmer console() {
    Console console = System.console();
    if (console == null || !isTerminal(console)) {
      return nonInteractive();
    }
    return new Confirmer() {
      @Override
      public boolean isInteractive() {
        return true;
      }

      @Override
      public String ask(String prompt) {
        String line = console.readLine("%s", prompt);
        return line == null ? "" : line;
      }
    };
  }

  /** On JDK 22+ a console exists even without a terminal; ask it (reflectively, we build on 17). */
  private static boolean isTerminal(Console console) {
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException beforeJdk22) {
      return true;
    }
  }
}
