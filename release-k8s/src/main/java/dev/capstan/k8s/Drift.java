package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Drift of a live object Capstan applied, read from {@code metadata.managedFields} alone, so a
 * no-op plan needs nothing beyond the observation LISTs.
 *
 * <p>First, what Capstan applied is rebuilt from the live object: the fields Capstan's own field
 * manager owns ({@code fieldsV1} of its {@code Apply} entry), with the object's identity and
 * without the stamp. When that hashes like the stamp's content hash, nothing Capstan applied moved,
 * whatever other managers added (a label, a data key of their own): no drift. Otherwise (a field
 * taken, or only the server's rewriting of a value, e.g. a quantity {@code 0.5} as {@code 500m}):
 *
 * <p>The rule: an object drifted when a field manager other than Capstan, writing the object itself
 * (no subresource such as {@code status} or {@code scale}) with {@code Update} or {@code Apply} no
 * earlier than Capstan's own last apply, owns a field outside {@code metadata}. Server-side apply
 * moves a field to the manager that last changed its value, so a field Capstan applied and someone
 * then edited ({@code kubectl edit}, a merge patch, a forced {@code kubectl apply}) shows up there,
 * and Capstan's next apply (forced) takes it back. Other managers' labels, annotations and
 * finalizers are theirs, not drift, and so are fields the API server's controllers set on the
 * object (a claim's {@code spec.volumeName}). What the rule cannot see: a field Capstan applied
 * that someone removed without setting anything (no manager owns it any more).
 */
final class Drift {
  private Drift() {}

  /**
   * Why the object drifted ({@code field .spec.rules owned by kubectl-edit}), or {@code null}.
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   */
  static @Nullable String of(JsonObject object, String manager) {
    return of(object, manager, null, null);
  }

  /**
   * Why the object drifted, or {@code null}; {@code null} at once when Capstan's fields rebuild to
   * content hashing as {@code appliedHash}.
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   * @param kind the object's kind, to rebuild a manifest, or {@code null} to skip the hash check
   * @param appliedHash the content hash of what Capstan applied (the stamp's), or {@code null}
   */
  static @Nullable String of(
      JsonObject object, String manager, @Nullable Kind kind, @Nullable String appliedHash) {
    JsonObject metadata = JsonTrees.object(object, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return null;
    }
    if (kind != null && appliedHash != null) {
      JsonObject ours = ownedFields(entries, manager);
      if (ours != null && appliedHash.equals(hashOf(object, ours, kind))) {
        return null;
      }
    }
    OffsetDateTime ours = null;
    for (JsonElement e : entries) {
      if (e instanceof JsonObject entry
          && manager.equals(JsonTrees.text(entry, "manager"))
          && "Apply".equals(JsonTrees.text(entry, "operation"))
          && JsonTrees.text(entry, "subresource") == null) {
        OffsetDateTime t = time(entry);
        if (t != null && (ours == null || t.isAfter(ours))) {
          ours = t;
        }
      }
    }
    if (ours == null) {
      return null; // not applied by Capstan: nothing it applied can have moved
    }
    boolean claim =
        "PersistentVolumeClaim".equals(JsonTrees.text(object, "kind"))
            && "v1".equals(JsonTrees.text(object, "apiVersion"));
    for (JsonElement e : entries) {
      if (!(e instanceof JsonObject entry)) {
        continue;
      }
      String who = JsonTrees.text(entry, "manager");
      String operation = JsonTrees.text(entry, "operation");
      OffsetDateTime t = time(entry);
      if (who == null
          || who.equals(manager)
          || JsonTrees.text(entry, "subresource") != null
          || !("Update".equals(operation) || "Apply".equals(operation))
          || t == null
          || t.isBefore(ours)
          || !(entry.get("fieldsV1") instanceof JsonObject fields)) {
        continue;
      }
      List<String> paths = new ArrayList<>();
      leaves(fields, "", paths);
      for (String path : paths) {
        if (path.startsWith(".metadata") || (claim && path.equals(".spec.volumeName"))) {
          continue;
        }
        return "field " + path + " owned by " + who;
      }
    }
    return null;
  }

  private static @Nullable JsonObject ownedFields(JsonArray entries, String manager) {
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
  private static @Nullable String hashOf(JsonObject object, JsonObject fields, Kind kind) {
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
    Manifest m = KubernetesOrchestrator.content(projected, kind);
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

  /** The paths of the leaves of a {@code fieldsV1} tree, e.g. {@code .spec.rules}. */
  private static void leaves(JsonObject node, String prefix, List<String> out) {
    boolean any = false;
    for (String key : node.keySet()) {
      if (key.equals(".")) {
        continue;
      }
      any = true;
      String step;
      if (key.startsWith("f:")) {
        step = "." + key.substring(2);
      } else if (key.startsWith("k:")) {
        step = "[" + key.substring(2) + "]";
      } else if (key.startsWith("v:")) {
        step = "[=" + key.substring(2) + "]";
      } else if (key.startsWith("i:")) {
        step = "[" + key.substring(2) + "]";
      } else {
        step = "." + key;
      }
      if (node.get(key) instanceof JsonObject child && child.size() > 0) {
        leaves(child, prefix + step, out);
      } else {
        out.add(prefix + step);
      }
    }
    if (!any && !prefix.isEmpty()) {
      out.add(prefix);
    }
  }

  private static @Nullable OffsetDateTime time(JsonObject entry) {
    String text = JsonTrees.text(entry, "time");
    if (text == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
