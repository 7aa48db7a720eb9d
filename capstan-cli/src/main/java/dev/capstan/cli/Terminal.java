package dev.capstan.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** Where confirmations come from: a person at a terminal, or nobody. */
public interface Terminal {

  /** Whether a person can answer (stdin is a terminal). */
  boolean interactive();

  /** Prints {@code question} and reads one line, or {@code null} at end of input. */
  @Nullable String ask(String question);

  /** The process's terminal: {@link System#console()} decides whether it is interactive. */
  static Terminal system(PrintStream prompts) {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    return new Terminal() {
      @Override
      @SuppressWarnings("SystemConsoleNull") // built for Java 17, where null means no terminal
      public boolean interactive() {
        return System.console() != null;
      }

      @Override
      public @Nullable String ask(String question) {
        prompts.print(question);
        prompts.flush();
        try {
          return in.readLine();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /** No terminal: confirmations need {@code --yes}. */
  static Terminal none() {
    return new Terminal() {
      @Override
      public boolean interactive() {
        return false;
      }

      @Override
      public @Nullable String ask(String question) {
        return null;
      }
    };
  }
}
