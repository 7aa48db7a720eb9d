package dev.capstan.release.internal;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Immutable object trees (nested maps, lists, strings, booleans, numbers, nulls), as manifests hold
 * them. Not API.
 */
public final class Trees {
  /** The deepest nesting a tree may have; deeper input is refused, never recursed into. */
  public static final int MAX_DEPTH = 128;

  private Trees() {}

  /**
   * A deep, unmodifiable copy of an object (a map with string keys).
   *
   * @param at the path of {@code object}, for messages
   * @throws IllegalArgumentException naming the path of a value that is no JSON value
   */
  public static Map<String, Object> copyObject(Map<?, ?> object, String at) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = (Map<String, Object>) requireNonNull(copy(object, at, 0));
    return copy;
  }

  private static @Nullable Object copy(@Nullable Object value, String at, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException(
          (at.isEmpty() ? "object" : at) + ": nested deeper than " + MAX_DEPTH + " levels");
    }
    if (value == null
        || value instanceof String
        || value instanceof Boolean
        || value instanceof Integer
        || value instanceof Long
        || value instanceof BigInteger
        || value instanceof BigDecimal
        || value instanceof Double) {
      return value;
    }
    if (value instanceof Short s) {
      return s.intValue();
    }
    if (value instanceof Float f) {
      return f.doubleValue();
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new IllegalArgumentException(
              (at.isEmpty() ? "object" : at)
                  + ": keys must be strings: "
                  + Escapes.quote(e.getKey()));
        }
        if (e.getValue() != null) {
          // a null field is an absent field, as the API server and the canonical JSON treat it
          out.put(key, copy(e.getValue(), at.isEmpty() ? key : at + "." + key, depth + 1));
        }
      }
      return Collections.unmodifiableMap(out);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        out.add(copy(list.get(i), at + "[" + i + "]", depth + 1));
      }
      return Collections.unmodifiableList(out);
    }
    throw new IllegalArgumentException(
        (at.isEmpty() ? "object" : at)
            + " must be a string, number, boolean, null, list or mapping: a "
            + value.getClass().getSimpleName());
  }

  /** An unmodifiable view of a map whose values are already immutable. */
  public static Map<String, Object> freeze(Map<String, Object> map) {
    return Collections.unmodifiableMap(map);
  }

  /** The value at a dotted path, or {@code null} when a step is missing or not a mapping. */
  public static @Nullable Object get(Map<String, Object> tree, String path) {
    Object at = tree;
    for (String step : path.split("\\.", -1)) {
      if (!(at instanceof Map<?, ?> map)) {
        return null;
      }
      at = map.get(step);
    }
    return at;
  }

  /** The string at a dotted path, or {@code null} when absent or not a string. */
  public static @Nullable String string(Map<String, Object> tree, String path) {
    return get(tree, path) instanceof String s ? s : null;
  }

  /**
   * A copy of {@code tree} with the value at the dotted {@code path} set, creating maps on the way;
   * removed when {@code value} is {@code null}.
   */
  public static Map<String, Object> with(
      Map<String, Object> tree, String path, @Nullable Object value) {
    return with(tree, path.split("\\.", -1), 0, value);
  }

  private static Map<String, Object> with(
      Map<String, Object> tree, String[] steps, int i, @Nullable Object value) {
    Map<String, Object> copy = new LinkedHashMap<>(tree);
    if (i == steps.length - 1) {
      if (value == null) {
        copy.remove(steps[i]);
      } else {
        copy.put(steps[i], value);
      }
    } else {
      @SuppressWarnings("unchecked")
      Map<String, Object> child =
          copy.get(steps[i]) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
      copy.put(steps[i], with(child, steps, i + 1, value));
    }
    return copy;
  }
}
