package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.List;

/** The outcome of waiting for objects to be healthy. */
public sealed interface Readiness {

  /** Every object is healthy. */
  static Readiness ready() {
    return Ready.INSTANCE;
  }

  /** An object can not become healthy, for {@code reason}. */
  static Readiness failed(ResourceRef object, String reason) {
    return new Failed(object, reason);
  }

  /** The wait ran out with {@code pending} not ready. */
  static Readiness timedOut(List<ResourceRef> pending, Duration after) {
    return new TimedOut(pending, after);
  }

  /** Whether every object is healthy. */
  default boolean isReady() {
    return this instanceof Ready;
  }

  /** Why the objects are not healthy, in words. */
  String describe();

  /** Every object is healthy. */
  enum Ready implements Readiness {
    /** The one instance. */
    INSTANCE;

    @Override
    public String describe() {
      return "ready";
    }
  }

  /**
   * An object failed.
   *
   * @param object the object
   * @param reason why, e.g. {@code ImagePullBackOff: ...} or {@code ProgressDeadlineExceeded}
   */
  record Failed(ResourceRef object, String reason) implements Readiness {
    /** Requires both parts. */
    public Failed {
      requireNonNull(object, "object");
      requireNonNull(reason, "reason");
    }

    @Override
    public String describe() {
      return object.key() + " is not ready: " + reason;
    }
  }

  /**
   * The wait timed out.
   *
   * @param pending the objects not healthy yet
   * @param after the timeout
   */
  record TimedOut(List<ResourceRef> pending, Duration after) implements Readiness {
    /** Copies the list. */
    public TimedOut {
      pending = List.copyOf(pending);
      requireNonNull(after, "after");
    }

    @Override
    public String describe() {
      return "not ready after " + after + ": " + pending.stream().map(ResourceRef::key).toList();
    }
  }
}
