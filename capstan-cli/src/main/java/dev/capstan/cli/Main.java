package dev.capstan.cli;

/** Entry point of the command-line jar: the {@code capstan} command line. */
public final class Main {
  private Main() {}

  /**
   * Runs one {@code capstan} command and exits with its code. The command has finished its work,
   * closed what it opened and flushed its output when {@code run} returns, so the JVM halts at
   * once, running no shutdown hooks.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    StartupTrace.mark("main");
    int code = Cli.system().run(args);
    System.out.flush();
    System.err.flush();
    if (WarmUp.trainingRun()) {
      // the build's first command: the class cache written as it exits holds more than its own
      WarmUp.inMemory(1);
      WarmUp.kubernetesClasses();
    }
    StartupTrace.mark("exit");
    Runtime.getRuntime().halt(code);
  }
}
