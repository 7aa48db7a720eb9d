package dev.capstan.cli.update;

/**
 * Asks the operator to confirm an update: the command line asks on its terminal ({@code
 * UpdateCli}), a run without one is {@link #nonInteractive()}.
 */
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
}
