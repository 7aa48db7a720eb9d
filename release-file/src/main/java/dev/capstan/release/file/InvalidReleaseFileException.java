package dev.capstan.release.file;

import dev.capstan.release.error.ReleaseException;
import java.util.List;

/** A release file is not valid; {@link #problems()} lists every problem with its path. */
public final class InvalidReleaseFileException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** Every problem, each naming its path. */
  @SuppressWarnings("serial") // an immutable List.copyOf list
  private final List<String> problems;

  /** The file's name. */
  private final String source;

  /** An exception for {@code source} listing {@code problems}. */
  public InvalidReleaseFileException(String source, List<String> problems) {
    super(message(source, problems));
    this.source = source;
    this.problems = List.copyOf(problems);
  }

  private static String message(String source, List<String> problems) {
    if (problems.size() == 1) {
      return source + ": " + problems.get(0);
    }
    StringBuilder sb =
        new StringBuilder(source).append(": ").append(problems.size()).append(" problems:");
    problems.forEach(p -> sb.append("\n  - ").append(p));
    return sb.toString();
  }

  /** The file's name. */
  public String source() {
    return source;
  }

  /** Every problem, each naming its path. */
  public List<String> problems() {
    return problems;
  }
}
