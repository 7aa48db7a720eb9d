package dev.capstan.k8s;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.MalformedJsonException;
import io.kubernetes.client.openapi.ApiException;
import java.io.EOFException;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Response;
import okhttp3.ResponseBody;
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
   * What a LIST asks for (its {@code Accept} header) to be sent each object's metadata alone, a
   * {@code PartialObjectMetadataList} (as Kubernetes' own metadata informers ask), or whole objects
   * from an API server that cannot send that: {@link #readList} reads either.
   */
  public static final String METADATA_LIST_ACCEPT =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json";

  /** What a WATCH asks for to be sent each event's object with its metadata alone. */
  public static final String METADATA_WATCH_ACCEPT =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";

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

  /**
   * The Java value of the JSON value {@code reader} reads next, as {@link #toJava} gives it of the
   * tree Gson parses (whole numbers as {@code Long} or {@code BigInteger}, others as {@code
   * BigDecimal}; nulls in objects and arrays left out; JSON's null alone as {@code null}), built
   * without that tree: half the heap at the peak. Iterates, so no nesting overflows the stack; the
   * depth read is bounded by the reader's nesting limit.
   *
   * @throws IOException when the reader cannot read one JSON value
   */
  public static @Nullable Object readJava(JsonReader reader) throws IOException {
    Deque<Object> open = new ArrayDeque<>(); // the objects (maps) and arrays (lists) being read
    Deque<String> names = new ArrayDeque<>(); // the name of each open object's value being read
    while (true) {
      Object value;
      switch (reader.peek()) {
        case BEGIN_OBJECT -> {
          reader.beginObject();
          open.push(new LinkedHashMap<String, Object>());
          continue;
        }
        case BEGIN_ARRAY -> {
          reader.beginArray();
          open.push(new ArrayList<Object>());
          continue;
        }
        case NAME -> {
          names.push(reader.nextName());
          continue;
        }
        case END_OBJECT -> {
          reader.endObject();
          value = open.pop();
        }
        case END_ARRAY -> {
          reader.endArray();
          value = open.pop();
        }
        case STRING -> value = reader.nextString();
        case NUMBER -> value = number(reader.nextString());
        case BOOLEAN -> value = reader.nextBoolean();
        case NULL -> {
          reader.nextNull();
          value = null;
        }
        default -> throw new EOFException("a JSON value ends early");
      }
      Object parent = open.peek();
      if (parent == null) {
        return value;
      }
      add(parent, value, names);
    }
  }

  @SuppressWarnings("unchecked")
  private static void add(Object parent, @Nullable Object value, Deque<String> names) {
    if (parent instanceof Map<?, ?> map) {
      String name = names.pop();
      if (value == null) {
        map.remove(name); // as Gson's tree reads a later null of a name: the name left out
      } else {
        ((Map<String, Object>) map).put(name, value);
      }
    } else if (value != null) {
      ((List<Object>) parent).add(value);
    }
  }

  /**
   * Sends {@code call}, a LIST, and reads its answer as {@link #readList(Reader, Consumer)} does:
   * each item handed to {@code item} before the next is read. Returns the list's {@code metadata}.
   *
   * @throws ApiException as client-java's {@code ApiClient} reports a call refused (its HTTP code,
   *     the API server's Status as the body), or one whose answer could not be read (code 0, the
   *     {@link IOException} its cause)
   */
  public static JsonObject readList(Call call, Consumer<JsonObject> item) throws ApiException {
    try (Response answer = call.execute()) {
      ResponseBody body = answer.body();
      if (!answer.isSuccessful() || body == null) {
        throw new ApiException(
            answer.message(),
            answer.code(),
            answer.headers().toMultimap(),
            body == null ? null : body.string());
      }
      return readList(body.charStream(), item);
    } catch (IOException e) {
      throw new ApiException(e);
    }
  }

  /**
   * Reads a Kubernetes list (a LIST's answer, {@code {"metadata": {...}, "items": [...]}}) a token
   * at a time: each item is parsed alone and handed to {@code item} before the next is read, so
   * neither the list's text nor its tree is ever held whole, only one item's. Returns the list's
   * {@code metadata} (its resourceVersion and continue token; empty when it has none); its other
   * fields are skipped. {@code items: null} (how the API server sends an empty list of metadata)
   * reads as no items.
   *
   * @throws IOException when it is not JSON, or not one object whose items are objects
   */
  public static JsonObject readList(Reader json, Consumer<JsonObject> item) throws IOException {
    JsonReader reader = new JsonReader(json);
    JsonObject metadata = new JsonObject();
    try {
      reader.beginObject();
      while (reader.hasNext()) {
        String name = reader.nextName();
        if (name.equals("items") && reader.peek() == JsonToken.BEGIN_ARRAY) {
          reader.beginArray();
          while (reader.hasNext()) {
            if (!(JsonParser.parseReader(reader) instanceof JsonObject o)) {
              throw new MalformedJsonException("a list item that is not an object");
            }
            item.accept(o);
          }
          reader.endArray();
        } else if (name.equals("metadata") && reader.peek() == JsonToken.BEGIN_OBJECT) {
          metadata = JsonParser.parseReader(reader).getAsJsonObject();
        } else {
          reader.skipValue();
        }
      }
      reader.endObject();
      if (reader.peek() != JsonToken.END_DOCUMENT) { // a strict reader fails on it first
        throw new MalformedJsonException("more than one list");
      }
    } catch (IllegalStateException | JsonParseException e) {
      throw new MalformedJsonException("not a list: " + e.getMessage(), e);
    }
    return metadata;
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
