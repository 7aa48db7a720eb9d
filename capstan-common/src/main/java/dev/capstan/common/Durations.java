package dev.capstan.common;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders a {@link Duration} the way people write one, for every message, progress line and report
 * Capstan prints: {@code 2m59s}, {@code 1h5m}, {@code 850ms}, never ISO-8601 ({@code PT2M59.554S}).
 * The one place every Capstan module formats a duration for a reader, and reads one a person wrote
 * ({@link #parse}).
 */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+)(h|ms|m|s)");

  private Durations() {}

  /**
   * A positive duration written like Go's and kubectl's: {@code 90s}, {@code 15m}, {@code 1h30m},
   * {@code 500ms}.
   *
   * @throws IllegalArgumentException {@code must be a positive duration such as 90s, 15m or 1h30m:
   *     'value'}
   */
  public static Duration parse(String value) {
    Matcher m = PART.matcher(value);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      try {
        long n = Long.parseLong(m.group(1));
        total =
            total.plus(
                switch (m.group(2)) {
                  case "h" -> Duration.ofHours(n);
                  case "m" -> Duration.ofMinutes(n);
                  case "s" -> Duration.ofSeconds(n);
                  default -> Duration.ofMillis(n);
                });
      } catch (NumberFormatException | ArithmeticException e) {
        end = -1;
        break;
      }
      end = m.end();
    }
    if (value.isEmpty() || end != value.length() || total.isZero()) {
      throw new IllegalArgumentException(
          "must be a positive duration such as 90s, 15m or 1h30m: " + Escapes.quote(value));
    }
    return total;
  }

  /**
   * {@code duration} in at most two units, the larger first, rounded down to the smaller one:
   * {@code 0s}, {@code 850ms} (under a second), {@code 1.5s} (under ten seconds, to a tenth),
   * {@code 42s}, {@code 2m59s}, {@code 15m}, {@code 1h5m}, {@code 2d3h}. A negative duration is
   * shown with a leading {@code -}.
   */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      return "-" + format(duration.negated());
    }
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0s";
    }
    if (millis < 1_000) {
      return millis + "ms";
    }
    if (millis < 10_000) {
      long tenths = millis / 100;
      return tenths % 10 == 0 ? (tenths / 10) + "s" : (tenths / 10) + "." + (tenths % 10) + "s";
    }
    long seconds = duration.toSeconds();
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3_600) {
      return twoUnits(seconds / 60, "m", seconds % 60, "s");
    }
    if (seconds < 86_400) {
      return twoUnits(seconds / 3_600, "h", (seconds % 3_600) / 60, "m");
    }
    return twoUnits(seconds / 86_400, "d", (seconds % 86_400) / 3_600, "h");
  }

  private static String twoUnits(long major, String majorUnit, long minor, String minorUnit) {
    return minor == 0 ? major + majorUnit : major + majorUnit + minor + minorUnit;
  }
}
