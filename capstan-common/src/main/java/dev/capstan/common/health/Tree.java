package dev.capstan.common.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads fields of an object tree (nested maps and lists as parsed from JSON or YAML). */
final class Tree {
  private Tree() {}

  /** The value at {@code path}, or {@code null} when a step is missing or not a map. */
  static @Nullable Object at(Map<?, ?> root, String... path) {
    Object current = root;
    for (String step : path) {
      if (!(current instanceof Map<?, ?> map)) {
        return null;
      }
      current = map.get(step);
    }
    return current;
  }

  /** The string at {@code path}, or {@code null} when absent or not a string. */
  static @Nullable String string(Map<?, ?> root, String... path) {
    return at(root, path) instanceof String s ? s : null;
  }

  /** The string at {@code path}, or {@code ""}. */
  static String text(Map<?, ?> root, String... path) {
    String s = string(root, path);
    return s == null ? "" : s;
  }

  /** The whole number at {@code path}, or {@code null} when absent or not a number. */
  static @Nullable Long number(Map<?, ?> root, String... path) {
    return at(root, path) instanceof Number n ? n.longValue() : null;
  }

  /** The whole number at {@code path}, or {@code fallback}. */
  static long number(Map<?, ?> root, long fallback, String... path) {
    Long n = number(root, path);
    return n == null ? fallback : n;
  }

  /** The map at {@code path}, or {@code null}. */
  static @Nullable Map<?, ?> map(Map<?, ?> root, String... path) {
    return at(root, path) instanceof Map<?, ?> m ? m : null;
  }

  /** The maps in the list at {@code path} (other elements skipped), empty when there is none. */
  static List<Map<?, ?>> maps(Map<?, ?> root, String... path) {
    List<Map<?, ?>> out = new ArrayList<>();
    if (at(root, path) instanceof List<?> list) {
      for (Object element : list) {
        if (element instanceof Map<?, ?> m) {
          out.add(m);
        }
      }
    }
    return out;
  }
}
