package dev.capstan.common;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How the Kubernetes API server reads an object's JSON, as far as a writer can know it before it
 * writes: the length of the object's compact JSON form, and the numbers it would not read as
 * written. It reads an integer as a 64-bit integer, or failing that as a 64-bit float (so {@code
 * replicas: 123456789012345678901234567890} is stored as 0 with HTTP 201), and any other number as
 * a 64-bit float (so {@code 1e400} is no number to it); JSON has no NaN or infinity. Both release
 * casts ({@code ApiServerLimits}) and platform updates (their CRD bundles) refuse such a number
 * before any write, with the words of this class (ARCHITECTURE.md, "One home per concept").
 */
public final class ApiJson {
  /** The rule of an integer, as shown in messages. */
  public static final String INTEGER_RULE =
      "must be an integer of at most 64 bits (from "
          + Long.MIN_VALUE
          + " to "
          + Long.MAX_VALUE
          + "): the API server reads a larger one as an inexact float, which an integer field"
          + " stores as 0 or a wrapped value";

  /** The rule of a decimal, as shown in messages. */
  public static final String DECIMAL_RULE =
      "must be a number within a 64-bit float's range (at most "
          + Double.MAX_VALUE
          + " in size), as the API server reads it";

  /** The rule of an environment variable's value, as shown in messages. */
  public static final String ENV_VALUE_RULE =
      "must be a string, as an environment variable's value is; quote it to keep the text";

  /** The field of a container's environment variables. */
  private static final String ENV = "env";

  /** The rule of a float from a host's tree, as shown in messages. */
  public static final String FINITE_RULE = "must be a finite number (JSON has no NaN or infinity)";

  private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigDecimal MIN_INT = BigDecimal.valueOf(Integer.MIN_VALUE);
  private static final BigDecimal MAX_INT = BigDecimal.valueOf(Integer.MAX_VALUE);
  private static final Pattern WORD = Pattern.compile("[A-Za-z0-9_-]+");

  private ApiJson() {}

  /**
   * The rule a number breaks as the API server reads it ({@link #INTEGER_RULE}, {@link
   * #DECIMAL_RULE}, {@link #FINITE_RULE}), or {@code null} when it reads it as written.
   *
   * @param n a number of a tree, as {@link StrictDocuments} reads it or a host builds it
   * @return the rule, or {@code null}
   */
  public static @Nullable String rule(Number n) {
    if (n instanceof BigInteger big) {
      return big.compareTo(MIN_LONG) < 0 || big.compareTo(MAX_LONG) > 0 ? INTEGER_RULE : null;
    }
    if (n instanceof BigDecimal decimal) {
      return Double.isInfinite(decimal.doubleValue()) ? DECIMAL_RULE : null;
    }
    if ((n instanceof Double || n instanceof Float) && !Double.isFinite(n.doubleValue())) {
      return FINITE_RULE;
    }
    return null;
  }

  /**
   * The value of a number beyond 32 bits (below {@code -2147483648} or above {@code 2147483647}),
   * or {@code null} for one within them or not finite: what a 32-bit integer field of the API
   * server would not hold as written.
   *
   * @param n a number of a tree
   * @return its exact value when beyond 32 bits, else {@code null}
   */
  public static @Nullable BigDecimal beyond32Bits(Number n) {
    if (n instanceof Integer || n instanceof Short || n instanceof Byte) {
      return null;
    }
    if (n instanceof Long l) {
      return l == l.intValue() ? null : BigDecimal.valueOf(l);
    }
    BigDecimal value;
    if (n instanceof BigDecimal d) {
      value = d;
    } else if (n instanceof BigInteger i) {
      value = new BigDecimal(i);
    } else if (Double.isFinite(n.doubleValue())) {
      value = BigDecimal.valueOf(n.doubleValue());
    } else {
      return null;
    }
    return value.compareTo(MIN_INT) < 0 || value.compareTo(MAX_INT) > 0 ? value : null;
  }

  /**
   * Whether a tree holds a number beyond 32 bits ({@link #beyond32Bits}) anywhere: the objects a
   * writer asks about the fields such a number would not fit.
   *
   * @param tree the tree
   * @return whether it holds one
   */
  public static boolean holdsNumberBeyond32Bits(@Nullable Object tree) {
    if (tree instanceof Map<?, ?> map) {
      for (Object value : map.values()) {
        if (holdsNumberBeyond32Bits(value)) {
          return true;
        }
      }
      return false;
    }
    if (tree instanceof List<?> list) {
      for (Object value : list) {
        if (holdsNumberBeyond32Bits(value)) {
          return true;
        }
      }
      return false;
    }
    return tree instanceof Number n && beyond32Bits(n) != null;
  }

  /**
   * Lists every number of a tree the API server would not read as written, one line each: {@code
   * at}, the number's path, the rule and the number ({@code crds[0].spec.versions[0].schema... must
   * be an integer of at most 64 bits ...; quote it for a string: 1234...}).
   *
   * @param at how each line begins: {@code "Deployment shop/web: "}, {@code "crds[0]."}
   * @param tree the tree
   * @return one line per number refused, in tree order; empty when there is none
   */
  public static List<String> numberProblems(String at, @Nullable Object tree) {
    List<String> problems = new ArrayList<>();
    new Walk(at, Set.of(), false, problems).length(tree);
    return problems;
  }

