package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

/**
 * One CustomResourceDefinition in a plan preview ({@code create}, {@code update}, {@code skipped},
 * {@code blocked}) or in a result (what the cluster did, for example {@code created}, {@code
 * configured}, {@code skipped}, or an error).
 *
 * @param name the CRD's {@code metadata.name}
 * @param action the intent or outcome; empty when the apply failed before one was known
 * @param error what failed; empty on success
 * @param reason why a preview is {@code blocked} (the safety gate's findings), or which unsafe
 *     change {@link Selection#allowUnsafeCrdChanges()} let through; empty otherwise
 */
public record CrdResult(String name, String action, String error, String reason) {

  /** The action of a CRD whose live spec already equals the release's. */
  public static final String SKIPPED = "skipped";

  /** The preview action of a CRD change the safety gate refuses. */
  public static final String BLOCKED = "blocked";

  /** Validates the fields. */
  public CrdResult {
    requireNonNull(name, "name");
    requireNonNull(action, "action");
    requireNonNull(error, "error");
    requireNonNull(reason, "reason");
  }

  /**
   * Creates an entry without a reason.
   *
   * @param name the CRD name
   * @param action the intent or outcome
   * @param error what failed, or empty
   */
  public CrdResult(String name, String action, String error) {
    this(name, action, error, "");
  }

  /**
   * Creates a preview entry with a reason: {@code blocked}, or an {@code update} let through by
   * {@link Selection#allowUnsafeCrdChanges()}.
   *
   * @param name the CRD name
   * @param action the intent
   * @param reason the gate's findings
   * @return the entry
   */
  public static CrdResult withReason(String name, String action, String reason) {
    return new CrdResult(name, action, "", reason);
  }

  /**
   * Tells whether the safety gate refuses this CRD change.
   *
   * @return true when the action is {@value #BLOCKED}
   */
  public boolean isBlocked() {
    return action.equals(BLOCKED);
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
