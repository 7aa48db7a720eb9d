package dev.capstan.cel;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An object's tree as CEL takes it: whole numbers as {@code Long} (a {@code BigInteger} too large
 * for one as {@code Double}), other numbers as {@code Double}, maps with string keys, lists; nulls
 * left out (a field set to null reads as absent, as {@code has()} sees it).
 */
final class CelValues {
  private CelValues() {}

  static Map<String, Object> of(Map<String, Object> object) {
    return map(object);
  }

  private static Map<String, Object> map(Map<?, ?> in) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : in.entrySet()) {
      Object v = value(e.getValue());
      if (v != null) {
        out.put(String.valueOf(e.getKey()), v);
      }
    }
    return out;
  }

  private static @Nullable Object value(@Nullable Object v) {
    if (v instanceof Map<?, ?> m) {
      return map(m);
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (Object item : l) {
        Object converted = value(item);
        if (converted != null) {
          out.add(converted);
        }
      }
      return out;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : (Object) b.doubleValue();
    }
    if (v instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    return v;
  }
}
