package dev.capstan.common;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import org.jspecify.annotations.Nullable;

/**
 * Object trees as Capstan holds documents and Kubernetes objects: maps with string keys (in
 * insertion order), lists, strings, booleans, numbers and nulls, nested at most {@link #MAX_DEPTH}
 * levels. The one home of copying, freezing, reading and comparing them, for every module.
 *
 * <ul>
 *   <li>{@link #copyObject} copies a manifest as given (a null field is an absent field);
 *   <li>{@link #depthProblem} checks the depth bound without recursing, for a tree of any depth;
 *   <li>{@link #freeze} copies a document and normalises its numbers, so that a tree read from YAML
 *       equals the same tree read from JSON ({@link #sameValue} compares decimals by value);
 *   <li>{@link #at} and its typed forms read a value at a path, {@code null} where a step is
 *       missing or not a mapping; {@link #get} and {@link #with} take a dotted path.
 * </ul>
 */
public final class Trees {
  /** The deepest nesting a tree may have; deeper input is refused, never recursed into. */
  public static final int MAX_DEPTH = 128;

  private Trees() {}

  /**
   * Returns a deep, unmodifiable copy of an object (a map with string keys): fields whose value is
   * {@code null} are left out, as the API server and the canonical JSON treat them; {@code Short}
   * becomes {@code Integer} and {@code Float} becomes {@code Double}; other numbers are kept.
   *
   * @param object the object
   * @param at the path of {@code object}, for messages ({@code ""} for the root)
   * @return the copy
   * @throws IllegalArgumentException naming the path of a value that is no JSON value, a key that
   *     is not a string, or nesting deeper than {@link #MAX_DEPTH}
   */
  public static Map<String, Object> copyObject(Map<?, ?> object, String at) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = (Map<String, Object>) requireNonNull(new Copy(at).copy(object, 0));
    return copy;
  }

  /**
   * One {@link #copyObject}: the keys and indexes down to the value being copied are kept as it
   * descends, and a path is written out only for a message, never for a value copied well.
   */
  private static final class Copy {
    private final String at;
    private final @Nullable String[] keys = new String[MAX_DEPTH + 1];
    private final int[] indexes = new int[MAX_DEPTH + 1];

    Copy(String at) {
      this.at = at;
    }

    @Nullable Object copy(@Nullable Object value, int depth) {
      if (depth > MAX_DEPTH) {
        throw new IllegalArgumentException(tooDeep(path(depth)));
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
                where(path(depth)) + ": keys must be strings: " + Escapes.quote(e.getKey()));
          }
          if (e.getValue() != null) {
            keys[depth] = key;
            out.put(key, copy(e.getValue(), depth + 1));
          }
        }
        return Collections.unmodifiableMap(out);
      }
      if (value instanceof List<?> list) {
        List<Object> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
          keys[depth] = null;
          indexes[depth] = i;
          out.add(copy(list.get(i), depth + 1));
        }
        return Collections.unmodifiableList(out);
      }
      throw new IllegalArgumentException(
          where(path(depth))
              + " must be a string, number, boolean, null, list or mapping: a "
              + value.getClass().getSimpleName());
    }

    /** The path of the value at {@code depth}, as {@link #field} and list indexes write it. */
    private String path(int depth) {
      String path = at;
      for (int d = 0; d < depth; d++) {
        String key = keys[d];
        path = key != null ? field(path, key) : path + "[" + indexes[d] + "]";
      }
      return path;
    }
  }

  private static String where(String at) {
    return at.isEmpty() ? "object" : at;
  }

  /** The path of field {@code key} of the mapping at {@code at}, the key escaped. */
  private static String field(String at, String key) {
    return at.isEmpty() ? Escapes.escape(key) : at + "." + Escapes.escape(key);
  }

  private static String tooDeep(String at) {
    return where(at) + ": nested deeper than " + MAX_DEPTH + " levels";
  }

  /**
   * Tells whether a tree nests deeper than {@link #MAX_DEPTH} levels, as {@link #copyObject} would
   * refuse it, without recursing: any depth can be checked, and the walk stops at the first value
   * too deep (in document order), so it never goes further than {@link #MAX_DEPTH} levels down.
   *
   * @param tree the tree: maps, lists and scalars
   * @param at the path of {@code tree}, for the message ({@code ""} for the root)
   * @return the problem as {@link #copyObject} words it, naming the first value too deep: {@code
   *     spec.manifests[0].data.a: nested deeper than 128 levels}; null when there is none
   */
  public static @Nullable String depthProblem(@Nullable Object tree, String at) {
    Deque<Level> open = new ArrayDeque<>();
    Level root = Level.of(tree, at);
    if (root != null) {
      open.push(root);
    }
    while (!open.isEmpty()) {
      Level level = requireNonNull(open.peek());
      if (!level.children.hasNext()) {
        open.pop();
        continue;
      }
      Object child = level.children.next();
      Object value;
      String path;
      if (level.mapping) {
        Map.Entry<?, ?> e = (Map.Entry<?, ?>) child;
        value = e.getValue();
        if (value == null) {
          continue; // left out of a copy, as absent
        }
        path = field(level.at, String.valueOf(e.getKey()));
      } else {
        value = child;
        path = level.at + "[" + level.index++ + "]";
      }
      if (open.size() > MAX_DEPTH) {
        return tooDeep(path);
      }
      Level nested = Level.of(value, path);
      if (nested != null) {
        open.push(nested);
      }
    }
    return null;
  }

  /** A mapping or a list {@link #depthProblem} walks: its path and the children it has left. */
  private static final class Level {
    final String at;
    final boolean mapping;
    final Iterator<?> children;
    int index;

    private Level(String at, boolean mapping, Iterator<?> children) {
      this.at = at;
      this.mapping = mapping;
      this.children = children;
    }

    static @Nullable Level of(@Nullable Object value, String at) {
      if (value instanceof Map<?, ?> map) {
        return new Level(at, true, map.entrySet().iterator());
      }
      if (value instanceof List<?> list) {
        return new Level(at, false, list.iterator());
      }
      return null;
    }
  }

  /**
   * Returns a deep, unmodifiable copy of a document tree with its numbers normalised: whole numbers
   * become {@code Long} (or {@code BigInteger} beyond it), finite {@code Double}s and {@code
   * Float}s become {@code BigDecimal}s of their text; nulls are kept.
   *
   * @param node a tree from a YAML or JSON reader, or built by hand
   * @return the frozen copy
   * @throws IllegalArgumentException when a mapping key is not a string
   */
  public static @Nullable Object freeze(@Nullable Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, @Nullable Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new IllegalArgumentException(
              "mapping keys must be strings: " + Escapes.quote(e.getKey()));
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
   * Returns {@link #freeze} of a mapping.
   *
   * @param map a mapping tree
   * @return its frozen copy
   */
  @SuppressWarnings("unchecked")
  public static Map<String, @Nullable Object> freezeMap(
      Map<String, ? extends @Nullable Object> map) {
    return (Map<String, @Nullable Object>) requireNonNull(freeze(map));
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
    return sameValue(a, b, Trees::sameDecimalOrEqual);
  }

  /**
   * Tells whether two trees hold the same values: mappings key by key, lists item by item, and the
   * scalars (neither null) as {@code sameScalar} tells.
   *
   * @param a one tree
   * @param b another
   * @param sameScalar whether two non-null scalars are equal
   * @return true when they are equal
   */
  public static boolean sameValue(
      @Nullable Object a, @Nullable Object b, BiPredicate<Object, Object> sameScalar) {
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (!ma.keySet().equals(mb.keySet())) {
        return false;
      }
      for (Map.Entry<?, ?> e : ma.entrySet()) {
        if (!sameValue(e.getValue(), mb.get(e.getKey()), sameScalar)) {
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
        if (!sameValue(la.get(i), lb.get(i), sameScalar)) {
          return false;
        }
      }
      return true;
    }
    if (a == null || b == null) {
      return a == b;
    }
    return sameScalar.test(a, b);
  }

  private static boolean sameDecimalOrEqual(Object a, Object b) {
    if (a instanceof Number na && b instanceof Number nb && decimal(na) && decimal(nb)) {
      return new BigDecimal(na.toString()).compareTo(new BigDecimal(nb.toString())) == 0;
    }
    return Objects.equals(a, b);
  }

  private static boolean decimal(Number n) {
    return n instanceof BigDecimal || n instanceof Long || n instanceof BigInteger;
  }

  /**
   * Renders a value for an error message: strings in single quotes with control characters escaped
   * ({@link Escapes#quote}), mappings and lists by their shape, everything else as is.
   *
   * @param value the offending value
   * @return for example {@code 'v1 beta'}, {@code 1.5} or {@code a mapping}
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

  /**
   * Names a value by its shape alone, for a message that must not show it (a Secret's): {@code a
   * mapping}, {@code a list}, {@code a string}, {@code an empty string}, {@code a number}, {@code a
   * boolean} or {@code null}.
   *
   * @param value the offending value
   * @return its shape
   */
  public static String shape(@Nullable Object value) {
    if (value instanceof String s) {
      return s.isEmpty() ? "an empty string" : "a string";
    }
    if (value instanceof Map<?, ?>) {
      return "a mapping";
    }
    if (value instanceof List<?>) {
      return "a list";
    }
    if (value instanceof Number) {
      return "a number";
    }
    if (value instanceof Boolean) {
      return "a boolean";
    }
    return String.valueOf(value);
  }

  /**
   * Returns the value at {@code path}.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the value, or {@code null} when a step is missing or not a mapping
   */
  public static @Nullable Object at(Map<?, ?> root, String... path) {
    Object current = root;
    for (String step : path) {
      if (!(current instanceof Map<?, ?> map)) {
        return null;
      }
      current = map.get(step);
    }
    return current;
  }

  /**
   * Returns the string at {@code path}.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the string, or {@code null} when absent or not a string
   */
  public static @Nullable String string(Map<?, ?> root, String... path) {
    return at(root, path) instanceof String s ? s : null;
  }

  /**
   * Returns the string at {@code path}, or {@code ""}.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the string, {@code ""} when absent or not a string
   */
  public static String text(Map<?, ?> root, String... path) {
    String s = string(root, path);
    return s == null ? "" : s;
  }

  /**
   * Returns the whole number at {@code path}.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the number ({@link Number#longValue}), or {@code null} when absent or not a number
   */
  public static @Nullable Long number(Map<?, ?> root, String... path) {
    return at(root, path) instanceof Number n ? n.longValue() : null;
  }

  /**
   * Returns the whole number at {@code path}, or {@code fallback}.
   *
   * @param root the tree
   * @param fallback the value when absent or not a number
   * @param path the keys, outermost first
   * @return the number
   */
  public static long number(Map<?, ?> root, long fallback, String... path) {
    Long n = number(root, path);
    return n == null ? fallback : n;
  }

  /**
   * Returns the mapping at {@code path}.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the mapping, or {@code null} when absent or not a mapping
   */
  public static @Nullable Map<?, ?> map(Map<?, ?> root, String... path) {
    return at(root, path) instanceof Map<?, ?> m ? m : null;
  }

  /**
   * Returns the mappings in the list at {@code path}, other elements skipped.
   *
   * @param root the tree
   * @param path the keys, outermost first
   * @return the mappings, empty when there is no list
   */
  public static List<Map<?, ?>> maps(Map<?, ?> root, String... path) {
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

  /**
   * Returns the value at a dotted path ({@code spec.template.metadata}).
   *
   * @param tree the tree
   * @param dottedPath the keys joined by {@code .}
   * @return the value, or {@code null} when a step is missing or not a mapping
   */
  public static @Nullable Object get(Map<String, Object> tree, String dottedPath) {
    return at(tree, dottedPath.split("\\.", -1));
  }

  /**
   * Returns a copy of {@code tree} with the value at a dotted path set, creating mappings on the
   * way, or removed when {@code value} is {@code null}. The maps on the path are new; the rest is
   * shared.
   *
   * @param tree the tree
   * @param dottedPath the keys joined by {@code .}
   * @param value the new value, or {@code null} to remove it
   * @return the changed copy
   */
  public static Map<String, Object> with(
      Map<String, Object> tree, String dottedPath, @Nullable Object value) {
    return with(tree, dottedPath.split("\\.", -1), 0, value);
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
