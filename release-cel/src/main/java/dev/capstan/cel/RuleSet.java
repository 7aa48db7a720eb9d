package dev.capstan.cel;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Users' compiled rules over the shipped ones: for an object, the most specific of the users' rules
 * that match its kind (the first of equals), else the most specific shipped one. The shipped rules
 * are matched as written and compiled only when one of them judges an object.
 */
final class RuleSet implements CustomHealth {
  private final List<CompiledRule> users;
  private final List<HealthRule> userRules;
  private final List<HealthRule> shipped;
  private final Supplier<List<CompiledRule>> shippedCompiled;
  private final LongSupplier nanoTime;

  RuleSet(
      List<CompiledRule> users,
      List<HealthRule> shipped,
      Supplier<List<CompiledRule>> shippedCompiled,
      LongSupplier nanoTime) {
    this.users = List.copyOf(users);
    this.userRules = this.users.stream().map(CompiledRule::rule).toList();
    this.shipped = List.copyOf(shipped);
    this.shippedCompiled = shippedCompiled;
    this.nanoTime = nanoTime;
  }

  @Override
  public @Nullable Health judge(Map<String, Object> object) {
    String apiVersion = String.valueOf(object.get("apiVersion"));
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String kind = String.valueOf(object.get("kind"));
    int user = best(userRules, group, kind);
    if (user >= 0) {
      return users.get(user).judge(object, nanoTime);
    }
    int shippedRule = best(shipped, group, kind);
    return shippedRule < 0 ? null : shippedCompiled.get().get(shippedRule).judge(object, nanoTime);
  }

  @Override
  public boolean covers(String group, String kind) {
    return best(userRules, group, kind) >= 0 || best(shipped, group, kind) >= 0;
  }

  /** The index of the most specific of {@code rules} matching, the first of equals; or -1. */
  private static int best(List<HealthRule> rules, String group, String kind) {
    int best = -1;
    for (int i = 0; i < rules.size(); i++) {
      HealthRule r = rules.get(i);
      if (r.matches(group, kind) && (best < 0 || r.specificity() > rules.get(best).specificity())) {
        best = i;
      }
    }
    return best;
  }
}
