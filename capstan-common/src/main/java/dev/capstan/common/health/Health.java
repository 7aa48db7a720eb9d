package dev.capstan.common.health;

import static java.util.Objects.requireNonNull;

/**
 * The health of one Kubernetes object, as a kstatus-like verdict: {@linkplain Current current}
 * (ready), {@linkplain InProgress in progress} (not ready yet; waiting may cure it) or {@linkplain
 * Failed failed} (waiting will not cure it). {@link HealthRules} computes it from an object's tree.
 */
public sealed interface Health permits Health.Current, Health.InProgress, Health.Failed {

  /**
   * The object is ready.
   *
   * @return the one current verdict
   */
  static Health current() {
    return new Current();
  }

  /**
   * The object is not ready yet, and waiting may cure it.
   *
   * @param reason what it waits for, e.g. {@code Deployment shop/web: 1 of 3 updated replicas are
   *     available}
   * @return the verdict
   */
  static Health inProgress(String reason) {
    return new InProgress(reason);
  }

  /**
   * The object will not become ready by waiting.
   *
   * @param reason why, e.g. {@code Job shop/migrate: BackoffLimitExceeded: Job has reached the
   *     specified backoff limit}
   * @return the verdict
   */
  static Health failed(String reason) {
    return new Failed(reason);
  }

  /**
   * Whether the object is ready.
   *
   * @return true for {@link Current}
   */
  boolean isCurrent();

  /**
   * Whether the object will not become ready by waiting.
   *
   * @return true for {@link Failed}
   */
  boolean isFailed();

  /**
   * One line for a person: {@code Current}, {@code InProgress: reason} or {@code Failed: reason}.
   *
   * @return the verdict and its reason
   */
  String describe();

  /** The object is ready. */
  record Current() implements Health {
    @Override
    public boolean isCurrent() {
      return true;
    }

    @Override
    public boolean isFailed() {
      return false;
    }

    @Override
    public String describe() {
      return "Current";
    }
  }

  /**
   * The object is not ready yet; waiting may cure it.
   *
   * @param reason what it waits for
   */
  record InProgress(String reason) implements Health {
    /** Validates the reason. */
    public InProgress {
      requireNonNull(reason, "reason");
    }

    @Override
    public boolean isCurrent() {
      return false;
    }

    @Override
    public boolean isFailed() {
      return false;
    }

    @Override
    public String describe() {
      return "InProgress: " + reason;
    }
  }

  /**
   * The object will not become ready by waiting.
   *
   * @param reason why
   */
  record Failed(String reason) implements Health {
    /** Validates the reason. */
    public Failed {
      requireNonNull(reason, "reason");
    }

    @Override
    public boolean isCurrent() {
      return false;
    }

    @Override
    public boolean isFailed() {
      return true;
    }

    @Override
    public String describe() {
      return "Failed: " + reason;
    }
  }
}
