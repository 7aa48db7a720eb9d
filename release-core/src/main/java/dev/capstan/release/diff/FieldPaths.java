package dev.capstan.release.diff;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.JsonMappers;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * How a field's path is written for people, in diffs and drift alike: dotted from the object's
 * root, a map key that is a plain word ({@code [A-Za-z0-9_-]+}) after a dot, any other key quoted
 * in brackets ({@code metadata.labels["app.kubernetes.io/name"]}), a list item matched by a key
 * field in brackets ({@code containers[name=web]}).
 */
final class FieldPaths {
  private static final Pattern WORD = Pattern.compile("[A-Za-z0-9_-]+");
  private static final ObjectMapper JSON = JsonMappers.trees();

  private FieldPaths() {}

  /** The path of map key {@code key} under {@code path} ({@code ""} for the root). */
  static String child(String path, String key) {
    String step = WORD.matcher(key).matches() ? key : "[" + jsonString(key) + "]";
    if (path.isEmpty()) {
      return step;
    }
    return step.startsWith("[") ? path + step : path + "." + step;
  }

  /**
   * The path of the list item under {@code path} whose key field {@code field} is {@code value}.
   */
  static String item(String path, String field, Object value) {
    String text = String.valueOf(value);
    return path
        + "["
        + field
        + "="
        + (value instanceof String && WORD.matcher(text).matches() ? text : jsonValue(value))
        + "]";
  }

  /** Whether two scalars are equal; numbers by value ({@code 2} and {@code 2.0}). */
  static boolean sameScalar(Object a, Object b) {
    if (a instanceof Number na && b instanceof Number nb) {
      try {
        return new BigDecimal(na.toString()).compareTo(new BigDecimal(nb.toString())) == 0;
      } catch (NumberFormatException e) {
        return na.equals(nb);
      }
    }
    return a.equals(b);
  }

  static String jsonString(String s) {
    return jsonValue(s);
  }

  private static String jsonValue(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a value as JSON", e);
    }
  }
}
