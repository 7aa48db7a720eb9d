package dev.capstan.common;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * A capped exponential backoff with jitter, for retrying transient failures and for polling: the
 * pause before retry {@code n} (1 for the first retry) is {@code b/2 + random(0..b/2)} where {@code
 * b = min(max, initial * 2^(n-1))} ("equal jitter": never less than half the step, so retries
 * spread out without collapsing to zero), and retries stop after {@code attempts} tries in all or
 * when the next pause would end past the {@code budget}. The random source is given, so a test with
 * a seeded one sees exact pauses. Thread-safe when the random source is.
 *
 * @param initial the step before the first retry; positive
 * @param max the cap of a step; at least {@code initial}
 * @param attempts how many tries in all, the first included; at least 1
 * @param budget the longest total pause across the retries of one call; not negative
 * @param random the jitter source
 */
public record Backoff(
    Duration initial, Duration max, int attempts, Duration budget, Random random) {

  /**
   * The default for API calls: 200 ms doubling to at most 5 s, up to 10 tries within 30 s of
   * pauses, so a control plane that is down for 15 s is ridden out.
   */
  public static Backoff defaults() {
    return new Backoff(
        Duration.ofMillis(200), Duration.ofSeconds(5), 10, Duration.ofSeconds(30), new Random());
  }

  /** Checks every part. */
  public Backoff {
    requireNonNull(initial, "initial");
    requireNonNull(max, "max");
    requireNonNull(budget, "budget");
    requireNonNull(random, "random");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException(
          "backoff initial must be positive: " + Durations.format(initial));
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff max must be at least initial ("
              + Durations.format(initial)
              + "): "
              + Durations.format(max));
    }
    if (attempts < 1) {
      throw new IllegalArgumentException("backoff attempts must be at least 1: " + attempts);
    }
    if (budget.isNegative()) {
      throw new IllegalArgumentException("backoff budget must not be negative: " + budget);
    }
  }

  /** This backoff with another budget. */
  public Backoff withBudget(Duration budget) {
    return new Backoff(initial, max, attempts, budget, random);
  }

  /** This backoff with another number of tries. */
  public Backoff withAttempts(int attempts) {
    return new Backoff(initial, max, attempts, budget, random);
  }

  /**
   * The pause before retry {@code retry} (1 for the first), with jitter drawn from the random
   * source.
   *
   * @param retry the retry number, at least 1
   */
  public Duration delay(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry must be at least 1: " + retry);
    }
    long step = initial.toMillis();
    for (int i = 1; i < retry && step < max.toMillis(); i++) {
      step *= 2;
    }
    step = Math.min(step, max.toMillis());
    long half = step / 2;
    long jitter;
    synchronized (random) {
      jitter = half == 0 ? 0 : random.nextLong(half + 1);
    }
    return Duration.ofMillis(step - half + jitter);
  }

  /**
   * The pause before retry {@code retry}, or {@code null} when no retry is left: the tries are used
   * up, or the pause would take the total past the budget.
   *
   * @param retry the retry number, at least 1
   * @param pausedSoFar the pauses already taken for this call
   */
  public @Nullable Duration next(int retry, Duration pausedSoFar) {
    if (retry >= attempts) {
      return null;
    }
    Duration d = delay(retry);
    return pausedSoFar.plus(d).compareTo(budget) > 0 ? null : d;
  }
}
