package dev.capstan.release.validate;

import dev.capstan.common.ApiJson;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The Kubernetes API server's own limits that a plan can know before it writes, as a pure check
 * over a generic object tree ({@code Map<String, Object>} as parsed from JSON or YAML, with {@code
 * apiVersion}, {@code kind}, {@code metadata} and the kind's fields):
 *
 * <ul>
 *   <li>the object serialized as JSON must be at most {@link #MAX_OBJECT_BYTES} (etcd's default
 *       request limit; the API server answers 413 or times out above it);
 *   <li>a ConfigMap's {@code data} and {@code binaryData} values, or a Secret's decoded {@code
 *       data} and {@code stringData} values, must total at most {@link #MAX_DATA_BYTES};
 *   <li>a ConfigMap's or Secret's values must be strings; a {@code v1} Secret's {@code type} must
 *       be a string, its {@code data} and {@code stringData} mappings, and its {@code data} values
 *       base64 (the API server decodes them into bytes);
 *   <li>label and annotation keys must be {@code [prefix/]name}, the prefix a DNS-1123 subdomain of
 *       at most 253 characters, the name at most 63 characters of {@code [A-Za-z0-9._-]} starting
 *       and ending with an alphanumeric;
 *   <li>label values must be empty or at most 63 such characters;
 *   <li>annotation keys and values must total at most {@link #MAX_ANNOTATION_BYTES};
 *   <li>every number must be one the API server reads as written: an integer within 64 bits, a
 *       decimal within a 64-bit float's range, never NaN or an infinity ({@link ApiJson});
 *   <li>an environment variable named as a secret ({@code DB_PASSWORD}) must have a string value,
 *       which the API server's refusal would otherwise quote.
 * </ul>
 *
 * Each problem names the object ({@code ConfigMap shop/web}), the field, the rule and the value,
 * escaped; the values of a Secret are never shown, only their size.
 */
public final class ApiServerLimits {
  /** The largest object, serialized as JSON: 1.5 MiB, etcd's default request limit. */
  public static final int MAX_OBJECT_BYTES = 3 << 19;

  /** The most data a ConfigMap or Secret may hold: 1 MiB. */
  public static final int MAX_DATA_BYTES = 1 << 20;

  /** The most bytes all annotations of an object may hold, keys and values: 256 KiB. */
  public static final int MAX_ANNOTATION_BYTES = 256 << 10;

  /** The rule of a label or annotation key, as shown in messages. */
  public static final String KEY_RULE =
      "must be [prefix/]name: a DNS-1123 subdomain prefix of at most 253 characters and a name of at"
          + " most 63 characters [A-Za-z0-9._-] starting and ending with an alphanumeric";

  /** The rule of a label value, as shown in messages. */
  public static final String LABEL_VALUE_RULE =
      "must be empty or at most 63 characters [A-Za-z0-9._-] starting and ending with an"
          + " alphanumeric";

  /** The fields of a ConfigMap's or Secret's values, in the order their problems are listed. */
  private static final List<String> DATA_FIELDS = List.of("data", "stringData", "binaryData");

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private ApiServerLimits() {}

  /**
   * Lists every limit the objects of a release break (the typed specs through the manifests they
   * render to), then its hooks'.
   *
   * @param payloads the release's items
   * @return one line per problem, in apply order
   */
  public static List<String> check(Payloads payloads) {
    List<String> problems = new ArrayList<>();
    for (Manifest object : payloads.objects()) {
      problems.addAll(check(object.content()));
    }
    for (Hook hook : payloads.hooks()) {
      problems.addAll(check(hook.object().content()));
    }
    return problems;
  }

  /**
   * Lists every limit an object breaks.
   *
   * @param object the object tree: {@code apiVersion}, {@code kind}, {@code metadata} ({@code
   *     name}, {@code namespace}, {@code labels}, {@code annotations}) and the kind's fields
   * @return one line per problem, empty when the object is within every limit
   */
  public static List<String> check(Map<String, ? extends @Nullable Object> object) {
    return check(object, false);
  }

  /**
   * Lists every limit an object breaks, as {@link #check(Map)} does; when {@code hidden} (an object
   * read from a Secret's text), showing no value of any field, as for a Secret's.
   *
   * @param object the object tree
   * @param hidden whether no value of the object may be shown
   * @return one line per problem, empty when the object is within every limit
   */
  public static List<String> check(Map<String, ? extends @Nullable Object> object, boolean hidden) {
    List<String> problems = new ArrayList<>();
    String kind = text(object.get("kind"));
    boolean secret = "Secret".equals(kind);
    String what = describe(object);
    Map<?, ?> metadata = object.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    boolean coreSecret = secret && "v1".equals(object.get("apiVersion"));
    if (coreSecret) {
      secretShape(object, what, problems);
    }
    if (secret || "ConfigMap".equals(kind)) {
      // the API server refuses a number or boolean here; never coerce it to text
      for (String field : DATA_FIELDS) {
        if (object.get(field) instanceof Map<?, ?> data) {
          for (Map.Entry<?, ?> e : data.entrySet()) {
            String key = text(e.getKey());
            if (!(e.getValue() instanceof String value)) {
              problems.add(
                  what
                      + ": "
                      + field
                      + "["
                      + Escapes.quote(key)
                      + "] must be a string; quote it to keep the text"
                      + (secret || hidden
                          ? " " + Escapes.NOT_SHOWN
                          : ": " + Escapes.quote(e.getValue())));
            } else if (coreSecret && field.equals("data") && !isBase64(value)) {
              problems.add(
                  what + ": data[" + Escapes.quote(key) + "] must be base64 " + Escapes.NOT_SHOWN);
            }
          }
        }
      }
    }
    if (metadata.get("labels") instanceof Map<?, ?> labels) {
      for (Map.Entry<?, ?> e : labels.entrySet()) {
        String key = text(e.getKey());
        String at = what + ": metadata.labels[" + Escapes.quote(key) + "]";
        if (!isKey(key)) {
          problems.add(at + " key " + KEY_RULE + ": " + Escapes.quote(key));
        }
        String value = text(e.getValue());
        if (!value.isEmpty() && (value.length() > 63 || !NAME.matcher(value).matches())) {
          problems.add(
              at
                  + " value "
                  + LABEL_VALUE_RULE
                  + (hidden ? " " + Escapes.NOT_SHOWN : ": " + Escapes.quote(value)));
        }
      }
    }
    if (metadata.get("annotations") instanceof Map<?, ?> annotations) {
      long total = 0;
      for (Map.Entry<?, ?> e : annotations.entrySet()) {
        String key = text(e.getKey());
        if (!isKey(key)) {
          problems.add(
              what
                  + ": metadata.annotations["
                  + Escapes.quote(key)
                  + "] key "
                  + KEY_RULE
                  + ": "
                  + Escapes.quote(key));
        }
        total += utf8Length(key) + utf8Length(text(e.getValue()));
      }
      if (total > MAX_ANNOTATION_BYTES) {
        problems.add(
            what
                + ": metadata.annotations must total at most "
                + MAX_ANNOTATION_BYTES
                + " bytes ("
                + InputLimits.human(MAX_ANNOTATION_BYTES)
                + "), keys and values: "
                + total);
      }
    }
    if ("ConfigMap".equals(kind) || secret) {
      long total = 0;
      for (String field : secret ? List.of("data", "stringData") : List.of("data", "binaryData")) {
        if (object.get(field) instanceof Map<?, ?> data) {
          for (Object value : data.values()) {
            String v = text(value);
            total += secret && field.equals("data") ? base64Decoded(v) : utf8Length(v);
          }
        }
      }
      if (total > MAX_DATA_BYTES) {
        problems.add(
            what
                + ": data must total at most "
                + MAX_DATA_BYTES
                + " bytes ("
                + InputLimits.human(MAX_DATA_BYTES)
                + "): "
                + total
                + (secret ? " (the values are not shown)" : ""));
      }
    }
    long size =
        ApiJson.measure(
            what + ": ",
            object,
            secret || "ConfigMap".equals(kind) ? DATA_FIELDS : List.of(),
            secret || hidden,
            problems);
    if (size > MAX_OBJECT_BYTES) {
      problems.add(
          what
              + ": the object serialized must be at most "
              + MAX_OBJECT_BYTES
              + " bytes (1.5 MiB, the API server's request limit): "
              + size);
    }
    return problems;
  }

  /**
   * The fields of a {@code v1} Secret the API server decodes into types: {@code type} a string,
   * {@code data} and {@code stringData} mappings. No value is shown: any of them may hold one the
   * Secret was meant to keep.
   */
  private static void secretShape(
      Map<String, ? extends @Nullable Object> object, String what, List<String> problems) {
    Object type = object.get("type");
    if (type != null && !(type instanceof String)) {
      problems.add(what + ": type must be a string " + Escapes.NOT_SHOWN);
    }
    for (String field : List.of("data", "stringData")) {
      Object value = object.get(field);
      if (value != null && !(value instanceof Map)) {
        problems.add(what + ": " + field + " must be a mapping " + Escapes.NOT_SHOWN);
      }
    }
  }

  /**
   * Whether the API server decodes {@code text} as a Secret's {@code data} value: standard base64
   * with its padding, line breaks ignored (Go's {@code base64.StdEncoding}).
   */
  static boolean isBase64(String text) {
    String s = text.replace("\n", "").replace("\r", "");
    if (s.length() % 4 != 0) {
      return false;
    }
    try {
      Base64.getDecoder().decode(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Names an object for a message: {@code ConfigMap shop/web}, escaped.
   *
   * @param object the object tree
   * @return its kind and namespace/name
   */
  public static String describe(Map<String, ? extends @Nullable Object> object) {
    Map<?, ?> metadata = object.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    String namespace = text(metadata.get("namespace"));
    String name = text(metadata.get("name"));
    String kind = text(object.get("kind"));
    return Escapes.escape(
        (kind.isEmpty() ? "object" : kind)
            + " "
            + (namespace.isEmpty() ? name : namespace + "/" + name));
  }

  private static boolean isKey(String key) {
    int slash = key.indexOf('/');
    String prefix = slash < 0 ? null : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (prefix != null
        && (prefix.isEmpty() || prefix.length() > 253 || !SUBDOMAIN.matcher(prefix).matches())) {
      return false;
    }
    return name.length() <= 63 && NAME.matcher(name).matches();
  }

  private static String text(@Nullable Object value) {
    return value == null ? "" : value.toString();
  }

  private static long base64Decoded(String base64) {
    int padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
    return Math.max(0, base64.length() / 4L * 3 - padding);
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
