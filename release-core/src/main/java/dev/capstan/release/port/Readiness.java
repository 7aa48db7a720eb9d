package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.List;

/** The outcome of waiting for services. */
public sealed interface Readiness {

  /** Every service is ready. */
  static Readiness ready() {
    return Ready.INSTANCE;
  }

  /** A service can not become ready, for {@code reason}. */
  static Readiness failed(ResourceRef service, String reason) {
    return new Failed(service, reason);
  }

  /** The wait ran out with {@code pending} not ready. */
  static Readiness timedOut(List<ResourceRef> pending, Duration after) {
    return new TimedOut(pending, after);
  }

  /** Whether every service is ready. */
  default boolean isReady() {
    return this instanceof Ready;
  }

  /** Why the services are not ready, in words. */
  String describe();

  /** Every service is ready. */
  enum Ready implements Readiness {
    /** The one instance. */
    INSTANCE;

    @Override
    public String describe() {
      return "ready";
    }
  }

  /**
   * A service failed.
   *
   * @param service the service
   * @param reason why, e.g. {@code ImagePullBackOff: ...} or {@code ProgressDeadlineExceeded}
   */
  record Failed(ResourceRef service, String reason) implements Readiness {
    /** Requires both parts. */
    public Failed {
      requireNonNull(service, "service");
      requireNonNull(reason, "reason");
    }

    @Override
    public String describe() {
      return "service " + service.key() + " is not ready: " + reason;
    }
  }

  /**
   * The wait timed out.
   *
   * @param pending the services not ready yet
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
      return "services not ready after "
          + after
          + ": "
          + pending.stream().map(ResourceRef::key).toList();
    }
  }
}
