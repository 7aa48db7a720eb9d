package dev.capstan.update;

import dev.capstan.common.CapstanException;
import dev.capstan.update.apply.RolloutFailedException;
import dev.capstan.update.plan.UpdateBlockedException;
import org.jspecify.annotations.Nullable;

/**
 * Base of every exception the update engine throws. Unchecked; callers that need to tell failures
 * apart catch the subclasses ({@link InvalidManifestException}, {@link UpdateBlockedException},
 * {@link RolloutFailedException}, ...). A bad input is always rejected before the first write. A
 * failed {@code PlatformCluster} call is a {@link dev.capstan.common.ClusterException}, shared with
 * the release engine; catch {@link CapstanException} for any Capstan failure.
 */
public class UpdateException extends CapstanException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message that names the object, the rule and the bad value.
   *
   * @param message what went wrong
   */
  public UpdateException(String message) {
    super(message);
  }

  /**
   * Creates an exception that wraps a lower-level cause.
   *
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public UpdateException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
