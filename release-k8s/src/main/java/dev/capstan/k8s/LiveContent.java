package dev.capstan.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A live object as Capstan reads it: its content as a {@link Manifest} (without status, the
 * metadata the server manages and the stamp), the stamp's annotations, and the releases that ensure
 * it (a Namespace's {@code capstan/NS/NAME} field managers). Shared by observation and {@link
 * Drift}.
 */
final class LiveContent {
  private static final Set<String> SERVER_METADATA =
      Set.of(
          "resourceVersion",
          "uid",
          "generation",
          "creationTimestamp",
          "managedFields",
          "selfLink",
          "deletionTimestamp",
          "deletionGracePeriodSeconds");

  private static final Set<String> STAMP_ANNOTATIONS =
      Set.of(Stamps.RELEASE, Stamps.RELEASE_ID, Stamps.REVISION, Stamps.CONTENT_HASH);

  private LiveContent() {}

  /**
   * The live object as a manifest: without status, without the metadata the server manages and
   * without the stamp; {@code null} when it cannot be one.
   */
  static @Nullable Manifest content(JsonObject raw, Kind kind) {
    // converted as it is read, leaving out what is dropped: no copy of the JSON tree first (a
    // CRD's is a megabyte), and raw stays as the server sent it, for drift
    Map<String, Object> tree = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> e : raw.entrySet()) {
      if (e.getKey().equals("status")) {
        continue;
      }
      Object value =
          e.getKey().equals("metadata") && e.getValue() instanceof JsonObject meta
              ? contentMetadata(meta)
              : JsonTrees.toJavaValue(e.getValue());
      if (value != null) {
        tree.put(e.getKey(), value);
      }
    }
    try {
      return Manifest.of(tree, null, kind);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The metadata of {@link #content}: without the server's fields and the stamp. */
  private static Map<String, Object> contentMetadata(JsonObject meta) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> e : meta.entrySet()) {
      String key = e.getKey();
      if (SERVER_METADATA.contains(key)) {
        continue;
      }
      Object value;
      if (key.equals("labels") && e.getValue() instanceof JsonObject labels) {
        Map<String, Object> kept = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> l : labels.entrySet()) {
          JsonElement v = l.getValue();
          if (!(v.isJsonPrimitive() && Stamps.isStampLabel(l.getKey(), v.getAsString()))) {
            putValue(kept, l.getKey(), v);
          }
        }
        value = kept.isEmpty() ? null : kept;
      } else if (key.equals("annotations") && e.getValue() instanceof JsonObject annotations) {
        Map<String, Object> kept = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> a : annotations.entrySet()) {
          if (!STAMP_ANNOTATIONS.contains(a.getKey())) {
            putValue(kept, a.getKey(), a.getValue());
          }
        }
        value = kept.isEmpty() ? null : kept;
      } else {
        value = JsonTrees.toJavaValue(e.getValue());
      }
      if (value != null) {
        out.put(key, value);
      }
    }
    return out;
  }

  private static void putValue(Map<String, Object> map, String key, JsonElement json) {
    Object value = JsonTrees.toJavaValue(json);
    if (value != null) {
      map.put(key, value);
    }
  }

  /**
   * The releases whose ensure field manager ({@code capstan/NS/NAME}) holds fields of the object,
   * from its {@code managedFields}.
   */
  static List<String> ensuredBy(JsonObject raw) {
    List<String> out = new ArrayList<>();
    JsonObject meta = JsonTrees.object(raw, "metadata");
    if (meta != null && meta.get("managedFields") instanceof com.google.gson.JsonArray entries) {
      for (JsonElement entry : entries) {
        JsonElement manager = entry.isJsonObject() ? entry.getAsJsonObject().get("manager") : null;
        if (manager != null && manager.isJsonPrimitive()) {
          EnsuredNamespace.releaseOf(manager.getAsString()).ifPresent(out::add);
        }
      }
    }
    return out;
  }

  /** The object's annotations with string values, or {@code null} when it has none. */
  static @Nullable Map<String, String> annotations(JsonObject raw) {
    JsonObject annotations = JsonTrees.object(JsonTrees.object(raw, "metadata"), "annotations");
    if (annotations == null) {
      return null;
    }
    Map<String, String> out = new TreeMap<>();
    annotations
        .entrySet()
        .forEach(
            e -> {
              if (e.getValue().isJsonPrimitive()) {
                out.put(e.getKey(), e.getValue().getAsString());
              }
            });
    return out;
  }
}
