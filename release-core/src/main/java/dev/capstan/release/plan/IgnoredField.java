package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

/**
 * A field of an object that a drift ignore rule ({@code ReleaseOptions.driftIgnore}) leaves to
 * other writers: not reported as drift, and left out of the object when the cast writes it.
 *
 * @param field the field for people: the rule's JSON pointer ({@code /spec/replicas}), or the path
 *     of a field a trusted manager holds ({@code spec.replicas})
 * @param pointer where it is in the object the release applies, as a JSON pointer
 * @param rule the rule that ignores it, as {@code DriftIgnore.describe} names it
 * @param manager the trusted field manager that holds it, for a rule of managers; {@code null} for
 *     a rule of paths, whose field Capstan gives up when it writes the object (server-side apply
 *     keeps its value then, unowned or with whoever else holds it)
 */
public record IgnoredField(
    String field, String pointer, String rule, @org.jspecify.annotations.Nullable String manager) {
  /** Requires the field, pointer and rule. */
  public IgnoredField {
    requireNonNull(field, "field");
    requireNonNull(pointer, "pointer");
    requireNonNull(rule, "rule");
  }

  /** Whether Capstan gives the field up when it writes the object (a rule of paths). */
  public boolean givenUp() {
    return manager == null;
  }

  /** For a plan's text: {@code spec.replicas (set by hpa; rule apps/Deployment: managers hpa)}. */
  public String describe() {
    return field
        + " ("
        + (manager == null ? "" : "set by " + manager + "; ")
        + "rule "
        + rule
        + ")";
  }
}
