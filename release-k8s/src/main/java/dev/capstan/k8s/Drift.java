package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Drift of a live object Capstan applied, read from {@code metadata.managedFields} alone, so a
 * no-op plan needs nothing beyond the observation LISTs.
 *
 * <p>First, what Capstan applied is rebuilt from the live object: the fields Capstan's own field
 * manager owns ({@code fieldsV1} of its {@code Apply} entry), with the object's identity and
 * without the stamp. When that hashes like the stamp's content hash, nothing Capstan applied moved,
 * whatever other managers added (a label, a data key of their own): no drift. Otherwise (a field
 * taken, or only the server's rewriting of a value, e.g. a quantity {@code 0.5} as {@code 500m}; or
 * a Secret, whose keyed hash cannot be recomputed from the object):
 *
 * <p>The rule: an object drifted when a field manager other than Capstan, writing the object itself
 * (no subresource such as {@code status} or {@code scale}) with {@code Update} or {@code Apply} no
 * earlier than Capstan's own last apply, owns a field outside {@code metadata} that Capstan applied
 * with a value. Server-side apply moves a field to the manager that last changed its value, so a
 * field Capstan applied and someone then edited ({@code kubectl edit}, a merge patch, a forced
 * {@code kubectl apply}) shows up there, and Capstan's next apply (forced) takes it back. Whether
 * Capstan applied a value at a field is read from the object it applied, when the caller gives it
 * (the desired object, which is what the stamp names whenever the plan reads drift): a field that
 * object does not set, or sets to an empty map or list, is the other manager's alone (a controller
 * writing its certificate into a Secret shipped with {@code data: {}}, a webhook's injected
 * container), never drift, so the next cast writes nothing. Without that object every such field
 * counts (the managed fields alone cannot tell a field filled in from a field taken: SSA drops a
 * field Capstan applied empty from its entry once another manager fills it). A field that holds the
 * value Capstan applied is no drift whoever owns it (a Secret's key Capstan applied as {@code
 * stringData}, which another manager's {@code data} entry keeps owning after Capstan's repair).
 * Other managers' labels, annotations and finalizers are theirs, not drift, and so are fields the
 * API server's controllers set on the object (a claim's {@code spec.volumeName}). What the rule
 * cannot see: a field Capstan applied that someone removed without setting anything (no manager
 * owns it any more).
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
    return of(object, manager, null, null, null);
  }

  /**
   * Why the object drifted, or {@code null}; {@code null} at once when Capstan's fields rebuild to
   * content hashing as {@code appliedHash}.
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   * @param kind the object's kind, to rebuild a manifest, or {@code null} to skip the hash check
   * @param appliedHash the content hash of what Capstan applied (the stamp's), or {@code null}
   * @param applied the object Capstan applied, or {@code null} when unknown: every field another
   *     manager took since then counts
   */
  static @Nullable String of(
      JsonObject object,
      String manager,
      @Nullable Kind kind,
      @Nullable String appliedHash,
      @Nullable Manifest applied) {
    JsonObject metadata = JsonTrees.object(object, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return null;
    }
    JsonObject capstans = ownedFields(entries, manager);
    if (kind != null && appliedHash != null) {
      if (capstans != null && appliedHash.equals(hashOf(object, capstans, kind))) {
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
    JsonObject appliedTree = null; // converted once, and only when a field is in question
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
      List<Leaf> found = new ArrayList<>();
      leaves(fields, "", new ArrayList<>(), found);
      for (Leaf leaf : found) {
        if (leaf.display().startsWith(".metadata")
            || (claim && leaf.display().equals(".spec.volumeName"))
            || (capstans != null && owns(capstans, leaf.keys()))) {
          continue; // a field Capstan still owns holds what it applied (or another applied it too)
        }
        if (applied != null) {
          if (leaf.container()) {
            continue; // only the map or list itself, whose values Capstan still owns or never set
          }
          if (appliedTree == null) {
            appliedTree = appliedTree(applied);
          }
          if (!setsValue(appliedTree, leaf.keys())) {
            continue; // Capstan applied nothing (or only an empty map or list) there
          }
          JsonElement want = valueAt(appliedTree, leaf.keys());
          if (want != null && want.equals(valueAt(object, leaf.keys()))) {
            continue; // it holds what Capstan applied, whoever owns it now
          }
        }
        return "field " + leaf.display() + " owned by " + who;
      }
    }
    return null;
  }

  /**
   * What Capstan applied, as the server stores it: a Secret's {@code stringData} entries are {@code
   * data} entries, base64-encoded (the server moves them there, and Capstan's entry keeps them
   * under {@code stringData}, a field the stored object never has).
   */
  private static JsonObject appliedTree(Manifest applied) {
    JsonObject tree = JsonTrees.toJsonTree(applied.content());
    if (applied.kind().equals(Kind.SECRET) && tree.get("stringData") instanceof JsonObject text) {
      JsonObject data = tree.get("data") instanceof JsonObject d ? d : new JsonObject();
      for (Map.Entry<String, JsonElement> e : text.entrySet()) {
        data.addProperty(
            e.getKey(),
            e.getValue().isJsonPrimitive()
                ? Base64.getEncoder()
                    .encodeToString(e.getValue().getAsString().getBytes(StandardCharsets.UTF_8))
                : "");
      }
      tree.add("data", data);
    }
    return tree;
  }

  /** Whether the managed-fields tree {@code fields} has the path {@code keys}. */
  private static boolean owns(JsonObject fields, List<String> keys) {
    JsonObject node = fields;
    for (String key : keys) {
      if (!(node.get(key) instanceof JsonObject child)) {
        return false;
      }
      node = child;
    }
    return true;
  }

  /**
   * Whether {@code tree} holds a value at the {@code fieldsV1} path {@code keys} ({@code f:name},
   * {@code k:{"name":"web"}}, {@code v:value}, {@code i:index}): a string, number or boolean, or a
   * map or list that is not empty. An item of a keyed list is matched by the key fields it has (the
   * server may have defaulted others, e.g. a port's {@code protocol}).
   */
  static boolean setsValue(JsonElement tree, List<String> keys) {
    JsonElement node = valueAt(tree, keys);
    if (node == null) {
      return false;
    }
    if (node instanceof JsonObject o) {
      return o.size() > 0;
    }
    if (node instanceof JsonArray a) {
      return a.size() > 0;
    }
    return true;
  }

  /** The value at the {@code fieldsV1} path {@code keys}, or {@code null}. */
  private static @Nullable JsonElement valueAt(JsonElement tree, List<String> keys) {
    JsonElement node = tree;
    for (String key : keys) {
      node = step(node, key);
      if (node == null || node.isJsonNull()) {
        return null;
      }
    }
    return node;
  }

  private static @Nullable JsonElement step(JsonElement node, String key) {
    if (key.startsWith("f:")) {
      return node instanceof JsonObject o ? o.get(key.substring(2)) : null;
    }
    if (!(node instanceof JsonArray items)) {
      return null;
    }
    if (key.startsWith("i:")) {
      try {
        int i = Integer.parseInt(key.substring(2));
        return i >= 0 && i < items.size() ? items.get(i) : null;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    JsonElement parsed;
    try {
      parsed = JsonParser.parseString(key.substring(2));
    } catch (RuntimeException e) {
      return null;
    }
    for (JsonElement item : items) {
      if (key.startsWith("v:") ? parsed.equals(item) : matchesKey(item, parsed)) {
        return item;
      }
    }
    return null;
  }

  /** Whether a list item has every key field of {@code keyObject} it has at all, one at least. */
  private static boolean matchesKey(JsonElement item, JsonElement keyObject) {
    if (!(item instanceof JsonObject o) || !(keyObject instanceof JsonObject k)) {
      return false;
    }
    int present = 0;
    for (String field : k.keySet()) {
      JsonElement mine = o.get(field);
      if (mine == null) {
        continue;
      }
      if (!mine.equals(k.get(field))) {
        return false;
      }
      present++;
    }
    return present > 0;
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

  /**
   * A leaf of a {@code fieldsV1} tree: its path for people ({@code .spec.rules}), its keys ({@code
   * [f:spec, f:rules]}), and whether the manager owns only the map or list there (a {@code "."}
   * entry), not a value.
   */
  private record Leaf(String display, List<String> keys, boolean container) {}

  /** The leaves of a {@code fieldsV1} tree, e.g. {@code .spec.rules}. */
  private static void leaves(JsonObject node, String prefix, List<String> keys, List<Leaf> out) {
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
      List<String> path = new ArrayList<>(keys);
      path.add(key);
      if (node.get(key) instanceof JsonObject child && child.size() > 0) {
        leaves(child, prefix + step, path, out);
      } else {
        out.add(new Leaf(prefix + step, List.copyOf(path), false));
      }
    }
    if (!any && !prefix.isEmpty()) {
      out.add(new Leaf(prefix, List.copyOf(keys), node.has(".")));
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
