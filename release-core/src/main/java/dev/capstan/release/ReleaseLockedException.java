package dev.capstan.release;

import java.time.Instant;

/** Another holder has the operation lease on the release; nothing was written. */
public final class ReleaseLockedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  private final String release;
  private final String holder;
  private final Instant expiresAt;

  /** An exception naming the release ({@code namespace/name}), the holder and the lease expiry. */
  public ReleaseLockedException(String release, String holder, Instant expiresAt) {
    super(
        "release "
            + release
            + " is locked by "
            + holder
            + " until "
            + expiresAt
            + "; try again later, or after the lease expires");
    this.release = release;
    this.holder = holder;
    this.expiresAt = expiresAt;
  }

  /** The release, {@code namespace/name}. */
  public String release() {
    return release;
  }

  /** Who holds the lease. */
  public String holder() {
    return holder;
  }

  /** When the lease lapses. */
  public Instant expiresAt() {
    return expiresAt;
  }
}
