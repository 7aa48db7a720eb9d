package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What Capstan applied, rebuilt from a live object: the fields its field manager owns through
 * {@code Apply} ({@code fieldsV1} of its entries, merged), the object cut to them, with its
 * identity, and that cut's content hash, which {@link Drift} compares with the stamp's: equal,
 * nothing Capstan applied moved.
 */
final class AppliedFieldsOf {
  private AppliedFieldsOf() {}

  /** The fields {@code manager} owns through {@code Apply} (not a subresource), or {@code null}. */
  static @Nullable JsonObject owned(JsonArray entries, String manager) {
    JsonObject merged = null;
    for (JsonElement e : entries) {
      if (e instanceof JsonObject entry
          && manager.equals(JsonTrees.text(entry, "manager"))
          && "Apply".equals(JsonTrees.text(entry, "operation"))
          && JsonTrees.text(entry, "subresource") == null
          && entry.get("fieldsV1") instanceof JsonObject f) {
        merged = merged == null ? f.deepCopy() : merge(merged, f);
      }
    }
    return merged;
  }

  private static JsonObject merge(JsonObject into, JsonObject from) {
    for (String key : from.keySet()) {
      JsonElement theirs = from.get(key);
      if (into.get(key) instanceof JsonObject o && theirs instanceof JsonObject t) {
        merge(o, t);
      } else {
        into.add(key, theirs.deepCopy());
      }
    }
    return into;
  }

  /** The content hash of the live object cut to {@code fields}, or {@code null}. */
  static @Nullable String hash(JsonObject object, JsonObject fields, Kind kind) {
    JsonObject projected = project(object, fields);
    for (String identity : List.of("apiVersion", "kind")) {
      if (object.get(identity) != null) {
        projected.add(identity, object.get(identity));
      }
    }
    JsonObject meta = JsonTrees.object(projected, "metadata");
    if (meta == null) {
      meta = new JsonObject();
      projected.add("metadata", meta);
    }
    for (String identity : List.of("name", "namespace")) {
      String value = JsonTrees.text(object, "metadata", identity);
      if (value != null) {
        meta.addProperty(identity, value);
      }
    }
    Manifest m = LiveContent.content(projected, kind);
    return m == null ? null : ContentHash.of(m);
  }

  /** The parts of {@code live} that {@code fields} names. */
  private static JsonObject project(JsonObject live, JsonObject fields) {
    JsonObject out = new JsonObject();
    for (String key : fields.keySet()) {
      if (!key.startsWith("f:")) {
        continue;
      }
      String name = key.substring(2);
      JsonElement value = live.get(name);
      if (value == null) {
        continue;
      }
      JsonObject sub = fields.get(key) instanceof JsonObject o ? o : new JsonObject();
      out.add(name, projectValue(value, sub));
    }
    return out;
  }

  private static JsonElement projectValue(JsonElement value, JsonObject sub) {
    boolean children = sub.keySet().stream().anyMatch(k -> !k.equals("."));
    if (!children) {
      return value.deepCopy();
    }
    if (value instanceof JsonObject o) {
      return project(o, sub);
    }
    if (value instanceof JsonArray items) {
      JsonArray out = new JsonArray();
      for (int i = 0; i < items.size(); i++) {
        JsonElement item = items.get(i);
        JsonObject itemFields = itemFields(item, i, sub);
        if (itemFields != null) {
          out.add(projectValue(item, itemFields));
        }
      }
      return out;
    }
    return value.deepCopy();
  }

  /** The fields of one list item: its {@code k:}, {@code v:} or {@code i:} entry, or null. */
  private static @Nullable JsonObject itemFields(JsonElement item, int index, JsonObject sub) {
    for (String key : sub.keySet()) {
      JsonObject fields = sub.get(key) instanceof JsonObject o ? o : new JsonObject();
      if (key.startsWith("k:") && item instanceof JsonObject o) {
        JsonElement keyObject;
        try {
          keyObject = JsonParser.parseString(key.substring(2));
        } catch (RuntimeException e) {
          continue;
        }
        if (keyObject instanceof JsonObject k
            && k.entrySet().stream().allMatch(e -> e.getValue().equals(o.get(e.getKey())))) {
          return fields;
        }
      } else if (key.startsWith("v:")) {
        try {
          if (JsonParser.parseString(key.substring(2)).equals(item)) {
            return fields;
          }
        } catch (RuntimeException e) {
          // not a value key
        }
      } else if (key.equals("i:" + index)) {
        return fields;
      }
    }
    return null;
  }
}
