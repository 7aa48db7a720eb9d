package dev.capstan.cel;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Users' compiled rules over the shipped ones: for an object, the most specific of the users' rules
 * that match its kind (the first of equals), else the most specific shipped one.
 */
final class RuleSet implements CustomHealth {
  private final List<CompiledRule> users;
  private final List<CompiledRule> shipped;

  RuleSet(List<CompiledRule> users, List<CompiledRule> shipped) {
    this.users = List.copyOf(users);
    this.shipped = List.copyOf(shipped);
  }

  @Override
  public @Nullable Health judge(Map<String, Object> object) {
    String apiVersion = String.valueOf(object.get("apiVersion"));
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    CompiledRule rule = ruleFor(group, String.valueOf(object.get("kind")));
    return rule == null ? null : rule.judge(object);
  }

  @Override
  public boolean covers(String group, String kind) {
    return ruleFor(group, kind) != null;
  }

  private @Nullable CompiledRule ruleFor(String group, String kind) {
    CompiledRule user = best(users, group, kind);
    return user != null ? user : best(shipped, group, kind);
  }

  private static @Nullable CompiledRule best(List<CompiledRule> rules, String group, String kind) {
    CompiledRule best = null;
    for (CompiledRule r : rules) {
      if (r.rule().matches(group, kind)
          && (best == null || r.rule().specificity() > best.rule().specificity())) {
        best = r;
      }
    }
    return best;
  }
}