  /**
   * One pass over an object (recursion bounded by {@link Trees#MAX_DEPTH} when it was read): the
   * length of its compact JSON form in UTF-8, computed without building it, while every number the
   * API server would not read as written is added to {@code problems} as {@link #numberProblems}
   * words it, and so is an environment variable named as a secret ({@link SecretNames}: an item of
   * a list {@code env} with a {@code name} such as {@code DB_PASSWORD}) whose {@code value} is not
   * a string ({@link #ENV_VALUE_RULE}, never shown: the API server's refusal would quote it).
   *
   * @param at how each problem begins: {@code "Deployment shop/web: "}
   * @param object the object tree
   * @param textFields top-level fields whose values are checked as text elsewhere (a ConfigMap's or
   *     Secret's data): their numbers are not reported here
   * @param hidden whether a number is never shown (a Secret's): {@link Escapes#NOT_SHOWN} instead
   * @param problems where the problems go
   * @return the length of the object's compact JSON, in bytes
   */
  public static long measure(
      String at,
      Map<?, ?> object,
      Collection<String> textFields,
      boolean hidden,
      List<String> problems) {
    return new Walk(at, textFields, hidden, problems).length(object);
  }

  /**
   * The path of a node for a message: {@code spec.ports[1].port}, {@code spec.limits['a.b']} (a key
   * that is no word quoted and escaped).
   *
   * @param steps the keys ({@code String}) and indexes ({@code Integer}) from the root
   * @return the path; empty for the root
   */
  public static String path(List<?> steps) {
    StringBuilder path = new StringBuilder();
    for (Object step : steps) {
      if (step instanceof Integer i) {
        path.append('[').append(i).append(']');
      } else if (WORD.matcher(String.valueOf(step)).matches()) {
        path.append(path.length() == 0 ? "" : ".").append(step);
      } else {
        path.append('[').append(Escapes.quote(step)).append(']');
      }
    }
    return path.toString();
  }

  /** The walk of {@link #measure}, keeping the keys and indexes on the way for a problem's path. */
  private static final class Walk {
    private final String at;
    private final Collection<String> textFields;
    private final boolean hidden;
    private final List<String> problems;

    /** The keys and indexes from the root to the node visited, for a problem's path. */
    private final List<Object> steps = new ArrayList<>();

    /** Above zero while inside a field checked as text. */
    private int inText;

    Walk(String at, Collection<String> textFields, boolean hidden, List<String> problems) {
      this.at = at;
      this.textFields = textFields;
      this.hidden = hidden;
      this.problems = problems;
    }

    long length(@Nullable Object node) {
      if (node instanceof Map<?, ?> map) {
        secretEnvValue(map);
        long n = 2L + Math.max(0, map.size() - 1);
        for (Map.Entry<?, ?> e : map.entrySet()) {
          String key = Objects.toString(e.getKey(), "");
          int skip = steps.isEmpty() && textFields.contains(key) ? 1 : 0;
          steps.add(key);
          inText += skip;
          n += jsonStringLength(key) + 1 + length(e.getValue());
          inText -= skip;
          steps.remove(steps.size() - 1);
        }
        return n;
      }
      if (node instanceof List<?> list) {
        long n = 2L + Math.max(0, list.size() - 1);
        for (int i = 0; i < list.size(); i++) {
          steps.add(i);
          n += length(list.get(i));
          steps.remove(steps.size() - 1);
        }
        return n;
      }
      if (node instanceof String s) {
        return jsonStringLength(s);
      }
      if (node instanceof Number number && inText == 0) {
        String rule = rule(number);
        if (rule != null) {
          problems.add(
              at
                  + path(steps)
                  + " "
                  + rule
                  + "; quote it for a string"
                  + (hidden ? " " + Escapes.NOT_SHOWN : ": " + number));
        }
      }
      return node == null ? 4L : (long) node.toString().length();
    }

    /**
     * Refuses an environment variable named as a secret ({@link SecretNames}) whose value is not a
     * string: the API server's refusal of it would quote the value.
     */
    private void secretEnvValue(Map<?, ?> map) {
      int last = steps.size() - 1;
      if (last >= 1
          && steps.get(last) instanceof Integer
          && ENV.equals(steps.get(last - 1))
          && map.get("name") instanceof String name
          && SecretNames.isSecret(name)
          && map.get("value") != null
          && !(map.get("value") instanceof String)) {
        problems.add(at + path(steps) + ".value " + ENV_VALUE_RULE + " " + Escapes.NOT_SHOWN);
      }
    }
  }

  /**
   * The length of {@code s} as a JSON string in UTF-8: its quotes, each character's UTF-8 bytes and
   * each escape's extra bytes, in one pass.
   */
  private static long jsonStringLength(String s) {
    long n = 2L + s.length();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        n +=
            c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f'
                ? 1
                : 5;
      } else if (c >= 0x80) {
        if (c < 0x800) {
          n += 1;
        } else if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
          n += 2; // four bytes for the pair's two chars
          i++;
        } else {
          n += 2;
        }
      }
    }
    return n;
  }
}
