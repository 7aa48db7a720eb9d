package dev.capstan.common.health;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Compiles {@link HealthRule}s, a port with one implementation: the {@code release-cel} module's
 * (CEL), found on the class path with {@link ServiceLoader}, so a host that writes no rule does not
 * carry CEL and its dependencies. The rules it compiles are the caller's over its shipped defaults
 * (ARCHITECTURE.md, "Health rules in CEL"): a user's rule before a shipped one, either before the
 * built-in rules.
 */
public interface HealthRuleCompiler {
  /**
   * The rules, compiled and type-checked, over the shipped defaults; the first of {@code rules} of
   * the most specific kind wins.
   *
   * @throws InvalidHealthRulesException listing each bad expression with its rule, field and
   *     position ({@code healthRules[0] (example.com/Widget).current: 1:6: undeclared reference to
   *     'slf'}), or a rule whose estimated cost is over the limit
   */
  CustomHealth compile(List<HealthRule> rules);

  /** The compiler on the class path, if any. */
  static Optional<HealthRuleCompiler> installed() {
    return Installed.COMPILER;
  }

  /**
   * {@code rules} compiled by the installed compiler (with its shipped defaults); without one, no
   * rule ({@link CustomHealth#none()}) when {@code rules} is empty.
   *
   * @throws IllegalArgumentException when {@code rules} holds a rule and no compiler is installed,
   *     saying which module to add
   * @throws InvalidHealthRulesException when a rule does not compile
   */
  static CustomHealth compileInstalled(List<HealthRule> rules) {
    Optional<HealthRuleCompiler> compiler = installed();
    if (compiler.isPresent()) {
      return compiler.get().compile(rules);
    }
    if (!rules.isEmpty()) {
      throw new IllegalArgumentException(
          "healthRules: "
              + rules.size()
              + " rule(s) given, but no health rule compiler is on the class path; add the"
              + " dev.capstan:release-cel module (the capstan command and controller include it)");
    }
    return CustomHealth.none();
  }

  /** The compiler found once. */
  final class Installed {
    static final Optional<HealthRuleCompiler> COMPILER =
        ServiceLoader.load(HealthRuleCompiler.class, HealthRuleCompiler.class.getClassLoader())
            .findFirst();

    private Installed() {}
  }
}
