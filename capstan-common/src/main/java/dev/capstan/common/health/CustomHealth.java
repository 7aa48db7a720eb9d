package dev.capstan.common.health;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Health rules beyond the built-in ones, compiled ({@link HealthRuleCompiler}): users' {@link
 * HealthRule}s over the shipped defaults. {@link HealthRules#of(Map, java.util.List,
 * HealthRules.VolumeBinding, boolean, CustomHealth)} asks them first; a kind they do not cover is
 * judged by the built-in rules.
 */
public interface CustomHealth {
  /**
   * The verdict of the rule that covers {@code object}'s kind, or null when none does. The reason
   * of an in-progress or failed verdict names the rule and what it saw, without the object (the
   * caller prefixes {@code Kind namespace/name: }).
   *
   * @param object the object as read from the API server
   */
  @Nullable Health judge(Map<String, Object> object);

  /** Whether a rule covers objects of {@code group} and {@code kind}. */
  boolean covers(String group, String kind);

  /** No rule: the built-in rules judge every object. */
  static CustomHealth none() {
    return NoRules.INSTANCE;
  }

  /** The rules of {@link #none()}. */
  enum NoRules implements CustomHealth {
    /** The one instance. */
    INSTANCE;

    @Override
    public @Nullable Health judge(Map<String, Object> object) {
      return null;
    }

    @Override
    public boolean covers(String group, String kind) {
      return false;
    }
  }
}
