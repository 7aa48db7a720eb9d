package dev.capstan.common;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Capstan's one strict binder: one mapping of a document tree (as {@link StrictDocuments} reads
 * it), read into typed values. Every field the mapping holds must be one of the allowed names and
 * every value must have the expected type; nothing is coerced (a number is not a string, {@code
 * "3"} is not an integer). Each violation is added to a shared problem list, with the field's path,
 * the rule and the value, instead of being thrown, so a reader reports every problem together; a
 * read that fails returns the value of an absent field. The values of a {@link #secretMap} (a
 * Secret's), and those of a {@link #stringMap(String, Predicate)} under a secret key (an
 * environment variable such as {@code DB_PASSWORD}), are the exception: no problem shows them.
 *
 * <p>How a problem is worded is decided here, once, by the {@link Wording} the root was opened with
 * (nested mappings keep it): the update engine's {@link Wording#SENTENCE} ({@code crdChange must be
 * true or false: 'yes'}) and the release file's {@link Wording#LABELLED} ({@code
 * spec.services[0].replicas: must be an integer: 1.5}).
 */
public final class StrictMap {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_.-]+");

  /**
   * How the problems of a mapping, and of those nested in it, are worded: the one place the wording
   * of binding problems is decided.
   */
  public enum Wording {
    /**
     * The path, a space and the rule, showing the value as {@link Trees#show} does: {@code
     * crdChange must be true or false: 'yes'}, {@code components[0].x is not a known field; known
     * fields are name, tag}. A key that is empty or holds other characters than letters, digits,
     * {@code _}, {@code -} and {@code .} is shown quoted: {@code components[2]['a b']}.
     */
    SENTENCE,
    /**
     * The path, a colon and the rule, showing a scalar's value but never a list's or a mapping's:
     * {@code spec.services[0].replicas: must be an integer: 1.5}, {@code spec.colour: unknown
     * field} (an empty string where a mapping or a list of strings belongs is shown as nothing
     * after the colon); the document itself is named {@code document}. Keys are shown {@link
     * Escapes#escape escaped} after a dot: {@code spec.configMaps[0].data.a b}. Problems are listed
     * in document order whatever the order of the reads: a mapping's fields (with what is nested in
     * them), then the required fields it lacks, then its unknown fields.
     */
    LABELLED;

    /** The path of field {@code key} of the mapping at {@code path}. */
    String field(String path, String key) {
      if (this == LABELLED) {
        return path.isEmpty() ? Escapes.escape(key) : path + "." + Escapes.escape(key);
      }
      if (!PLAIN_KEY.matcher(key).matches()) {
        return path + "[" + Escapes.quote(key) + "]";
      }
      return path.isEmpty() ? key : path + "." + key;
    }

    /** A problem of the field at {@code at}: its path and the rule. */
    String problem(String at, String rule) {
      return this == LABELLED ? (at.isEmpty() ? "document" : at) + ": " + rule : at + " " + rule;
    }

    /** A field outside {@code allowed}. */
    String unknown(String at, Set<String> allowed) {
      return this == LABELLED
          ? problem(at, "unknown field")
          : problem(at, "is not a known field; known fields are " + String.join(", ", allowed));
    }

    /**
     * A value of the wrong type at {@code at} that must not be echoed (a Secret's): the rule, then
     * {@link Escapes#NOT_SHOWN} in place of the value, in either wording.
     */
    String wrongType(String at, Type expected, @Nullable Object v, boolean withheld) {
      if (!withheld || v == null) {
        return wrongType(at, expected, v);
      }
      String rule =
          expected == Type.STRING && (v instanceof Number || v instanceof Boolean)
              ? "must be a string; quote it to keep the text"
              : "must be " + expected.words;
      return problem(at, rule) + " " + Escapes.NOT_SHOWN;
    }

    /** A value of the wrong type (or a missing one) at {@code at}. */
    String wrongType(String at, Type expected, @Nullable Object v) {
      if (expected == Type.STRING && (v instanceof Number || v instanceof Boolean)) {
        return problem(at, "must be a string; quote it to keep the text: \"")
            + Escapes.escape(v.toString())
            + "\"";
      }
      String rule = "must be " + expected.words;
      if (this == SENTENCE) {
        return expected == Type.MAPPING && v == null
            ? problem(at, rule + ", found nothing")
            : problem(at, rule) + ": " + Trees.show(v);
      }
      boolean integer = v instanceof Integer || v instanceof Long || v instanceof BigInteger;
      String shown =
          switch (expected) {
            case STRING, LIST -> null;
            case STRING_LIST, MAPPING -> "".equals(v) ? "" : null;
            case INTEGER ->
                v instanceof Double || v instanceof Float || v instanceof BigDecimal
                    ? String.valueOf(v)
                    : quoted(v);
            case BOOLEAN -> integer ? String.valueOf(v) : quoted(v);
          };
      return problem(at, rule) + (shown == null ? "" : ": " + shown);
    }

    /** A string as {@link Escapes#quote} shows it (an empty one as nothing), else null. */
    private static @Nullable String quoted(@Nullable Object v) {
      return v instanceof String s ? (s.isEmpty() ? "" : Escapes.quote(s)) : null;
    }
  }

  /** The types a field is read as. */
  enum Type {
    STRING("a string"),
    INTEGER("an integer"),
    BOOLEAN("true or false"),
    LIST("a list"),
    STRING_LIST("a list"),
    MAPPING("a mapping");

    final String words;

    Type(String words) {
      this.words = words;
    }
  }

  private final String path;
  private final Map<String, @Nullable Object> map;
  private final List<String> keys;
  private final Problems problems;
  private final int[] position;
  private final Wording wording;

  private StrictMap(
      String path,
      Map<String, @Nullable Object> map,
      Problems problems,
      int[] position,
      Wording wording) {
    this.path = path;
    this.map = map;
    this.keys = new ArrayList<>(map.keySet());
    this.problems = problems;
    this.position = position;
    this.wording = wording;
  }

  /**
   * The problem list of one document: in {@link Wording#SENTENCE}, in the order they are found; in
   * {@link Wording#LABELLED}, in document order, each mapping's own fields first, then the required
   * fields it lacks, then its unknown fields.
   */
  private static final class Problems {
    private final List<String> list;
    private final int base;
    private final boolean ordered;
    private final List<int[]> positions = new ArrayList<>();

    Problems(List<String> list, boolean ordered) {
      this.list = list;
      this.base = list.size();
      this.ordered = ordered;
    }

    void add(int[] position, String problem) {
      if (!ordered) {
        list.add(problem);
        return;
      }
      int i = positions.size();
      while (i > 0 && Arrays.compare(positions.get(i - 1), position) > 0) {
        i--;
      }
      positions.add(i, position);
      list.add(base + i, problem);
    }
  }

  /** The position of field {@code key} (a lacking one after all fields), then of {@code more}. */
  private int[] at(String key, int... more) {
    int index = keys.indexOf(key);
    int[] p = Arrays.copyOf(position, position.length + 1 + more.length);
    p[position.length] = index < 0 ? keys.size() : index;
    System.arraycopy(more, 0, p, position.length + 1, more.length);
    return p;
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
  public static @Nullable StrictMap open(
      @Nullable Object node,
      String path,
      String what,
      Set<String> allowed,
      List<String> problems,
      Wording wording) {
    return open(
        node,
        path,
        what,
        allowed,
        new Problems(problems, wording == Wording.LABELLED),
        new int[0],
        wording);
  }

  @SuppressWarnings("unchecked")
  private static @Nullable StrictMap open(
      @Nullable Object node,
      String path,
      String what,
      Set<String> allowed,
      Problems problems,
      int[] position,
      Wording wording) {
    if (!(node instanceof Map<?, ?> map)) {
      String name = path.isEmpty() && wording == Wording.SENTENCE ? what : path;
      problems.add(position, wording.wrongType(name, Type.MAPPING, node));
      return null;
    }
    StrictMap m =
        new StrictMap(path, (Map<String, @Nullable Object>) map, problems, position, wording);
    for (int i = 0; i < m.keys.size(); i++) {
      String key = m.keys.get(i);
      if (!allowed.contains(key)) {
        int[] unknown = Arrays.copyOf(position, position.length + 1);
        unknown[position.length] = m.keys.size() + 1 + i;
        problems.add(unknown, wording.unknown(m.field(key), allowed));
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
   * @return for example {@code components[2].tag}; how an unusual key is shown depends on the
   *     {@link Wording}
   */
  public String field(String key) {
    return wording.field(path, key);
  }

  /**
   * Reports a rule violation of one field.
   *
   * @param key the field name
   * @param rule the rule, for example {@code must match [a-z]+}
   * @param value the offending value, shown as {@link Trees#show} does
   */
  public void problem(String key, String rule, @Nullable Object value) {
    problems.add(at(key), wording.problem(field(key), rule) + ": " + Trees.show(value));
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
    Object v = map.get(key);
    return v == null ? null : string(v, field(key), at(key), false);
  }

  /**
   * {@code v} when it is a string; otherwise null, with a problem (null is one too) that shows the
   * value unless it is {@code withheld}.
   */
  private @Nullable String string(@Nullable Object v, String at, int[] position, boolean withheld) {
    if (v instanceof String s) {
      return s;
    }
    problems.add(position, wording.wrongType(at, Type.STRING, v, withheld));
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
    if (v == null || v instanceof Boolean) {
      return Boolean.TRUE.equals(v);
    }
    problems.add(at(key), wording.wrongType(field(key), Type.BOOLEAN, v));
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
    if (v == null) {
      if (required) {
        problems.add(at(key), wording.problem(field(key), "must be an integer"));
      }
      return null;
    }
    if (!(v instanceof Integer || v instanceof Long || v instanceof BigInteger)) {
      problems.add(at(key), wording.wrongType(field(key), Type.INTEGER, v));
      return null;
    }
    BigInteger n = new BigInteger(v.toString());
    if (n.bitLength() < 32) {
      return n.intValue();
    }
    problems.add(
        at(key),
        wording.problem(
                field(key),
                "must be an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE)
            + ": "
            + n);
    return null;
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
    return v == null ? null : open(v, field(key), field(key), allowed, problems, at(key), wording);
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
    List<@Nullable Object> list = list(key, Type.LIST);
    for (int i = 0; i < list.size(); i++) {
      StrictMap m =
          open(
              list.get(i), field(key) + "[" + i + "]", key, allowed, problems, at(key, i), wording);
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
    List<@Nullable Object> list = list(key, Type.STRING_LIST);
    for (int i = 0; i < list.size(); i++) {
      String s = string(list.get(i), field(key) + "[" + i + "]", at(key, i), false);
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
    return stringMap(key, false);
  }

  /**
   * Reads an optional mapping of strings to secret strings, a Secret's {@code data} or {@code
   * stringData}: as {@link #stringMap}, but no problem shows a value, the mapping's or an entry's;
   * each says {@link Escapes#NOT_SHOWN} in its place ({@code spec.secrets[0].stringData.pin: must
   * be a string; quote it to keep the text (the value is not shown)}).
   *
   * @param key the field name
   * @return the entries in document order; a value that is not a string (null included) is reported
   *     and left out
   */
  public Map<String, String> secretMap(String key) {
    return stringMap(key, name -> true);
  }

  /**
   * Reads an optional mapping of strings to strings of which some are secret by their key, such as
   * environment variables ({@code DB_PASSWORD}, named as {@link SecretNames} says): as {@link
   * #stringMap}, but no problem shows the value of an entry whose key {@code secretKey} accepts;
   * each says {@link Escapes#NOT_SHOWN} in its place, as {@link #secretMap} does. Nor does a
   * problem show the field's own value when it is no mapping: it may hold them.
   *
   * @param key the field name
   * @param secretKey which entries' values are secret, e.g. {@code SecretNames::isSecret}
   * @return the entries in document order; a value that is not a string (null included) is reported
   *     and left out
   */
  public Map<String, String> stringMap(String key, Predicate<String> secretKey) {
    return stringMap(key, secretKey, true);
  }

  private Map<String, String> stringMap(String key, boolean withheld) {
    return stringMap(key, name -> withheld, withheld);
  }

  private Map<String, String> stringMap(
      String key, Predicate<String> secretKey, boolean withheldMapping) {
    Object v = map.get(key);
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    String at = field(key);
    if (!(v instanceof Map<?, ?> entries)) {
      problems.add(at(key), wording.wrongType(at, Type.MAPPING, v, withheldMapping));
      return out;
    }
    int i = 0;
    for (Map.Entry<?, ?> e : entries.entrySet()) {
      String name = String.valueOf(e.getKey());
      String s = string(e.getValue(), wording.field(at, name), at(key, i++), secretKey.test(name));
      if (s != null) {
        out.put(name, s);
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

  /**
   * Reads an optional list of values of any type, for the caller to read one by one.
   *
   * @param key the field name
   * @return the elements; empty when absent or not a list (then a problem is added)
   */
  public List<@Nullable Object> list(String key) {
    return list(key, Type.LIST);
  }

  @SuppressWarnings("unchecked")
  private List<@Nullable Object> list(String key, Type type) {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof List<?> l) {
      return (List<@Nullable Object>) l;
    }
    problems.add(at(key), wording.wrongType(field(key), type, v));
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
