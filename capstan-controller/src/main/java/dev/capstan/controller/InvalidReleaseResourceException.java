package dev.capstan.controller;

import dev.capstan.common.CapstanException;
import java.util.List;

/**
 * A {@code Release}'s spec is not valid: the Release is reported {@code Stalled} with the message,
 * and left until its spec changes.
 */
public final class InvalidReleaseResourceException extends CapstanException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // an immutable List.copyOf list
  private final List<String> problems;

  /** The problems of the Release {@code key}, each naming its field. */
  public InvalidReleaseResourceException(ReleaseKey key, List<String> problems) {
    super(message(key, problems));
    this.problems = List.copyOf(problems);
  }

  private static String message(ReleaseKey key, List<String> problems) {
    String what = "Release " + key;
    if (problems.size() == 1) {
      return what + ": " + problems.get(0);
    }
    return what + ": " + problems.size() + " problems: " + String.join("; ", problems);
  }

  /** Every problem, each naming its field. */
  public List<String> problems() {
    return problems;
  }
}
