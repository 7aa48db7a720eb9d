package dev.capstan.controller;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * When a failing Release is tried again: after as long as it has been failing, so the pause doubles
 * from one try to the next (1 s, 2 s, 4 s, ...), at least {@link #FIRST} and at most its interval
 * and {@link #LONGEST}. How long it has been failing comes from the {@code lastTransitionTime} of
 * its {@code Stalled} condition, which the status keeps: a restarted controller goes on with the
 * same pauses instead of starting again at 1 s, and a failure that repeats itself writes nothing to
 * keep count.
 */
final class RetrySchedule {
  /** The first pause. */
  static final Duration FIRST = Duration.ofSeconds(1);

  /** The longest pause, whatever the interval. */
  static final Duration LONGEST = Duration.ofMinutes(5);

  private RetrySchedule() {}

  /**
   * The pause before {@code release} is tried again.
   *
   * @param release the Release as last written (its status holds the Stalled condition)
   * @param interval its interval
   * @param now the time now
   */
  static Duration pause(ReleaseResource release, Duration interval, Instant now) {
    Instant since = stalledSince(release);
    Duration failing = since == null ? Duration.ZERO : Duration.between(since, now);
    Duration longest = interval.compareTo(LONGEST) < 0 ? interval : LONGEST;
    if (failing.compareTo(FIRST) < 0) {
      return FIRST.compareTo(longest) < 0 ? FIRST : longest;
    }
    return failing.compareTo(longest) < 0 ? failing : longest;
  }

  /**
   * The pause before a Release whose release another operation holds looks again: until the lease
   * expires, at least {@link #FIRST} and at most its interval.
   *
   * @param expiresAt when the holder's lease expires
   * @param interval the Release's interval
   * @param now the time now
   */
  static Duration untilUnlocked(Instant expiresAt, Duration interval, Instant now) {
    Duration wait = Duration.between(now, expiresAt);
    return wait.compareTo(interval) > 0 ? interval : wait.compareTo(FIRST) < 0 ? FIRST : wait;
  }

  /**
   * When the Release's {@code Stalled} condition became true, if it is true for the Release's
   * current generation; else null.
   */
  static @Nullable Instant stalledSince(ReleaseResource release) {
    Map<?, ?> stalled = release.condition("Stalled");
    if (stalled == null
        || !"True".equals(stalled.get("status"))
        || !(stalled.get("observedGeneration") instanceof Number n)
        || n.longValue() != release.generation()
        || !(stalled.get("lastTransitionTime") instanceof String at)) {
      return null;
    }
    try {
      return Instant.parse(at);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
