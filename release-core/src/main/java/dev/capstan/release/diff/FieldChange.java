package dev.capstan.release.diff;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.Trees;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One changed field of an object: where, what it held before and what it will hold after. A field
 * that is absent on one side is {@code null} there. A secret field (a field of a Secret that may
 * hold what it keeps, such as a key of its {@code data}; see {@link ManifestDiff}) holds no value
 * on either side, only the kind of change: {@link #toString()}, the text plan and the JSON plan
 * show it as {@code data.password: (changed)}.
 *
 * @param path where, e.g. {@code spec.template.spec.containers[name=web].image} or {@code
 *     metadata.labels["app.kubernetes.io/name"]}; see {@link ManifestDiff}
 * @param op whether the field is added, removed or replaced
 * @param before the value before (JSON-like: maps, lists, strings, numbers, booleans), or {@code
 *     null} when the field is added or secret
 * @param after the value after, or {@code null} when the field is removed or secret
 * @param secret whether the field holds a secret value, which is never kept
 */
public record FieldChange(
    String path, Op op, @Nullable Object before, @Nullable Object after, boolean secret) {
  private static final ObjectMapper JSON = JsonMappers.trees();

  /** What happens to the field. */
  public enum Op {
    /** The field is new. */
    ADD("+", "added"),
    /** The field goes away. */
    REMOVE("-", "removed"),
    /** The field holds another value. */
    REPLACE("~", "changed");

    private final String symbol;
    private final String word;

    Op(String symbol, String word) {
      this.symbol = symbol;
      this.word = word;
    }

    /** {@code +}, {@code -} or {@code ~}. */
    public String symbol() {
      return symbol;
    }

    /** {@code added}, {@code removed} or {@code changed}. */
    public String word() {
      return word;
    }

    /** The JSON id: {@code add}, {@code remove} or {@code replace}. */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * Requires the path and op; the values must fit the op (a secret field holds none) and are
   * deep-copied.
   */
  public FieldChange {
    requireNonNull(path, "path");
    requireNonNull(op, "op");
    if (secret) {
      if (before != null || after != null) {
        throw new IllegalArgumentException("a secret field change holds no value: " + path);
      }
    } else {
      if ((before == null) != (op == Op.ADD) || (after == null) != (op == Op.REMOVE)) {
        throw new IllegalArgumentException(
            "field change " + path + ": " + op.id() + " needs " + needs(op));
      }
      before = copy(path, before);
      after = copy(path, after);
    }
  }

  private static String needs(Op op) {
    return switch (op) {
      case ADD -> "an after value and no before value";
      case REMOVE -> "a before value and no after value";
      case REPLACE -> "a before and an after value";
    };
  }

  private static @Nullable Object copy(String path, @Nullable Object value) {
    return value == null ? null : Trees.copyObject(Map.of(path, value), "").get(path);
  }

  /** A field that is new. */
  public static FieldChange added(String path, Object after) {
    return new FieldChange(path, Op.ADD, null, after, false);
  }

  /** A field that goes away. */
  public static FieldChange removed(String path, Object before) {
    return new FieldChange(path, Op.REMOVE, before, null, false);
  }

  /** A field that holds another value. */
  public static FieldChange replaced(String path, Object before, Object after) {
    return new FieldChange(path, Op.REPLACE, before, after, false);
  }

  /** A secret field that is added, removed or changed; its values are not kept. */
  public static FieldChange secret(String path, Op op) {
    return new FieldChange(path, op, null, null, true);
  }

  /**
   * {@code path: (changed)} for a secret field, else {@code path: before → after}; values are shown
   * as the diff's text rendering shows them.
   */
  @Override
  public String toString() {
    if (secret) {
      return path + ": (" + op.word() + ")";
    }
    return path
        + ": "
        + (before == null ? "(absent)" : display(before, Integer.MAX_VALUE))
        + " → "
        + (after == null ? "(absent)" : display(after, Integer.MAX_VALUE));
  }

  /**
   * A value as one line of compact JSON, {@linkplain Escapes#escape escaped} for a terminal, cut
   * after {@code maxChars} characters with its length given: {@code "abc…(1234 chars)"}.
   */
  public static String display(Object value, int maxChars) {
    String text;
    try {
      text = JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      text = String.valueOf(value);
    }
    text = Escapes.escape(text);
    return text.length() > maxChars
        ? text.substring(0, maxChars) + "…(" + text.length() + " chars)"
        : text;
  }
}
