package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

/**
 * One CustomResourceDefinition in a plan preview ({@code create}, {@code update}, {@code skipped})
 * or in a result (what the cluster did, for example {@code created}, {@code configured}, {@code
 * skipped}, or an error).
 *
 * @param name the CRD's {@code metadata.name}
 * @param action the intent or outcome; empty when the apply failed before one was known
 * @param error what failed; empty on success
 */
public record CrdResult(String name, String action, String error) {

  /** The action of a CRD whose live spec already equals the release's. */
  public static final String SKIPPED = "skipped";

  /** Validates the fields. */
  public CrdResult {
    requireNonNull(name, "name");
    requireNonNull(action, "action");
    requireNonNull(error, "error");
  }

  /**
   * Creates a successful entry.
   *
   * @param name the CRD name
   * @param action the intent or outcome
   * @return the entry
   */
  public static CrdResult of(String name, String action) {
    return new CrdResult(name, action, "");
  }

  /**
   * Creates a failed entry.
   *
   * @param name the CRD name
   * @param action the outcome reached before the failure, or empty
   * @param error what failed
   * @return the entry
   */
  public static CrdResult failed(String name, String action, String error) {
    return new CrdResult(name, action, error);
  }

  /**
   * Tells whether this entry records a failure.
   *
   * @return true when {@code error} is not empty
   */
  public boolean isFailed() {
    return !error.isEmpty();
  }
}
