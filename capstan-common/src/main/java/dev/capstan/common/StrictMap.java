package dev.capstan.common;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Capstan's one strict binder: one mapping of a document tree (as {@link StrictDocuments} reads
 * it), read into typed values. Every field the mapping holds must be one of the allowed names and
 * every value must have the expected type; nothing is coerced (a number is not a string, {@code
 * "3"} is not an integer). Each violation is added to a shared problem list, with the field's path,
 * the rule and the value, instead of being thrown, so a reader reports every problem together; a
 * read that fails returns the value of an absent field.
 *
 * <p>How a problem is worded is decided here, once, by the {@link Wording} the root was opened with
 * (nested mappings keep it): the update engine's {@link Wording#SENTENCE} ({@code components[2].tag
 * must be a string: 5}) and the release file's {@link Wording#LABELLED} ({@code
 * spec.services[0].replicas: must be an integer: 1.5}).
 */
public final class StrictMap {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_.-]+");

  /** How the problems of a mapping, and of those nested in it, are worded. */
  public enum Wording {
    /**
     * The path, a space and the rule, showing the value as {@link Trees#show} does: {@code
     * components[2].tag must be a string: 5}, {@code components[0].x is not a known field; known
     * fields are name, tag}. A key that is empty or holds other characters than letters, digits,
     * {@code _}, {@code -} and {@code .} is shown quoted: {@code components[2]['a b']}.
     */
    SENTENCE,
    /**
     * The path, a colon and the rule, showing a scalar's value but never a list's or a mapping's:
     * {@code spec.services[0].replicas: must be an integer: 1.5}, {@code spec.colour: unknown
     * field} (an empty string is shown as nothing after the colon); the document itself is named
     * {@code document}. Keys are shown {@link Escapes#escape escaped} after a dot: {@code
     * spec.configMaps[0].data.a b}.
     */
    LABELLED
  }

  private final String path;
  private final Map<String, @Nullable Object> map;
  private final List<String> problems;
  private final Wording wording;

  private StrictMap(
      String path, Map<String, @Nullable Object> map, List<String> problems, Wording wording) {
    this.path = path;
    this.map = map;
    this.problems = problems;
    this.wording = wording;
  }

  /**
   * Returns an ordered, unmodifiable set of field names (the order is how problems list them).
   *
   * @param names the field names
   * @return the set
   */
  public static Set<String> fields(String... names) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(List.of(names)));
  }

  /**
   * Opens a node as a mapping, worded as {@link Wording#SENTENCE}, and reports fields outside
   * {@code allowed} (in document order).
   *
   * @param node the tree node
   * @param path the node's path, empty for the document root
   * @param what how to name the root in a problem, for example {@code the manifest}
   * @param allowed the field names this mapping may hold
   * @param problems where problems are added
   * @return the mapping, or null (with a problem added) when the node is not a mapping
   */
  public static @Nullable StrictMap open(
      @Nullable Object node, String path, String what, Set<String> allowed, List<String> problems) {
    return open(node, path, what, allowed, problems, Wording.SENTENCE);
  }

  /**
   * Opens a node as a mapping and reports fields outside {@code allowed} (in document order).
   *
   * @param node the tree node
   * @param path the node's path, empty for the document root
   * @param what how a {@link Wording#SENTENCE} problem names the root, for example {@code the
   *     manifest} ({@link Wording#LABELLED} calls it {@code document})
   * @param allowed the field names this mapping may hold
   * @param problems where problems are added
   * @param wording how problems are worded, here and in nested mappings
   * @return the mapping, or null (with a problem added) when the node is not a mapping
   */
  @SuppressWarnings("unchecked")
  public static @Nullable StrictMap open(
      @Nullable Object node,
      String path,
      String what,
      Set<String> allowed,
      List<String> problems,
      Wording wording) {
    if (!(node instanceof Map<?, ?> map)) {
      if (wording == Wording.LABELLED) {
        problems.add(labelled(path, "must be a mapping") + emptyString(node));
      } else {
        String name = path.isEmpty() ? what : path;
        problems.add(
            node == null
                ? name + " must be a mapping, found nothing"
                : name + " must be a mapping: " + Trees.show(node));
      }
      return null;
    }
    StrictMap m = new StrictMap(path, (Map<String, @Nullable Object>) map, problems, wording);
    for (String key : m.map.keySet()) {
      if (!allowed.contains(key)) {
        problems.add(
            wording == Wording.LABELLED
                ? labelled(m.field(key), "unknown field")
                : m.field(key)
                    + " is not a known field; known fields are "
                    + String.join(", ", allowed));
      }
    }
    return m;
  }

  /**
   * Adds problems, keeping one per field path: a rule problem about a field already reported (for
   * example with the wrong type) is dropped. A problem's path is its first word.
   *
   * @param problems the problems so far
   * @param more the problems to add
   */
  public static void addPerField(List<String> problems, List<String> more) {
    for (String p : more) {
      String path = pathOf(p);
      if (problems.stream().noneMatch(q -> pathOf(q).equals(path))) {
        problems.add(p);
      }
    }
  }

  private static String pathOf(String problem) {
    int space = problem.indexOf(' ');
    return space < 0 ? problem : problem.substring(0, space);
  }

  private static String labelled(String path, String rule) {
    return (path.isEmpty() ? "document" : path) + ": " + rule;
  }

  /**
   * Returns the number of elements of a list field.
   *
   * @param key the field name
   * @return the list's size; 0 when absent or not a list
   */
  public int size(String key) {
    return map.get(key) instanceof List<?> l ? l.size() : 0;
  }

  /**
   * Returns the path of one of this mapping's fields.
   *
   * @param key the field name
   * @return for example {@code components[2].tag}; how an unusual key is shown depends on the
   *     {@link Wording}
   */
  public String field(String key) {
    if (wording == Wording.LABELLED) {
      return path.isEmpty() ? Escapes.escape(key) : path + "." + Escapes.escape(key);
    }
    if (!PLAIN_KEY.matcher(key).matches()) {
      return path + "[" + Escapes.quote(key) + "]";
    }
    return path.isEmpty() ? key : path + "." + key;
  }

  /**
   * Reports a rule violation of one field.
   *
   * @param key the field name
   * @param rule the rule, for example {@code must match [a-z]+}
   * @param value the offending value, shown as {@link Trees#show} does
   */
  public void problem(String key, String rule, @Nullable Object value) {
    problems.add(line(field(key), rule) + ": " + Trees.show(value));
  }

  /** A problem about the field at {@code at}, worded as this mapping's problems are. */
  private String line(String at, String rule) {
    return wording == Wording.LABELLED ? labelled(at, rule) : at + " " + rule;
  }

  /**
   * Reads an optional string field.
   *
   * @param key the field name
   * @return the value; empty when absent, null or of the wrong type (then a problem is added)
   */
  public String string(String key) {
    String s = optionalString(key);
    return s == null ? "" : s;
  }

  /**
   * Reads an optional string field, telling an absent field from an empty one.
   *
   * @param key the field name
   * @return the value; null when absent, null or of the wrong type (then a problem is added)
   */
  public @Nullable String optionalString(String key) {
    return asString(map.get(key), field(key));
  }

  /** As {@link #asString}, with null a problem too. */
  private @Nullable String requiredString(@Nullable Object v, String at) {
    if (v == null) {
      problems.add(
          wording == Wording.LABELLED
              ? line(at, "must be a string")
              : line(at, "must be a string: ") + Trees.show(null));
      return null;
    }
    return asString(v, at);
  }

  private @Nullable String asString(@Nullable Object v, String at) {
    if (v == null || v instanceof String) {
      return (String) v;
    }
    if (v instanceof Number || v instanceof Boolean) {
      problems.add(
          line(at, "must be a string; quote it to keep the text: \"")
              + Escapes.escape(v.toString())
              + "\"");
    } else if (wording == Wording.LABELLED) {
      problems.add(line(at, "must be a string"));
    } else {
      problems.add(line(at, "must be a string: ") + Trees.show(v));
    }
    return null;
  }

  /**
   * Reads an optional boolean field.
   *
   * @param key the field name
   * @return the value; false when absent or of the wrong type (then a problem is added)
   */
  public boolean bool(String key) {
    Object v = map.get(key);
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (wording == Wording.SENTENCE) {
      problem(key, "must be true or false", v);
    } else {
      problems.add(line(field(key), "must be true or false") + labelledScalar(v, true));
    }
    return false;
  }

  /**
   * Reads an integer field: a whole number from {@link Integer#MIN_VALUE} to {@link
   * Integer#MAX_VALUE}.
   *
   * @param key the field name
   * @param required whether an absent (or null) field is a problem
   * @return the value; null when absent or of the wrong type (then a problem is added)
   */
  public @Nullable Integer integer(String key, boolean required) {
    Object v = map.get(key);
    String at = field(key);
    if (v == null) {
      if (required) {
        problems.add(line(at, "must be an integer"));
      }
      return null;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
      BigInteger n = new BigInteger(v.toString());
      if (n.bitLength() < 32) {
        return n.intValue();
      }
      problems.add(
          line(at, "must be an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE)
              + ": "
              + n);
      return null;
    }
    problems.add(
        line(at, "must be an integer")
            + (wording == Wording.SENTENCE
                ? ": " + Trees.show(v)
                : v instanceof Double || v instanceof Float || v instanceof BigDecimal
                    ? ": " + v
                    : labelledScalar(v, false)));
    return null;
  }

  /** The end of a {@link Wording#LABELLED} mapping problem: {@code ": "} for an empty string. */
  private static String emptyString(@Nullable Object v) {
    return "".equals(v) ? ": " : "";
  }

  /**
   * The end of a {@link Wording#LABELLED} type problem: a string quoted (an empty one as nothing),
   * and, when {@code integers}, an integer as written.
   */
  private static String labelledScalar(Object v, boolean integers) {
    if (v instanceof String s) {
      return s.isEmpty() ? ": " : ": " + Escapes.quote(s);
    }
    if (integers && (v instanceof Integer || v instanceof Long || v instanceof BigInteger)) {
      return ": " + v;
    }
    return "";
  }

  /**
   * Reads an optional nested mapping.
   *
   * @param key the field name
   * @param allowed the field names the nested mapping may hold
   * @return the nested mapping, or null when absent or not a mapping (then a problem is added)
   */
  public @Nullable StrictMap object(String key, Set<String> allowed) {
    Object v = map.get(key);
    return v == null ? null : open(v, field(key), field(key), allowed, problems, wording);
  }

  /**
   * Reads an optional list of mappings.
   *
   * @param key the field name
   * @param allowed the field names each element may hold
   * @return the elements that are mappings, in order, paired with their index
   */
  public List<Element> objects(String key, Set<String> allowed) {
    List<Element> out = new ArrayList<>();
    List<@Nullable Object> list = list(key);
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      StrictMap m = open(item, field(key) + "[" + i + "]", key, allowed, problems, wording);
      if (m != null) {
        out.add(new Element(i, m));
      }
    }
    return out;
  }

  /**
   * Reads an optional list of strings.
   *
   * @param key the field name
   * @return the strings, in order; elements of the wrong type (and null ones) are reported and left
   *     out
   */
  public List<String> strings(String key) {
    List<String> out = new ArrayList<>();
    if (wording == Wording.LABELLED && "".equals(map.get(key))) {
      problems.add(line(field(key), "must be a list: "));
      return out;
    }
    List<@Nullable Object> list = list(key);
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      String at = field(key) + "[" + i + "]";
      String s = requiredString(item, at);
      if (s != null) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * Reads an optional mapping of strings to strings, such as labels or configmap data.
   *
   * @param key the field name
   * @return the entries in document order; a value that is not a string (null included) is reported
   *     and left out
   */
  public Map<String, String> stringMap(String key) {
    Object v = map.get(key);
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    if (!(v instanceof Map<?, ?> entries)) {
      open(v, field(key), field(key), Set.of(), problems, wording);
      return out;
    }
    String at = field(key);
    entries.forEach(
        (k, value) -> {
          String name = String.valueOf(k);
          String s = requiredString(value, child(at, name));
          if (s != null) {
            out.put(name, s);
          }
        });
    return out;
  }

  /** The path of field {@code key} of the mapping at {@code at}. */
  private String child(String at, String key) {
    return new StrictMap(at, Map.of(), problems, wording).field(key);
  }

  /**
   * Tells whether a field is present with a non-null value.
   *
   * @param key the field name
   * @return true when present
   */
  public boolean has(String key) {
    return map.get(key) != null;
  }

  /**
   * Reads an optional list of values of any type, for the caller to read one by one.
   *
   * @param key the field name
   * @return the elements; empty when absent or not a list (then a problem is added)
   */
  @SuppressWarnings("unchecked")
  public List<@Nullable Object> list(String key) {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof List<?> l) {
      return (List<@Nullable Object>) l;
    }
    if (wording == Wording.LABELLED) {
      problems.add(line(field(key), "must be a list"));
    } else {
      problem(key, "must be a list", v);
    }
    return List.of();
  }

  /**
   * One mapping element of a list, with its index.
   *
   * @param index the element's position in the list
   * @param map the element
   */
  public record Element(int index, StrictMap map) {}
}
