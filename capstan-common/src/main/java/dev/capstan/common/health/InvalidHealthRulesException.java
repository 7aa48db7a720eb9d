package dev.capstan.common.health;

import dev.capstan.common.CapstanException;
import java.util.List;

/**
 * Health rules refused when compiled ({@link HealthRuleCompiler#compile}): each problem names the
 * rule, the field and the position in it ({@code healthRules[0] (example.com/Widget).current: 1:6:
 * undeclared reference to 'slf'}), or the estimated cost over the limit.
 */
public final class InvalidHealthRulesException extends CapstanException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // an immutable list of strings
  private final List<String> problems;

  /** An exception listing {@code problems}, one line each. */
  public InvalidHealthRulesException(List<String> problems) {
    super("health rules refused:\n  - " + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  /** The problems, one line each. */
  public List<String> problems() {
    return problems;
  }
}
