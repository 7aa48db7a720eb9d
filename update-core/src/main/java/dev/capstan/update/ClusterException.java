package dev.capstan.update;

import org.jspecify.annotations.Nullable;

/**
 * A {@code PlatformCluster} call failed (API error, timeout, permission). Adapters translate their
 * client exceptions into this one, once, at the adapter edge.
 */
public final class ClusterException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which call failed on which object, and why
   */
  public ClusterException(String message) {
    super(message);
  }

  /**
   * Creates the exception with the client's exception as cause.
   *
   * @param message which call failed on which object, and why
   * @param cause the client exception
   */
  public ClusterException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
