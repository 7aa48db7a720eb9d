package dev.capstan.controller;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.capstan.common.Trees;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

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

  /** A list of Releases for the informer, each item {@link #release clipped}. */
  static DynamicKubernetesListObject list(JsonObject list) {
    if (list.get("items") instanceof JsonArray items) {
      for (JsonElement item : items) {
        if (!(item instanceof JsonObject object)) {
          throw new JsonSyntaxException("expected a Release in items, got " + kind(item));
        }
        clip(object);
      }
    }
    return new DynamicKubernetesListObject(list);
  }

  /**
   * A Release for the informer: every array and object {@link #KEPT_DEPTH} levels down emptied
   * (whatever they held is gone), the rest as given.
   */
  static DynamicKubernetesObject release(JsonObject release) {
    clip(release);
    return new DynamicKubernetesObject(release);
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
