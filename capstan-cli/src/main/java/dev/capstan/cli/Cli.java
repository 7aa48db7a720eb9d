package dev.capstan.cli;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.CapstanException;
import dev.capstan.common.Escapes;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.codec.PlanFormatException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.error.HookRefusedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.file.InvalidReleaseFileException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * The {@code capstan} command line, runnable in-process: {@link #run(String...)} returns the exit
 * code. Results go to {@code out}, progress and errors to {@code err}.
 */
public final class Cli {
  private final PrintStream out;
  private final PrintStream err;
  private final Terminal terminal;
  private final Function<String, @Nullable String> env;
  private final Path workDir;
  private final KubeConnections connections;

  /**
   * A command line with its streams, terminal, environment and working directory.
   *
   * @param out where results go
   * @param err where progress and errors go
   * @param terminal where confirmations come from
   * @param env environment lookup (for {@code CAPSTAN_STATE}, {@code fromEnv} secrets, ...)
   * @param workDir the directory relative paths are resolved against
   */
  public Cli(
      PrintStream out,
      PrintStream err,
      Terminal terminal,
      Function<String, @Nullable String> env,
      Path workDir) {
    this(out, err, terminal, env, workDir, KubeConnections.perCommand());
  }

  /**
   * A command line with its streams, terminal, environment and working directory, taking its
   * Kubernetes clients from {@code connections} (a long-lived process keeps them open across
   * commands).
   *
   * @param out where results go
   * @param err where progress and errors go
   * @param terminal where confirmations come from
   * @param env environment lookup (for {@code CAPSTAN_STATE}, {@code fromEnv} secrets, ...)
   * @param workDir the directory relative paths are resolved against
   * @param connections where the Kubernetes clients come from
   */
  public Cli(
      PrintStream out,
      PrintStream err,
      Terminal terminal,
      Function<String, @Nullable String> env,
      Path workDir,
      KubeConnections connections) {
    this.out = requireNonNull(out, "out");
    this.err = requireNonNull(err, "err");
    this.terminal = requireNonNull(terminal, "terminal");
    this.env = requireNonNull(env, "env");
    this.workDir = requireNonNull(workDir, "workDir");
    this.connections = requireNonNull(connections, "connections");
  }

  /** A command line on the process's streams, terminal, environment and working directory. */
  public static Cli system() {
    return new Cli(
        System.out,
        System.err,
        Terminal.system(System.err),
        System::getenv,
        Path.of("").toAbsolutePath());
  }

  /**
   * Runs one command and returns its exit code (see {@link ExitCode}). Nothing escapes: every
   * exception and error, {@link StackOverflowError} and {@link OutOfMemoryError} included, becomes
   * one line on {@code err} and an exit code; {@code --debug} adds the stack trace.
   */
  public int run(String... args) {
    boolean debug = java.util.Arrays.asList(args).contains("--debug");
    try {
      return execute(debug, args);
    } catch (Throwable t) { // the edge of the program: nothing may reach the user as a trace
      return handle(t, debug);
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int execute(boolean debug, String... args) {
    CommandLine cmd = CommandTree.build(new CapstanCommand(this), java.util.Arrays.asList(args));
    cmd.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cmd.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    cmd.setParameterExceptionHandler(
        (e, a) -> {
          String suggested = Suggestions.message(e);
          err.println(
              "capstan: "
                  + (suggested != null
                      ? suggested
                      : Escapes.escape(String.valueOf(e.getMessage()))));
          err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
          return ExitCode.INVALID;
        });
    cmd.setExecutionExceptionHandler((e, c, p) -> handle(e, debug));
    return cmd.execute(args);
  }

  private int handle(Throwable t, boolean debug) {
    int code = exitCode(t);
    err.println("capstan: " + message(t, code));
    if (debug) {
      t.printStackTrace(err);
    }
    return code;
  }

  /**
   * The line shown for a problem: our own exceptions' messages (built from escaped values, one
   * problem per line); anything unexpected named by its type, escaped and on one line.
   */
  private static String message(Throwable t, int code) {
    if (t instanceof OutOfMemoryError) {
      return "out of memory; nothing more was done (run with --debug for the stack trace)";
    }
    if (expected(t)) {
      return String.valueOf(t.getMessage());
    }
    String text = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return (code == ExitCode.INVALID ? "" : "unexpected error: ")
        + Escapes.escape(text)
        + " (run with --debug for the stack trace)";
  }

  private static boolean expected(Throwable t) {
    return t instanceof CapstanException
        || t instanceof IllegalArgumentException
        || t instanceof CommandLine.ParameterException
        || t instanceof CommandLine.TypeConversionException;
  }

  private static int exitCode(Throwable t) {
    if (!(t instanceof Exception e)) {
      return ExitCode.FAILED;
    }
    if (e instanceof NotConfirmedException) {
      return ExitCode.NOT_CONFIRMED;
    }
    if (e instanceof ChartException // a chart not fetched or not rendered: nothing was written
        || e instanceof InvalidReleaseFileException
        || e instanceof InvalidReleaseException
        || e instanceof PlanFormatException
        || e instanceof IllegalArgumentException
        || e instanceof InvalidDocumentException
        || e instanceof dev.capstan.common.health.InvalidHealthRulesException
        || e instanceof CommandLine.ParameterException
        || e instanceof CommandLine.TypeConversionException) {
      return ExitCode.INVALID;
    }
    if (e instanceof ReleaseConflictException) {
      return ExitCode.BLOCKED;
    }
    if (e instanceof DestructiveChangeRefusedException || e instanceof HookRefusedException) {
      return ExitCode.REFUSED;
    }
    if (e instanceof ReleaseLockedException) {
      return ExitCode.LOCKED;
    }
    if (e instanceof StalePlanException) {
      return ExitCode.STALE;
    }
    if (e instanceof CastFailedException || e instanceof ReleaseException) {
      return ExitCode.FAILED;
    }
    int update = UpdateCli.exitCode(e);
    return update >= 0 ? update : ExitCode.FAILED;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  Terminal terminal() {
    return terminal;
  }

  Function<String, @Nullable String> env() {
    return env;
  }

  KubeConnections connections() {
    return connections;
  }

  Path resolve(Path path) {
    return workDir.resolve(path);
  }

  /**
   * Says on standard error which cluster a command is about to change: every command that writes
   * says it once its input is read and checked, before its first write.
   */
  void announce(Target target) {
    err.println("capstan: working on the " + target.describe());
  }

  /** Asks for the exact answer {@code yes}, unless {@code yes} was passed. */
  void confirm(boolean yes, String question) {
    if (yes) {
      return;
    }
    if (!terminal.interactive()) {
      throw new NotConfirmedException(
          "confirmation needed and no terminal to ask at; pass --yes to proceed. Nothing was"
              + " changed.");
    }
    String answer = terminal.ask(question + " Type 'yes' to continue: ");
    if (!"yes".equals(answer == null ? null : answer.strip())) {
      throw new NotConfirmedException("not confirmed; nothing was changed.");
    }
  }

  /** The user did not confirm; nothing was changed. */
  static final class NotConfirmedException extends CapstanException {
    private static final long serialVersionUID = 1L;

    NotConfirmedException(String message) {
      super(message);
    }
  }
}
