package dev.capstan.update.internal;

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
 * (or big integers), doubles and nulls, all unmodifiable. Numbers are normalised so that a tree
 * read from YAML equals the same tree read from JSON.
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
    if (node instanceof Float || node instanceof BigDecimal) {
      return ((Number) node).doubleValue();
    }
    return node;
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
   * Renders a scalar for an error message: strings in single quotes, everything else as is.
   *
   * @param value the offending value
   * @return for example {@code 'v1 beta'} or {@code 1.5}
   */
  public static String show(@Nullable Object value) {
    if (value instanceof String s) {
      return "'" + s + "'";
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
