package dev.capstan.update;

import java.util.List;
import java.util.Objects;

/**
 * Bad input: every problem found in one document or option set, each naming its field (with its
 * path), the rule and the bad value. Thrown before anything is written.
 */
public class InvalidInputException extends UpdateException {
  private static final long serialVersionUID = 1L;

  private final String what;

  @SuppressWarnings("serial") // an unmodifiable copy (List.copyOf), which is serializable
  private final List<String> problems;

  /**
   * Creates the exception.
   *
   * @param what what was being read, for example {@code release manifest platform-manifest.yaml}
   * @param problems one line per problem, never empty
   */
  public InvalidInputException(String what, List<String> problems) {
    super(message(what, problems));
    this.what = what;
    this.problems = List.copyOf(problems);
  }

  /**
   * Returns what was being read.
   *
   * @return for example {@code release manifest platform-manifest.yaml}
   */
  public String what() {
    return what;
  }

  /**
   * Returns every problem found, in document order.
   *
   * @return one line per problem, each naming the field path, the rule and the value
   */
  public List<String> problems() {
    return problems;
  }

  private static String message(String what, List<String> problems) {
    Objects.requireNonNull(what, "what");
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid-input error needs at least one problem");
    }
    if (problems.size() == 1) {
      return "invalid " + what + ": " + problems.get(0);
    }
    StringBuilder sb =
        new StringBuilder("invalid ")
            .append(what)
            .append(": ")
            .append(problems.size())
            .append(" problems:");
    for (String p : problems) {
      sb.append("\n  - ").append(p);
    }
    return sb.toString();
  }
}
