package dev.capstan.common.health;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A health rule a user writes for a kind the built-in rules cannot judge (ARCHITECTURE.md, "Health
 * rules in CEL"): expressions over {@code self}, the object as read, evaluated in the order {@code
 * inProgress}, {@code failed}, {@code current} (as Flux's {@code healthCheckExprs}); the first that
 * holds decides, and while none does the object is in progress. The expressions are compiled by a
 * {@link HealthRuleCompiler} (the {@code release-cel} module, CEL), which refuses a bad one with
 * its position.
 *
 * @param kind the kinds it judges, {@code group/Kind} ({@code Kind} for the core group): {@code
 *     example.com/Widget}; {@code example.com/*} for every kind of a group, {@code *.upbound.io/*}
 *     for every kind of the groups under a domain. The most specific rule for an object judges it
 * @param current the expression that makes the object current (required)
 * @param inProgress the expression that keeps it in progress whatever the others say, or null
 * @param failed the expression that fails it at once, or null
 */
public record HealthRule(
    String kind, String current, @Nullable String inProgress, @Nullable String failed) {

  /** The longest expression taken, in characters. */
  public static final int MAX_EXPRESSION = 4096;

  /**
   * The longest kind taken: a group of at most 253 characters, {@code /}, a kind of at most 63.
   * Checked before the group's pattern, whose matching recurses once per label.
   */
  public static final int MAX_KIND = 317;

  private static final Pattern GROUP =
      Pattern.compile("(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern KIND = Pattern.compile("\\*|[A-Z][A-Za-z0-9]{0,62}");

  /**
   * Checks the kind and the expressions.
   *
   * @throws IllegalArgumentException naming the field, the rule and the escaped value
   */
  public HealthRule {
    List<String> problems = problems(kind, current, inProgress, failed);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** A rule with a {@code current} expression alone. */
  public static HealthRule current(String kind, String current) {
    return new HealthRule(kind, current, null, null);
  }

  /** A copy with {@code inProgress}. */
  public HealthRule withInProgress(@Nullable String inProgress) {
    return new HealthRule(kind, current, inProgress, failed);
  }

  /** A copy with {@code failed}. */
  public HealthRule withFailed(@Nullable String failed) {
    return new HealthRule(kind, current, inProgress, failed);
  }

  /**
   * What is wrong with a rule's fields, one line each ({@code kind must be ...: 'x'}); empty when
   * it is well formed (its expressions are checked when compiled).
   */
  public static List<String> problems(
      @Nullable String kind,
      @Nullable String current,
      @Nullable String inProgress,
      @Nullable String failed) {
    List<String> out = new ArrayList<>();
    if (kind != null && kind.length() > MAX_KIND) {
      out.add(
          "kind must be group/Kind, Kind for the core group, group/* or *.domain/*, of at most "
              + MAX_KIND
              + " characters: "
              + Escapes.quote(kind, 64));
    } else if (kind == null || !validKind(kind)) {
      out.add(
          "kind must be group/Kind, Kind for the core group, group/* or *.domain/*: "
              + Escapes.quote(kind));
    } else if (!HealthRules.hasRule(group(kind), kindName(kind))) {
      out.add(
          "kind "
              + Escapes.quote(kind)
              + " is healthy once applied (the built-in rules never wait for it); a rule cannot"
              + " judge it");
    }
    if (current == null || current.isBlank()) {
      out.add("current must be an expression: " + Escapes.quote(current));
    }
    expression("current", current, out);
    expression("inProgress", inProgress, out);
    expression("failed", failed, out);
    return out;
  }

  private static void expression(String field, @Nullable String text, List<String> out) {
    if (text != null && text.length() > MAX_EXPRESSION) {
      out.add(field + " must be at most " + MAX_EXPRESSION + " characters: " + text.length());
    }
    if (text != null && !field.equals("current") && text.isBlank()) {
      out.add(field + " must be an expression or absent: " + Escapes.quote(text));
    }
  }

  private static boolean validKind(String key) {
    int slash = key.lastIndexOf('/');
    String group = slash < 0 ? "" : key.substring(0, slash);
    String kind = slash < 0 ? key : key.substring(slash + 1);
    return group.length() <= 253
        && KIND.matcher(kind).matches()
        && (slash < 0 ? !kind.equals("*") : GROUP.matcher(group).matches());
  }

  private static String group(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? "" : key.substring(0, slash);
  }

  private static String kindName(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  /** Whether this rule judges objects of {@code group} and {@code kind}. */
  public boolean matches(String group, String kind) {
    requireNonNull(group, "group");
    requireNonNull(kind, "kind");
    String mine = group(this.kind);
    String theirs = kindName(this.kind);
    boolean groupMatches =
        mine.startsWith("*.") ? group.endsWith(mine.substring(1)) : mine.equals(group);
    return groupMatches && (theirs.equals("*") || theirs.equals(kind));
  }

  /**
   * How specific the rule is: 2 for one kind, 1 for every kind of one group, 0 for the groups under
   * a domain. Of the rules that match an object, the most specific judges it.
   */
  public int specificity() {
    return group(kind).startsWith("*.") ? 0 : kindName(kind).equals("*") ? 1 : 2;
  }
}
