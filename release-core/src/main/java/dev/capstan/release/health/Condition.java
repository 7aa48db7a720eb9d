package dev.capstan.release.health;

import static dev.capstan.common.Escapes.escape;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One entry of {@code status.conditions}; a missing field is {@code ""}.
 *
 * @param type the condition type, e.g. {@code Ready}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason a one-word CamelCase reason
 * @param message a sentence for people
 */
record Condition(String type, String status, String reason, String message) {

  /** The conditions of an object, in the order the object lists them. */
  static List<Condition> of(Map<?, ?> object) {
    List<Condition> out = new ArrayList<>();
    for (Map<?, ?> c : Tree.maps(object, "status", "conditions")) {
      out.add(
          new Condition(
              Tree.text(c, "type"),
              Tree.text(c, "status"),
              Tree.text(c, "reason"),
              Tree.text(c, "message")));
    }
    return out;
  }

  /** The first condition of {@code type}, or {@code null}. */
  static @Nullable Condition find(List<Condition> conditions, String type) {
    for (Condition c : conditions) {
      if (c.type.equals(type)) {
        return c;
      }
    }
    return null;
  }

  /** Whether the first condition of {@code type} has {@code status}. */
  static boolean has(List<Condition> conditions, String type, String status) {
    Condition c = find(conditions, type);
    return c != null && c.status.equals(status);
  }

  boolean isTrue() {
    return status.equals("True");
  }

  /** {@code Reason: message}, escaped, with {@code fallback} when the reason is empty. */
  String explain(String fallback) {
    String head = escape(reason.isEmpty() ? fallback : reason);
    return message.isEmpty() ? head : head + ": " + escape(message);
  }

  /** {@code Type=Status: Reason: message}, escaped. */
  String describe() {
    String head = escape(type) + "=" + escape(status);
    String tail = reason.isEmpty() ? "" : ": " + escape(reason);
    return head + tail + (message.isEmpty() ? "" : ": " + escape(message));
  }
}
