package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;
import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One entry of an object's {@code status.conditions}: of a Deployment, a Pod, a Job, a
 * CustomResourceDefinition, any custom resource. The API server keeps at most one condition of a
 * type, so {@link #find} (the first of a type) is the one lookup every rule uses.
 *
 * @param type the condition type, e.g. {@code Ready}, {@code Progressing}, {@code Established}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason a one-word CamelCase reason, {@code ""} when none
 * @param message a sentence for people, {@code ""} when none
 */
public record Condition(String type, String status, String reason, String message) {
  /** Validates the fields. */
  public Condition {
    requireNonNull(type, "type");
    requireNonNull(status, "status");
    requireNonNull(reason, "reason");
    requireNonNull(message, "message");
  }

  /**
   * Creates a condition with status {@code True}.
   *
   * @param type the condition type
   * @return the condition
   */
  public static Condition isTrue(String type) {
    return new Condition(type, "True", "", "");
  }

  /**
   * Creates a condition with status {@code False}.
   *
   * @param type the condition type
   * @param reason why
   * @param message the details
   * @return the condition
   */
  public static Condition isFalse(String type, String reason, String message) {
    return new Condition(type, "False", reason, message);
  }

  /**
   * The conditions of an object tree ({@code status.conditions}, nested maps and lists as parsed
   * from JSON or YAML), in the order the object lists them; a missing or non-string field is {@code
   * ""}, an entry that is not a map is skipped.
   *
   * @param object the object
   * @return its conditions, empty when it has none
   */
  public static List<Condition> of(Map<?, ?> object) {
    List<Condition> out = new ArrayList<>();
    for (Map<?, ?> c : Trees.maps(object, "status", "conditions")) {
      out.add(
          new Condition(
              Trees.text(c, "type"),
              Trees.text(c, "status"),
              Trees.text(c, "reason"),
              Trees.text(c, "message")));
    }
    return out;
  }

  /**
   * The first condition of {@code type}.
   *
   * @param conditions the conditions of one object
   * @param type the type looked for
   * @return the condition, or {@code null} when there is none of that type
   */
  public static @Nullable Condition find(List<Condition> conditions, String type) {
    for (Condition c : conditions) {
      if (c.type.equals(type)) {
        return c;
      }
    }
    return null;
  }

  /**
   * Whether the first condition of {@code type} has {@code status}.
   *
   * @param conditions the conditions of one object
   * @param type the type looked for
   * @param status the status, e.g. {@code True}
   * @return false when there is no condition of that type
   */
  public static boolean has(List<Condition> conditions, String type, String status) {
    Condition c = find(conditions, type);
    return c != null && c.status.equals(status);
  }

  /**
   * Tells whether the status is {@code True}.
   *
   * @return true when {@code status} is {@code True}
   */
  public boolean holds() {
    return "True".equals(status);
  }

  /**
   * Tells whether the status is {@code False}.
   *
   * @return true when {@code status} is {@code False}
   */
  public boolean fails() {
    return "False".equals(status);
  }

  /**
   * {@code Reason: message}, escaped, the reason being {@code fallback} when empty.
   *
   * @param fallback the reason to show when the condition has none
   * @return the reason, and the message when there is one
   */
  public String explain(String fallback) {
    String head = escape(reason.isEmpty() ? fallback : reason);
    return message.isEmpty() ? head : head + ": " + escape(message);
  }

  /**
   * {@code Type=Status: Reason: message}, escaped, without the parts that are empty.
   *
   * @return the condition for people
   */
  public String describe() {
    String head = escape(type) + "=" + escape(status);
    String tail = reason.isEmpty() ? "" : ": " + escape(reason);
    return head + tail + (message.isEmpty() ? "" : ": " + escape(message));
  }
}
