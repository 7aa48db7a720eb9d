package dev.capstan.update.internal;

import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One mapping of a document tree, read strictly: every field it holds must be one of the allowed
 * names, every value must have the expected type, and each violation is added to a shared problem
 * list (with the field's path, the rule and the value) instead of being thrown.
 */
public final class StrictMap {
  private static final java.util.regex.Pattern PLAIN_KEY =
      java.util.regex.Pattern.compile("[A-Za-z0-9_.-]+");

  private final String path;
  private final Map<String, @Nullable Object> map;
  private final List<String> problems;

  private StrictMap(String path, Map<String, @Nullable Object> map, List<String> problems) {
    this.path = path;
    this.map = map;
    this.problems = problems;
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
   * Opens a node as a mapping and reports fields outside {@code allowed} (in document order).
   *
   * @param node the tree node
   * @param path the node's path, empty for the document root
   * @param what how to name the root in a problem, for example {@code the manifest}
   * @param allowed the field names this mapping may hold
   * @param problems where problems are added
   * @return the mapping, or null (with a problem added) when the node is not a mapping
   */
  @SuppressWarnings("unchecked")
  public static @Nullable StrictMap open(
      @Nullable Object node, String path, String what, Set<String> allowed, List<String> problems) {
    if (!(node instanceof Map<?, ?> map)) {
      String name = path.isEmpty() ? what : path;
      problems.add(
          node == null
              ? name + " must be a mapping, found nothing"
              : name + " must be a mapping: " + Trees.show(node));
      return null;
    }
    StrictMap m = new StrictMap(path, (Map<String, @Nullable Object>) map, problems);
    for (String key : m.map.keySet()) {
      if (!allowed.contains(key)) {
        problems.add(
            m.field(key) + " is not a known field; known fields are " + String.join(", ", allowed));
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
   * @return for example {@code components[2].tag}; a key that is empty or holds other characters
   *     than letters, digits, {@code _}, {@code -} and {@code .} is shown quoted and {@link
   *     Escapes#quote escaped}: {@code components[2]['a b']}
   */
  public String field(String key) {
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
   * @param value the offending value
   */
  public void problem(String key, String rule, @Nullable Object value) {
    problems.add(field(key) + " " + rule + ": " + Trees.show(value));
  }

  /**
   * Reads an optional string field.
   *
   * @param key the field name
   * @return the value; empty when absent, null or of the wrong type (then a problem is added)
   */
  public String string(String key) {
    Object v = map.get(key);
    if (v == null) {
      return "";
    }
    if (v instanceof String s) {
      return s;
    }
    problems.add(field(key) + notAString(v));
    return "";
  }

  /**
   * The rest of a problem about a value that should have been a string: for a number or boolean,
   * the hint to quote it, with its text kept as written.
   */
  private static String notAString(@Nullable Object v) {
    if (v instanceof Number || v instanceof Boolean) {
      return " must be a string; quote it to keep the text: \""
          + Escapes.escape(v.toString())
          + "\"";
    }
    return " must be a string: " + Trees.show(v);
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
    problem(key, "must be true or false", v);
    return false;
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
    return v == null ? null : open(v, field(key), field(key), allowed, problems);
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
      StrictMap m = open(list.get(i), field(key) + "[" + i + "]", key, allowed, problems);
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
   * @return the strings, in order; elements of the wrong type are reported and left out
   */
  public List<String> strings(String key) {
    List<String> out = new ArrayList<>();
    List<@Nullable Object> list = list(key);
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      if (item instanceof String s) {
        out.add(s);
      } else {
        problems.add(field(key) + "[" + i + "]" + notAString(item));
      }
    }
    return out;
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

  @SuppressWarnings("unchecked")
  private List<@Nullable Object> list(String key) {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof List<?> l) {
      return (List<@Nullable Object>) l;
    }
    problem(key, "must be a list", v);
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
