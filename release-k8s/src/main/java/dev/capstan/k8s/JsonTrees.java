package dev.capstan.k8s;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Conversions between Gson's JSON trees (what client-java's dynamic API reads and writes) and the
 * plain Java trees of {@code Manifest} and {@code HealthRules}: maps with string keys, lists,
 * strings, booleans, {@code Long}/{@code BigInteger}/{@code BigDecimal} numbers and nulls. Public
 * for hosts that read objects through client-java's dynamic API or informers (the Release
 * controller does); its other conversions are Capstan's own.
 */
public final class JsonTrees {
  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  private JsonTrees() {}

  /**
   * The Java tree of a JSON object: whole numbers as {@code Long} (or {@code BigInteger}), other
   * numbers as {@code BigDecimal} of their text; JSON nulls are left out.
   */
  public static Map<String, Object> toJava(JsonObject object) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> e : object.entrySet()) {
      Object v = toJavaValue(e.getValue());
      if (v != null) {
        out.put(e.getKey(), v);
      }
    }
    return out;
  }

  /** The Java value of a JSON value; {@code null} for JSON's null. */
  static @Nullable Object toJavaValue(JsonElement e) {
    if (e instanceof JsonObject o) {
      return toJava(o);
    }
    if (e instanceof JsonArray a) {
      List<Object> out = new ArrayList<>(a.size());
      for (JsonElement item : a) {
        Object v = toJavaValue(item);
        if (v != null) {
          out.add(v);
        }
      }
      return out;
    }
    if (e instanceof JsonPrimitive p) {
      if (p.isBoolean()) {
        return p.getAsBoolean();
      }
      if (p.isNumber()) {
        return number(p.getAsString());
      }
      return p.getAsString();
    }
    return null;
  }

  private static Object number(String text) {
    if (text.length() <= 18 && isDigits(text)) {
      return Long.parseLong(text); // up to 18 digits, with or without a sign, fits a long
    }
    if (text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0) {
      BigInteger big = new BigInteger(text);
      return big.bitLength() < 64 ? (Object) big.longValueExact() : big;
    }
    return new BigDecimal(text);
  }

  /** Whether {@code text} is an optional minus sign and one or more decimal digits. */
  private static boolean isDigits(String text) {
    int start = text.startsWith("-") ? 1 : 0;
    if (start == text.length()) {
      return false;
    }
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** The JSON text of a Java tree (nulls in maps are left out). */
  static String toJson(Map<String, ?> tree) {
    return GSON.toJson(tree);
  }

  /** The JSON tree of a Java tree. */
  static JsonObject toJsonTree(Map<String, ?> tree) {
    return GSON.toJsonTree(tree).getAsJsonObject();
  }

  /** The object at {@code key}, or {@code null}. */
  static @Nullable JsonObject object(@Nullable JsonObject parent, String key) {
    return parent != null && parent.get(key) instanceof JsonObject o ? o : null;
  }

  /** The string at {@code key}, or {@code null}. */
  static @Nullable String text(@Nullable JsonObject parent, String key) {
    JsonElement e = parent == null ? null : parent.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
  }

  /** The string at a path of keys, or {@code null}. */
  static @Nullable String text(@Nullable JsonObject root, String... path) {
    JsonObject node = root;
    for (int i = 0; i < path.length - 1; i++) {
      node = object(node, path[i]);
    }
    return text(node, path[path.length - 1]);
  }

  /**
   * The tree without empty lists and maps, as a server-side apply body wants it. client-java's
   * models start every collection empty, and an applied {@code []} or {@code {}} would claim the
   * field (an empty {@code clusterIPs} even fails validation); for server-side apply, absent and
   * empty own the same: nothing.
   */
  static JsonElement withoutEmpty(JsonElement e) {
    if (e instanceof JsonObject o) {
      JsonObject out = new JsonObject();
      for (Map.Entry<String, JsonElement> entry : o.entrySet()) {
        JsonElement v = withoutEmpty(entry.getValue());
        if (!isEmpty(v)) {
          out.add(entry.getKey(), v);
        }
      }
      return out;
    }
    if (e instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      for (JsonElement item : a) {
        out.add(withoutEmpty(item));
      }
      return out;
    }
    return e;
  }

  private static boolean isEmpty(JsonElement e) {
    return e.isJsonNull()
        || (e instanceof JsonObject o && o.size() == 0)
        || (e instanceof JsonArray a && a.isEmpty());
  }
}
