package dev.capstan.update;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An image build, push or registry probe failed, or the source checkout does not match the release
 * commit. No workload was patched. {@link #published()} lists images pushed before the failure.
 */
public final class ImageBuildException extends UpdateException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // an immutable List.copyOf
  private final List<String> published;

  /**
   * Creates the exception.
   *
   * @param message what failed and why
   * @param published images already pushed when the failure happened
   * @param cause the underlying failure, if any
   */
  public ImageBuildException(String message, List<String> published, @Nullable Throwable cause) {
    super(message, cause);
    this.published = List.copyOf(published);
  }

  /**
   * Creates the exception for a failure before anything was pushed.
   *
   * @param message what failed and why
   */
  public ImageBuildException(String message) {
    this(message, List.of(), null);
  }

  /**
   * Returns the images pushed before the failure.
   *
   * @return image references, in push order
   */
  public List<String> published() {
    return published;
  }
}
