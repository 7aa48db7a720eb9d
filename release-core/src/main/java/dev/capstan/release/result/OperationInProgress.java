package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What holds a release's operation lease: an operation under way, or, once {@code expiresAt} has
 * passed, one whose holder stopped (the next operation takes the lease over and records what it
 * left).
 *
 * @param holder who holds the lease
 * @param since when it took the lease
 * @param expiresAt when the lease lapses unless renewed
 * @param operation what the holder does ({@link Operation#CAST}, which rollbacks are too, or {@link
 *     Operation#UNINSTALL}), as its lease names it; {@code null} when the lease names nothing (a
 *     store that keeps no lease intents)
 */
public record OperationInProgress(
    String holder, Instant since, Instant expiresAt, @Nullable Operation operation) {
  /** Requires the holder and the times. */
  public OperationInProgress {
    requireNonNull(holder, "holder");
    requireNonNull(since, "since");
    requireNonNull(expiresAt, "expiresAt");
  }

  /** What an operation holding a lease does. */
  public enum Operation {
    /** A cast (a rollback is one too). */
    CAST,
    /** An uninstall. */
    UNINSTALL;

    /** The lower-case name: {@code cast}, {@code uninstall}. */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
