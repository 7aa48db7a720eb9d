package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/**
 * A status condition of a Deployment or a CustomResourceDefinition.
 *
 * @param type for example {@code Progressing}, {@code Established}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason the machine-readable reason, empty when none
 * @param message the human-readable message, empty when none
 */
public record Condition(String type, String status, String reason, String message) {
  /** Validates the fields. */
  public Condition {
    requireNonNull(type, "type");
    requireNonNull(status, "status");
    requireNonNull(reason, "reason");
    requireNonNull(message, "message");
  }

  /**
   * Creates a condition with status {@code True}.
   *
   * @param type the condition type
   * @return the condition
   */
  public static Condition isTrue(String type) {
    return new Condition(type, "True", "", "");
  }

  /**
   * Creates a condition with status {@code False}.
   *
   * @param type the condition type
   * @param reason why
   * @param message the details
   * @return the condition
   */
  public static Condition isFalse(String type, String reason, String message) {
    return new Condition(type, "False", reason, message);
  }

  /**
   * Tells whether the status is {@code True}.
   *
   * @return true when {@code status} is {@code True}
   */
  public boolean holds() {
    return "True".equals(status);
  }

  /**
   * Tells whether the status is {@code False}.
   *
   * @return true when {@code status} is {@code False}
   */
  public boolean fails() {
    return "False".equals(status);
  }
}
