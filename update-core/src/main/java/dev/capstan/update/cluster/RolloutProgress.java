package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/** Where a Deployment rollout stands, as {@code kubectl rollout status} would say it. */
public sealed interface RolloutProgress {

  /**
   * Returns the kubectl-style message.
   *
   * @return for example {@code deployment "ui" successfully rolled out}
   */
  String message();

  /**
   * The rollout completed.
   *
   * @param message the kubectl-style message
   */
  record Done(String message) implements RolloutProgress {
    /** Validates the fields. */
    public Done {
      requireNonNull(message, "message");
    }
  }

  /**
   * The rollout is still going; poll again.
   *
   * @param message the kubectl-style message
   */
  record Waiting(String message) implements RolloutProgress {
    /** Validates the fields. */
    public Waiting {
      requireNonNull(message, "message");
    }
  }

  /**
   * The rollout failed and will not complete by waiting (progress deadline exceeded).
   *
   * @param message the kubectl-style message
   */
  record Failed(String message) implements RolloutProgress {
    /** Validates the fields. */
    public Failed {
      requireNonNull(message, "message");
    }
  }
}
