package dev.capstan.common.logging;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * Every line logged through SLF4J while a capture is open, at every level, TRACE included: the
 * test-jar registers {@link CapturingProvider} as the SLF4J provider of the test class path. Lines
 * logged while no capture is open are dropped.
 *
 * <pre>{@code
 * try (LogCapture logs = LogCapture.open()) {
 *   controller.cast(spec, payloads);
 *   assertThat(logs.messages(Level.INFO)).containsExactly("shop/web: cast finished ...");
 * }
 * }</pre>
 */
public final class LogCapture implements AutoCloseable {
  private static final List<LogCapture> OPEN = new CopyOnWriteArrayList<>();

  private final List<Line> lines = new CopyOnWriteArrayList<>();

  private LogCapture() {}

  /**
   * One logged line: its logger, level, formatted message, exception, and the thread's MDC when it
   * was logged.
   */
  public record Line(
      String logger,
      Level level,
      String message,
      @Nullable Throwable error,
      Map<String, String> mdc) {
    /** Copies the MDC. */
    public Line {
      mdc = Map.copyOf(mdc);
    }

    /** The message, and the exception's {@code toString()} when there is one. */
    public String text() {
      return error == null ? message : message + " " + error;
    }

    @Override
    public String toString() {
      return level + " " + logger + ": " + text();
    }
  }

  /** Starts capturing. */
  public static LogCapture open() {
    LogCapture capture = new LogCapture();
    OPEN.add(capture);
    return capture;
  }

  static void record(Line line) {
    for (LogCapture c : OPEN) {
      c.lines.add(line);
    }
  }

  /** The lines captured so far, in the order they were logged. */
  public List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The messages logged at exactly {@code level}, in order. */
  public List<String> messages(Level level) {
    return lines.stream().filter(l -> l.level() == level).map(Line::message).toList();
  }

  /** Forgets the lines captured so far. */
  public void clear() {
    lines.clear();
  }

  /** Stops capturing. */
  @Override
  public void close() {
    OPEN.remove(this);
  }
}
