package dev.capstan.release.error;

import java.util.List;

/**
 * Bad input, found before anything was written. {@link #problems()} lists every problem, each
 * naming the field, the rule and the value.
 */
public final class InvalidReleaseException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // an immutable List.copyOf list
  private final List<String> problems;

  /** An exception listing {@code problems} for the release {@code release}. */
  public InvalidReleaseException(String release, List<String> problems) {
    super(message(release, problems));
    this.problems = List.copyOf(problems);
  }

  private static String message(String release, List<String> problems) {
    StringBuilder sb =
        new StringBuilder("invalid release ")
            .append(release)
            .append(" (")
            .append(problems.size())
            .append(problems.size() == 1 ? " problem" : " problems")
            .append("; nothing was written):");
    problems.forEach(p -> sb.append("\n  - ").append(p));
    return sb.toString();
  }

  /** Every problem found. */
  public List<String> problems() {
    return problems;
  }
}
