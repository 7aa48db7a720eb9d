package dev.capstan.controller;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSyntaxException;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.capstan.common.Trees;
import dev.capstan.k8s.JsonTrees;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ReleaseTooLargeException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How the controller reads Releases off the wire, whatever one of them nests. A Release keeps what
 * {@code spec.manifests[]} and {@code spec.chart.values} hold as given (the CRD preserves unknown
 * fields there) and the API server accepts JSON nested 10,000 levels deep, while client-java's
 * parser stops at 255 levels and fails the whole answer: one tenant's Release would fail every list
 * and every watch event of Releases, for every tenant. So a list, a watch event or a Release is
 * parsed here with no nesting limit, by Gson's tree reader, which iterates (no depth overflows the
 * stack); then each Release is {@link #release clipped}, without recursing, to {@link #KEPT_DEPTH}
 * levels, so what the controller holds and converts (recursively, {@link
 * dev.capstan.k8s.JsonTrees#toJava}) is never deeper. A Release clipped is still too deep for the
 * spec's check, which refuses it ({@code InvalidSpec}, {@link Trees#depthProblem}) naming the first
 * value too deep, as it would the whole; its metadata is kept, so the controller keys it, reports
 * on it and lets it go when it is deleted.
 */
final class ReleaseJson {
  /**
   * The levels of a Release kept: three down to a manifest or the chart's values ({@code spec},
   * {@code manifests}, the item; {@code spec}, {@code chart}, {@code values}), the {@link
   * Trees#MAX_DEPTH} levels those may nest, and one more, already too deep for the spec's check. An
   * array or an object at the last level is kept empty.
   */
  static final int KEPT_DEPTH = 3 + Trees.MAX_DEPTH + 1;

  private ReleaseJson() {}

  /**
   * Parses a JSON object, however deeply it nests.
   *
   * @throws JsonSyntaxException when it is not one JSON object
   */
  static JsonObject parse(Reader json) throws IOException {
    JsonReader reader = new JsonReader(json);
    // the API server bounds what it stores; a limit here would fail the whole answer again
    reader.setNestingLimit(Integer.MAX_VALUE);
    JsonElement parsed = JsonParser.parseReader(reader);
    if (!(parsed instanceof JsonObject object)) {
      throw new JsonSyntaxException("expected a JSON object, got " + kind(parsed));
    }
    if (reader.peek() != JsonToken.END_DOCUMENT) {
      throw new JsonSyntaxException("expected one JSON object, got more");
    }
    return object;
  }

  /** A list of Releases for the informer, each item {@link #release clipped and compacted}. */
  static DynamicKubernetesListObject list(JsonObject list) {
    if (list.get("items") instanceof JsonArray items) {
      for (JsonElement item : items) {
        keep(item);
      }
    }
    return new DynamicKubernetesListObject(list);
  }

  /**
   * Reads a list of Releases for the informer one item at a time, each {@link #release clipped and
   * compacted} before the next is parsed: the list's whole tree is never held, only one Release's.
   *
   * @throws JsonSyntaxException when it is not one JSON object, or an item is no object
   */
  static DynamicKubernetesListObject list(Reader json) throws IOException {
    JsonReader reader = new JsonReader(json);
    reader.setNestingLimit(Integer.MAX_VALUE);
    if (reader.peek() != JsonToken.BEGIN_OBJECT) {
      throw new JsonSyntaxException("expected a JSON object, got " + reader.peek());
    }
    JsonObject list = new JsonObject();
    reader.beginObject();
    while (reader.hasNext()) {
      String name = reader.nextName();
      if (name.equals("items") && reader.peek() == JsonToken.BEGIN_ARRAY) {
        JsonArray items = new JsonArray();
        reader.beginArray();
        while (reader.hasNext()) {
          JsonElement item = JsonParser.parseReader(reader);
          keep(item);
          items.add(item);
        }
        reader.endArray();
        list.add(name, items);
      } else {
        list.add(name, JsonParser.parseReader(reader));
      }
    }
    reader.endObject();
    if (reader.peek() != JsonToken.END_DOCUMENT) {
      throw new JsonSyntaxException("expected one JSON object, got more");
    }
    return new DynamicKubernetesListObject(list);
  }

  private static void keep(JsonElement item) {
    if (!(item instanceof JsonObject object)) {
      throw new JsonSyntaxException("expected a Release in items, got " + kind(item));
    }
    clip(object);
    compact(object);
  }

  /**
   * A Release for the informer: every array and object {@link #KEPT_DEPTH} levels down emptied
   * (whatever they held is gone), the rest as given.
   */
  static DynamicKubernetesObject release(JsonObject release) {
    clip(release);
    compact(release);
    return new DynamicKubernetesObject(release);
  }

  /**
   * Holds {@code spec.manifests} and {@code spec.chart.values}, the two parts of a Release that
   * hold whatever its author gives, as their JSON text: a parsed tree takes up to 40 times its
   * text's bytes of heap (an empty object, 3 bytes of JSON, is some 110 bytes of tree), and the
   * informer holds every Release for as long as it exists. {@link #expanded} reads them back, for
   * the one Release being reconciled.
   */
  static void compact(JsonObject release) {
    if (!(release.get("spec") instanceof JsonObject spec)) {
      return;
    }
    if (spec.get("manifests") instanceof JsonArray manifests) {
      spec.add("manifests", new JsonPrimitive(manifests.toString()));
    }
    if (spec.get("chart") instanceof JsonObject chart
        && chart.get("values") instanceof JsonObject values) {
      chart.add("values", new JsonPrimitive(values.toString()));
    }
  }

  /**
   * A Release's spec as its author wrote it: {@code spec} (as {@link JsonTrees#toJava} gave it)
   * with {@code manifests} and {@code chart.values} read back from the JSON text {@link #compact}
   * held them as; a spec that holds them as trees (a Release not read from the wire) is returned as
   * it is. Numbers read back as {@link JsonTrees#toJava} reads them.
   */
  static Map<String, Object> expanded(Map<String, Object> spec) {
    return expanded(spec, HeapBudget.UNBOUNDED, "");
  }

  /**
   * As {@link #expanded(Map)}, within {@code budget}: the texts' nodes are counted first, without
   * building any (a token scan), and read back, straight into the Java tree, only when their
   * characters and nodes fit.
   *
   * @param source the Release, as {@link ReleaseTooLargeException#source()} names it
   * @throws ReleaseTooLargeException when they do not fit; nothing was built
   */
  static Map<String, Object> expanded(Map<String, Object> spec, HeapBudget budget, String source) {
    String manifests = spec.get("manifests") instanceof String text ? text : null;
    Map<?, ?> chart = spec.get("chart") instanceof Map<?, ?> c ? c : null;
    String values = chart != null && chart.get("values") instanceof String text ? text : null;
    if (manifests == null && values == null) {
      return spec;
    }
    if (budget.nodeBytes() > 0 || budget.charBytes() > 0) {
      long chars = 0;
      long nodes = 0;
      for (String text : java.util.Arrays.asList(manifests, values)) {
        if (text != null) {
          chars += text.length();
          nodes += nodes(text);
        }
      }
      if (!budget.fits(chars, nodes)) {
        throw new ReleaseTooLargeException(
            source,
            manifests != null ? "(spec.manifests, read back)" : "(spec.chart.values, read back)",
            chars,
            nodes,
            budget);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>(spec);
    if (manifests != null) {
      out.put("manifests", parsed(manifests));
    }
    if (chart != null && values != null) {
      Map<String, Object> expandedChart = new LinkedHashMap<>();
      chart.forEach((k, v) -> expandedChart.put(String.valueOf(k), v));
      expandedChart.put("values", parsed(values));
      out.put("chart", expandedChart);
    }
    return out;
  }

  /**
   * The nodes of a JSON text (each object, array, name and value), counted without building any.
   */
  static long nodes(String text) {
    JsonReader reader = new JsonReader(new StringReader(text));
    reader.setNestingLimit(Integer.MAX_VALUE);
    long nodes = 0;
    try {
      while (true) {
        JsonToken token = reader.peek();
        switch (token) {
          case BEGIN_OBJECT -> reader.beginObject();
          case END_OBJECT -> {
            reader.endObject();
            continue;
          }
          case BEGIN_ARRAY -> reader.beginArray();
          case END_ARRAY -> {
            reader.endArray();
            continue;
          }
          case NAME -> java.util.Objects.requireNonNull(reader.nextName());
          case END_DOCUMENT -> {
            return nodes;
          }
          default -> reader.skipValue();
        }
        nodes++;
      }
    } catch (IOException e) {
      throw new JsonSyntaxException("a held text that is not JSON: " + e.getMessage(), e);
    }
  }

  /**
   * The Java value of a JSON text {@link #compact} wrote (as deep as a clipped Release goes), built
   * as it is read: no second tree.
   */
  private static @Nullable Object parsed(String text) {
    JsonReader reader = new JsonReader(new StringReader(text));
    reader.setNestingLimit(Integer.MAX_VALUE);
    try {
      return JsonTrees.readJava(reader);
    } catch (IOException e) {
      throw new JsonSyntaxException("a held text that is not JSON: " + e.getMessage(), e);
    }
  }

  /** A mapping or an array being clipped, {@code depth} levels down. */
  private record Open(JsonElement node, int depth) {}

  private static void clip(JsonObject release) {
    Deque<Open> open = new ArrayDeque<>();
    open.push(new Open(release, 0));
    while (!open.isEmpty()) {
      Open o = open.pop();
      int depth = o.depth() + 1;
      if (o.node() instanceof JsonObject object) {
        for (Map.Entry<String, JsonElement> field : object.entrySet()) {
          field.setValue(kept(field.getValue(), depth, open));
        }
      } else if (o.node() instanceof JsonArray array) {
        for (int i = 0; i < array.size(); i++) {
          array.set(i, kept(array.get(i), depth, open));
        }
      }
    }
  }

  /** What is kept of {@code value}, {@code depth} levels down; a mapping or array to clip next. */
  private static JsonElement kept(JsonElement value, int depth, Deque<Open> open) {
    if (!value.isJsonObject() && !value.isJsonArray()) {
      return value;
    }
    if (depth < KEPT_DEPTH) {
      open.push(new Open(value, depth));
      return value;
    }
    return value.isJsonObject() ? new JsonObject() : new JsonArray();
  }

  private static String kind(JsonElement e) {
    return e.isJsonArray() ? "an array" : e.isJsonNull() ? "null" : "a scalar";
  }
}
