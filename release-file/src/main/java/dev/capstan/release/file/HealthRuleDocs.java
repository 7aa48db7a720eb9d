package dev.capstan.release.file;

import dev.capstan.common.StrictMap;
import dev.capstan.common.StrictMap.Wording;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.common.health.InvalidHealthRulesException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Health rules as documents give them (a release file's and a Release resource's {@code
 * spec.options.healthRules}, the CLI's {@code --health-rules} file): a list of {@code {kind,
 * current, inProgress, failed}}, read strictly and compiled at once, so a bad expression is refused
 * when the rules are loaded, with its position (docs/health-rules.md).
 */
public final class HealthRuleDocs {
  /** The fields of one rule. */
  public static final Set<String> FIELDS =
      StrictMap.fields("kind", "current", "inProgress", "failed");

  private HealthRuleDocs() {}

  /**
   * The rules of {@code elements}, the list at {@code field}; each problem (a bad field, a bad
   * expression with its position, no compiler on the class path) is added to {@code problems},
   * prefixed with {@code field[i]}.
   */
  public static List<HealthRule> read(
      List<@Nullable Object> elements, String field, List<String> problems) {
    List<HealthRule> rules = new ArrayList<>();
    int before = problems.size();
    for (int i = 0; i < elements.size(); i++) {
      String at = field + "[" + i + "]";
      List<String> shape = new ArrayList<>();
      StrictMap m = StrictMap.open(elements.get(i), at, at, FIELDS, shape, Wording.LABELLED);
      if (m == null) {
        problems.addAll(shape);
        continue;
      }
      String kind = m.optionalString("kind");
      String current = m.optionalString("current");
      String inProgress = m.optionalString("inProgress");
      String failed = m.optionalString("failed");
      if (!shape.isEmpty()) {
        problems.addAll(shape);
        continue;
      }
      List<String> wrong = HealthRule.problems(kind, current, inProgress, failed);
      if (!wrong.isEmpty() || kind == null || current == null) {
        wrong.forEach(w -> problems.add(at + ": " + w));
        continue;
      }
      rules.add(new HealthRule(kind, current, inProgress, failed));
    }
    if (problems.size() == before && !rules.isEmpty()) {
      try {
        HealthRuleCompiler.compileInstalled(rules);
      } catch (InvalidHealthRulesException e) {
        // the compiler names each rule healthRules[i]; here it is field[i]
        e.problems().forEach(p -> problems.add(field + p.substring("healthRules".length())));
      } catch (IllegalArgumentException e) {
        problems.add(field + ": " + e.getMessage());
      }
    }
    return rules;
  }
}
