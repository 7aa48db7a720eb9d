package dev.capstan.update.internal;

import java.time.Duration;

/** Formats durations the way Go's {@code time.Duration.String} does: {@code 5m0s}, {@code 1.5s}. */
public final class GoDuration {
  private GoDuration() {}

  /**
   * Formats a duration.
   *
   * @param d the duration, zero or positive
   * @return for example {@code 5m0s}, {@code 1h2m3s}, {@code 250ms}, {@code 0s}
   */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      long nanos = d.toNanos();
      if (nanos % 1_000_000 == 0) {
        return nanos / 1_000_000 + "ms";
      }
      return nanos % 1000 == 0 ? nanos / 1000 + "µs" : nanos + "ns";
    }
    StringBuilder sb = new StringBuilder();
    long hours = d.toHours();
    long minutes = d.toMinutesPart();
    if (hours > 0) {
      sb.append(hours).append('h');
    }
    if (hours > 0 || minutes > 0) {
      sb.append(minutes).append('m');
    }
    sb.append(d.toSecondsPart());
    int nanos = d.toNanosPart();
    if (nanos != 0) {
      String frac = String.format("%09d", nanos).replaceAll("0+$", "");
      sb.append('.').append(frac);
    }
    return sb.append('s').toString();
  }
}
