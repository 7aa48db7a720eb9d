package dev.capstan.cli;

import java.time.Duration;
import java.time.Instant;

/**
 * Start-up timestamps for finding where a CLI run's time goes: with {@code CAPSTAN_TRACE_STARTUP}
 * set, each {@link #mark} prints one line to standard error with the milliseconds since the JVM
 * started, and the CPU milliseconds the process has used. Without it, a mark costs one field read.
 */
public final class StartupTrace {
  private static final boolean ON = System.getenv("CAPSTAN_TRACE_STARTUP") != null;

  private StartupTrace() {}

  /**
   * Prints {@code label} with the time since the JVM started, when tracing is on.
   *
   * @param label what has just happened
   */
  public static void mark(String label) {
    if (!ON) {
      return;
    }
    ProcessHandle.Info info = ProcessHandle.current().info();
    long since =
        info.startInstant().map(s -> Duration.between(s, Instant.now()).toMillis()).orElse(-1L);
    long cpu = info.totalCpuDuration().map(Duration::toMillis).orElse(-1L);
    System.err.printf("capstan: start-up trace: %5d ms, %5d ms CPU: %s%n", since, cpu, label);
  }
}
