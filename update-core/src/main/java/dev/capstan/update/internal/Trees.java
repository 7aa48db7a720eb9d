package dev.capstan.update.internal;

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
 * Plain document trees: maps with string keys (insertion ordered), lists, strings, booleans, longs
 * (or big integers), decimals and nulls, all unmodifiable. Numbers are normalised so that a tree
 * read from YAML equals the same tree read from JSON; decimals are {@link BigDecimal}s that keep
 * their text ({@code 1.10} stays {@code 1.10}), compared by value with {@link #sameValue}.
 */
public final class Trees {
  private Trees() {}

  /**
   * Deep-copies a tree into unmodifiable collections and normalises its numbers.
   *
   * @param node a tree from a YAML or JSON reader, or built by hand
   * @return the frozen copy
   * @throws DocumentSyntaxException when a mapping key is not a string
   */
  public static @Nullable Object freeze(@Nullable Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, @Nullable Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new DocumentSyntaxException("mapping keys must be strings: " + e.getKey());
        }
        out.put(key, freeze(e.getValue()));
      }
      return Collections.unmodifiableMap(out);
    }
    if (node instanceof List<?> list) {
      List<@Nullable Object> out = new ArrayList<>(list.size());
      for (Object item : list) {
        out.add(freeze(item));
      }
      return Collections.unmodifiableList(out);
    }
    if (node instanceof Integer || node instanceof Short || node instanceof Byte) {
      return ((Number) node).longValue();
    }
    if (node instanceof BigInteger big) {
      return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }
    if ((node instanceof Double || node instanceof Float)
        && Double.isFinite(((Number) node).doubleValue())) {
      return new BigDecimal(node.toString());
    }
    return node;
  }

  /**
   * Tells whether two frozen trees hold the same values: decimals are compared by value, so {@code
   * 1.10} equals {@code 1.1} and {@code 1.0} equals {@code 1}.
   *
   * @param a one frozen tree
   * @param b another
   * @return true when they are equal
   */
  public static boolean sameValue(@Nullable Object a, @Nullable Object b) {
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (!ma.keySet().equals(mb.keySet())) {
        return false;
      }
      for (Map.Entry<?, ?> e : ma.entrySet()) {
        if (!sameValue(e.getValue(), mb.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      if (la.size() != lb.size()) {
        return false;
      }
      for (int i = 0; i < la.size(); i++) {
        if (!sameValue(la.get(i), lb.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Number na && b instanceof Number nb && decimal(na) && decimal(nb)) {
      return new BigDecimal(na.toString()).compareTo(new BigDecimal(nb.toString())) == 0;
    }
    return java.util.Objects.equals(a, b);
  }

  private static boolean decimal(Number n) {
    return n instanceof BigDecimal || n instanceof Long || n instanceof BigInteger;
  }

  /**
   * Freezes a mapping.
   *
   * @param map a mapping tree
   * @return its frozen copy
   */
  @SuppressWarnings("unchecked")
  public static Map<String, @Nullable Object> freezeMap(
      Map<String, ? extends @Nullable Object> map) {
    return (Map<String, @Nullable Object>) java.util.Objects.requireNonNull(freeze(map));
  }

  /**
   * Renders a scalar for an error message: strings in single quotes with control characters escaped
   * ({@link Escapes#quote}), everything else as is.
   *
   * @param value the offending value
   * @return for example {@code 'v1 beta'} or {@code 1.5}
   */
  public static String show(@Nullable Object value) {
    if (value instanceof String s) {
      return Escapes.quote(s);
    }
    if (value instanceof Map<?, ?>) {
      return "a mapping";
    }
    if (value instanceof List<?>) {
      return "a list";
    }
    return String.valueOf(value);
  }
}
