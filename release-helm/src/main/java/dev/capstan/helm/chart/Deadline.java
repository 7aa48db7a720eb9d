package dev.capstan.helm.chart;

import dev.capstan.common.Durations;
import java.time.Duration;

/**
 * One rendering's deadline: its Helm processes together ({@code repo update}, {@code pull}, {@code
 * template}, the values' merge, Helm 4's render without lookup) may take {@link #total()}, each
 * given the time the earlier ones left.
 */
final class Deadline {
  private final Duration total;
  private final long end;

  private Deadline(Duration total, long end) {
    this.total = total;
    this.end = end;
  }

  /** The deadline {@code total} from now. */
  static Deadline after(Duration total) {
    return new Deadline(total, System.nanoTime() + total.toNanos());
  }

  /** How long the whole rendering may take. */
  Duration total() {
    return total;
  }

  /** The time left, zero once it passed. */
  Duration remaining() {
    long left = end - System.nanoTime();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  /** {@code the rendering's deadline (5m for all its Helm processes)}. */
  String describe() {
    return "the rendering's deadline (" + Durations.format(total) + " for all its Helm processes)";
  }
}
