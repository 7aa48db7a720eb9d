package dev.capstan.release.port;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ResourceRef;
import org.jspecify.annotations.Nullable;

/**
 * A write was fenced: the object was not what its {@link Precondition} required (it appeared since
 * a create was planned, or it changed, was re-created or was deleted since the observation an
 * update, prune or un-stamp was planned on). Nothing was written.
 */
public final class PreconditionFailedException extends ClusterException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // refs are immutable values; serialising one is not supported
  private final ResourceRef ref;

  @SuppressWarnings(
      "serial") // preconditions are immutable values; serialising one is not supported
  private final Precondition precondition;

  /**
   * An exception for a fenced write.
   *
   * @param operation what was attempted: {@code create}, {@code apply}, {@code delete}, {@code
   *     unstamp}
   * @param ref the object
   * @param precondition what the object had to be
   * @param status the HTTP status, or 0 when there was none
   * @param detail what the cluster said
   * @param cause the underlying error, or {@code null}
   */
  public PreconditionFailedException(
      String operation,
      ResourceRef ref,
      Precondition precondition,
      int status,
      String detail,
      @Nullable Throwable cause) {
    super(
        operation,
        ref.kind().kind(),
        ref.namespace(),
        ref.name(),
        status,
        "precondition " + precondition.describe() + " failed: " + detail,
        cause);
    this.ref = ref;
    this.precondition = precondition;
  }

  /** The object. */
  public ResourceRef ref() {
    return ref;
  }

  /** What the object had to be. */
  public Precondition precondition() {
    return precondition;
  }
}
