package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.jspecify.annotations.Nullable;

/**
 * The fields one field manager owns on an object, from {@code metadata.managedFields} ({@code
 * fieldsV1}: {@code {"f:metadata":{"f:labels":{"f:app":{}}}}}). Capstan reads back only the keys of
 * maps and keyed lists it applied, so labels, annotations, data keys or env vars that other
 * managers added are theirs, not drift (server-side apply would never remove them).
 *
 * <p>{@link #ALL} stands for an object Capstan never applied (an unowned object seen for adoption,
 * whose whole content is its pre-image): every field counts.
 */
final class OwnedFields {
  /** Every field: the object has no fields of this manager. */
  static final OwnedFields ALL = new OwnedFields(null, true);

  private static final OwnedFields NONE = new OwnedFields(null, false);

  private final @Nullable JsonObject fields;
  private final boolean all;

  private OwnedFields(@Nullable JsonObject fields, boolean all) {
    this.fields = fields;
    this.all = all;
  }

  /**
   * The fields {@code manager} owns through {@code Apply} on a raw object, or {@link #ALL} when it
   * owns none.
   */
  static OwnedFields of(JsonObject object, String manager) {
    JsonObject metadata = object(object, "metadata");
    JsonElement entries = metadata == null ? null : metadata.get("managedFields");
    if (!(entries instanceof JsonArray array)) {
      return ALL;
    }
    JsonObject merged = null;
    for (JsonElement e : array) {
      if (e instanceof JsonObject entry
          && manager.equals(text(entry, "manager"))
          && "Apply".equals(text(entry, "operation"))
          && text(entry, "subresource") == null
          && entry.get("fieldsV1") instanceof JsonObject f) {
        merged = merged == null ? f.deepCopy() : merge(merged, f);
      }
    }
    return merged == null ? ALL : new OwnedFields(merged, false);
  }

  /** The owned fields below a path of {@code f:} keys. */
  OwnedFields at(String... path) {
    if (all) {
      return this;
    }
    JsonObject node = fields;
    for (String step : path) {
      node = node == null ? null : object(node, step);
    }
    return node == null ? NONE : new OwnedFields(node, false);
  }

  /** Whether the map key {@code key} is owned (its {@code f:<key>} entry). */
  boolean ownsKey(String key) {
    return all || (fields != null && fields.has("f:" + key));
  }

  /**
   * The owned fields of the keyed-list item whose merge key {@code keyField} is {@code value}, e.g.
   * the container {@code k:{"name":"web"}}.
   */
  OwnedFields item(String keyField, String value) {
    if (all) {
      return this;
    }
    if (fields != null) {
      for (String key : fields.keySet()) {
        if (key.startsWith("k:") && matches(key.substring(2), keyField, value)) {
          JsonObject node = object(fields, key);
          return node == null ? NONE : new OwnedFields(node, false);
        }
      }
    }
    return NONE;
  }

  /** Whether the keyed-list item with {@code keyField == value} is owned. */
  boolean ownsItem(String keyField, String value) {
    return all || item(keyField, value) != NONE;
  }

  private static boolean matches(String json, String keyField, String value) {
    try {
      JsonElement parsed = JsonParser.parseString(json);
      return parsed instanceof JsonObject o
          && o.get(keyField) != null
          && o.get(keyField).isJsonPrimitive()
          && value.equals(o.get(keyField).getAsString());
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static JsonObject merge(JsonObject into, JsonObject from) {
    for (String key : from.keySet()) {
      JsonElement theirs = from.get(key);
      JsonElement ours = into.get(key);
      if (ours instanceof JsonObject o && theirs instanceof JsonObject t) {
        merge(o, t);
      } else {
        into.add(key, theirs.deepCopy());
      }
    }
    return into;
  }

  private static @Nullable JsonObject object(JsonObject parent, String key) {
    return parent.get(key) instanceof JsonObject o ? o : null;
  }

  private static @Nullable String text(JsonObject parent, String key) {
    JsonElement e = parent.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
  }
}
