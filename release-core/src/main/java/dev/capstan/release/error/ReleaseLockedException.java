package dev.capstan.release.error;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Another holder has the operation lease on the release; nothing was written. The message names the
 * holder, when it last renewed the lease (when the store knows) and when the lease expires,
 * relative to the instant the lease was checked, e.g. {@code release shop/web is locked by
 * host-a/pid 4242/1a2b3c4d (renewed 3 s ago, expires in 12 s); pass --wait (waitForLease) to queue
 * behind it}. A lease found expired but not yet taken over says its holder may be dead.
 */
public final class ReleaseLockedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  private final String release;
  private final String holder;
  private final @Nullable Instant renewedAt;
  private final Instant expiresAt;

  /** An exception naming the release ({@code namespace/name}), the holder and the lease expiry. */
  public ReleaseLockedException(String release, String holder, Instant expiresAt) {
    this(release, holder, null, expiresAt, null);
  }

  /**
   * An exception naming the release ({@code namespace/name}), the holder, its last renewal and the
   * lease expiry, the last two told relative to {@code now}.
   *
   * @param renewedAt when the holder last renewed (or took) the lease, {@code null} if unknown
   * @param now when the lease was checked, {@code null} to give the expiry as an instant
   */
  public ReleaseLockedException(
      String release,
      String holder,
      @Nullable Instant renewedAt,
      Instant expiresAt,
      @Nullable Instant now) {
    super(message(release, holder, renewedAt, expiresAt, now));
    this.release = release;
    this.holder = holder;
    this.renewedAt = renewedAt;
    this.expiresAt = expiresAt;
  }

  private static String message(
      String release,
      String holder,
      @Nullable Instant renewedAt,
      Instant expiresAt,
      @Nullable Instant now) {
    String head = "release " + release + " is locked by " + holder;
    if (now == null) {
      return head + " until " + expiresAt + "; pass --wait (waitForLease) to queue behind it";
    }
    String renewed = renewedAt == null ? "" : "renewed " + ago(renewedAt, now) + " ago, ";
    if (!now.isBefore(expiresAt)) {
      return head
          + " ("
          + renewed
          + "expired "
          + ago(expiresAt, now)
          + " ago: the holder may be dead; the next cast takes the lease over)";
    }
    long left = (Duration.between(now, expiresAt).toMillis() + 999) / 1000;
    return head
        + " ("
        + renewed
        + "expires in "
        + left
        + " s); pass --wait (waitForLease) to queue behind it";
  }

  private static String ago(Instant then, Instant now) {
    return Math.max(0, Duration.between(then, now).toSeconds()) + " s";
  }

  /** The release, {@code namespace/name}. */
  public String release() {
    return release;
  }

  /** Who holds the lease. */
  public String holder() {
    return holder;
  }

  /**
   * When the holder last renewed (or took) the lease, or {@code null} when the store cannot say.
   */
  public @Nullable Instant renewedAt() {
    return renewedAt;
  }

  /** When the lease lapses. */
  public Instant expiresAt() {
    return expiresAt;
  }
}
