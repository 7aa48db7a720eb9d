package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.diff.AppliedFields;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.plan.FieldDrift;
import dev.capstan.release.plan.LiveObject;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Drift of a live object Capstan applied, read from {@code metadata.managedFields} alone, so a
 * no-op plan needs nothing beyond the observation LISTs (ARCHITECTURE.md, "Drift by ownership").
 *
 * <p>First, what Capstan applied is rebuilt from the live object: the fields Capstan's own field
 * manager owns ({@code fieldsV1} of its {@code Apply} entry), with the object's identity and
 * without the stamp. When that hashes like the stamp's content hash, nothing Capstan applied moved,
 * whatever other managers added (a label, a data key of their own): no drift. Otherwise (a field
 * taken or removed, or only the server's rewriting of a value, e.g. a quantity {@code 0.5} as
 * {@code 500m}; or a Secret, whose keyed hash cannot be recomputed from the object):
 *
 * <p>The rule, by ownership: every field of the object Capstan applied (the desired object, which
 * is what the stamp names whenever the plan reads drift) that the live object no longer holds with
 * the value applied ({@link AppliedFields}) and that Capstan's own apply no longer owns is drift:
 * removed ({@code kubectl patch --type json} {@code remove}, a key deleted in {@code kubectl edit}:
 * server-side apply takes a removed field from every manager), or held by the manager that wrote
 * another value, through the object or a subresource ({@code kubectl scale} writes {@code
 * spec.replicas} through {@code scale}). A field Capstan's apply still owns is its own, whatever it
 * holds (the server rewrote it, or dropped a zero value it does not keep). What Capstan never
 * applied, or applied as an empty map or list, is not walked: a controller's certificate in a
 * Secret shipped with {@code data: {}}, a webhook's injected container, keys added to a map are
 * theirs, never drift. The fields found are reported with their managers ({@link
 * LiveObject#driftFields}); the planner applies the release's ignore rules to them.
 *
 * <p>Without the applied object (a plan from a spec alone, for objects the record does not hold at
 * the desired content) the older rule stands: a field outside {@code metadata} and {@code status}
 * that a manager other than Capstan wrote (through the object or a subresource) no earlier than
 * Capstan's own last apply counts; what it cannot see is a field removed.
 */
final class Drift {
  private Drift() {}

  /**
   * What the observation reports: the first drift in words ({@code field spec.replicas set by
   * kubectl (scale subresource)}), or {@code null}, and every field found, with who holds it.
   */
  record Finding(@Nullable String reason, List<FieldDrift> fields) {
    static final Finding NONE = new Finding(null, List.of());
  }

  /**
   * Why the object drifted, or {@code null}, by the older rule (nothing known of what Capstan
   * applied).
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   */
  static @Nullable String of(JsonObject object, String manager) {
    return of(object, manager, null, null, null);
  }

  /**
   * Why the object drifted, or {@code null}; see {@link #find}.
   *
   * @param object the raw object
   * @param manager Capstan's field manager
   * @param kind the object's kind, to rebuild a manifest, or {@code null} to skip the hash check
   * @param appliedHash the content hash of what Capstan applied (the stamp's), or {@code null}
   * @param applied the object Capstan applied, or {@code null} when unknown
   */
  static @Nullable String of(
      JsonObject object,
      String manager,
      @Nullable Kind kind,
      @Nullable String appliedHash,
      @Nullable Manifest applied) {
    Manifest live = applied == null ? null : LiveContent.content(object, applied.kind());
    return find(object, live, manager, kind, appliedHash, applied).reason();
  }

  /**
   * The drift of the object: none at once when Capstan's fields rebuild to content hashing as
   * {@code appliedHash}; else, with {@code applied} and the object's {@code live} content, every
   * field of {@code applied} gone or held by another manager; else the older rule.
   *
   * @param object the raw object
   * @param live its content ({@link LiveContent#content}), or {@code null}
   * @param manager Capstan's field manager
   * @param kind the object's kind, to rebuild a manifest, or {@code null} to skip the hash check
   * @param appliedHash the content hash of what Capstan applied (the stamp's), or {@code null}
   * @param applied the object Capstan applied, or {@code null} when unknown
   */
  static Finding find(
      JsonObject object,
      @Nullable Manifest live,
      String manager,
      @Nullable Kind kind,
      @Nullable String appliedHash,
      @Nullable Manifest applied) {
    JsonObject metadata = JsonTrees.object(object, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return Finding.NONE;
    }
    if (kind != null
        && appliedHash != null
        && appliedHash.equals(AppliedHashes.of(object, entries, manager, kind))) {
      return Finding.NONE;
    }
    JsonObject capstans = AppliedFieldsOf.owned(entries, manager);
    OffsetDateTime ours = null;
    for (JsonElement e : entries) {
      if (e instanceof JsonObject entry && capstansApply(entry, manager)) {
        OffsetDateTime t = time(entry);
        if (t != null && (ours == null || t.isAfter(ours))) {
          ours = t;
        }
      }
    }
    if (ours == null) {
      return Finding.NONE; // not applied by Capstan: nothing it applied can have moved
    }
    if (applied != null && live != null) {
      return byOwnership(entries, capstans, manager, appliedTree(applied), live);
    }
    String reason = olderRule(entries, capstans, manager, ours);
    return reason == null ? Finding.NONE : new Finding(reason, List.of());
  }

  private static boolean capstansApply(JsonObject entry, String manager) {
    return manager.equals(JsonTrees.text(entry, "manager"))
        && "Apply".equals(JsonTrees.text(entry, "operation"))
        && JsonTrees.text(entry, "subresource") == null;
  }

  /** Every field of {@code applied} the live object departs from that Capstan no longer owns. */
  private static Finding byOwnership(
      JsonArray entries,
      @Nullable JsonObject capstans,
      String manager,
      Manifest applied,
      Manifest live) {
    List<FieldDrift> fields = new ArrayList<>();
    for (AppliedFields.Departure d :
        AppliedFields.departures(applied, live, (path, items) -> listKeys(entries, path, items))) {
      if (capstans != null && owns(capstans, d.fields())) {
        continue; // Capstan's still: rewritten by the server, or a zero value it does not keep
      }
      if (d.removed()) {
        fields.add(FieldDrift.removed(d.path(), d.pointer()));
        continue;
      }
      JsonObject holder = null;
      for (JsonElement e : entries) {
        if (e instanceof JsonObject entry
            && !capstansApply(entry, manager)
            && entry.get("fieldsV1") instanceof JsonObject f
            && owns(f, d.fields())) {
          holder = entry;
          break;
        }
      }
      fields.add(
          FieldDrift.taken(
              d.path(),
              d.pointer(),
              holder == null ? null : JsonTrees.text(holder, "manager"),
              holder == null ? null : JsonTrees.text(holder, "subresource")));
    }
    return fields.isEmpty() ? Finding.NONE : new Finding(fields.get(0).describe(), fields);
  }

  /**
   * The key fields of the list at {@code path}, as the managed fields of any manager name its items
   * ({@code k:{"containerPort":80,"protocol":"TCP"}}); a list some manager owns without keyed items
   * is compared whole; one nobody owns any more, by name when its applied items all have one.
   */
  private static List<String> listKeys(JsonArray entries, List<String> path, List<?> applied) {
    java.util.Set<String> keys = new java.util.TreeSet<>();
    boolean owned = false;
    for (JsonElement e : entries) {
      if (!(e instanceof JsonObject entry)
          || !(entry.get("fieldsV1") instanceof JsonObject fields)) {
        continue;
      }
      JsonObject node = node(fields, path);
      if (node == null) {
        continue;
      }
      owned = true;
      for (String key : node.keySet()) {
        if (key.startsWith("k:")) {
          try {
            if (JsonParser.parseString(key.substring(2)) instanceof JsonObject item) {
              keys.addAll(item.keySet());
            }
          } catch (RuntimeException bad) {
            // not a list key
          }
        }
      }
    }
    if (!keys.isEmpty()) {
      return List.copyOf(keys);
    }
    return owned ? List.of() : wellKnownKeys(path, applied);
  }

  /**
   * For a list no manager owns any more (every item removed): the merge keys of the built-in lists
   * whose items also carry a {@code name} that is not their key (container and Service ports,
   * volume mounts), else the items' name.
   */
  private static List<String> wellKnownKeys(List<String> path, List<?> applied) {
    String last = path.isEmpty() ? "" : path.get(path.size() - 1);
    for (String key : List.of("containerPort", "port", "mountPath", "devicePath")) {
      boolean all =
          !applied.isEmpty()
              && applied.stream().allMatch(i -> i instanceof Map<?, ?> m && m.get(key) != null);
      if (all
          && (last.equals("f:ports")
              || last.equals("f:volumeMounts")
              || last.equals("f:volumeDevices"))) {
        return List.of(key);
      }
    }
    return AppliedFields.ListKeys.BY_NAME.at(path, applied);
  }

  /** The older rule: the first field another manager wrote since Capstan's last apply. */
  private static @Nullable String olderRule(
      JsonArray entries, @Nullable JsonObject capstans, String manager, OffsetDateTime ours) {
    for (JsonElement e : entries) {
      if (!(e instanceof JsonObject entry)) {
        continue;
      }
      String who = JsonTrees.text(entry, "manager");
      String operation = JsonTrees.text(entry, "operation");
      OffsetDateTime t = time(entry);
      if (who == null
          || capstansApply(entry, manager)
          || who.equals(manager)
          || !("Update".equals(operation) || "Apply".equals(operation))
          || t == null
          || t.isBefore(ours)
          || !(entry.get("fieldsV1") instanceof JsonObject fields)) {
        continue;
      }
      List<Leaf> found = new ArrayList<>();
      leaves(fields, new ArrayList<>(), found);
      for (Leaf leaf : found) {
        String first = leaf.keys().get(0);
        if (first.equals("f:metadata")
            || first.equals("f:status")
            || leaf.keys().equals(List.of("f:spec", "f:volumeName"))) {
          continue; // others' metadata, status, a binder's volume name: theirs
        }
        if (capstans != null && owns(capstans, leaf.keys())) {
          continue; // Capstan still owns it too: it holds what Capstan applied
        }
        String subresource = JsonTrees.text(entry, "subresource");
        return FieldDrift.taken(AppliedFields.pathOf(leaf.keys()), "", who, subresource).describe();
      }
    }
    return null;
  }

  /**
   * What Capstan applied, as the server stores it: a Secret's {@code stringData} entries are {@code
   * data} entries, base64-encoded (the server moves them there, and Capstan's entry keeps them
   * under {@code stringData}, a field the stored object never has).
   */
  private static Manifest appliedTree(Manifest applied) {
    if (!applied.kind().equals(Kind.SECRET)
        || !(applied.content().get("stringData") instanceof Map<?, ?> text)) {
      return applied;
    }
    Map<String, Object> data = new LinkedHashMap<>();
    if (applied.content().get("data") instanceof Map<?, ?> d) {
      d.forEach((k, v) -> data.put(String.valueOf(k), v));
    }
    text.forEach(
        (k, v) ->
            data.put(
                String.valueOf(k),
                v instanceof String value
                    ? Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
                    : ""));
    Map<String, Object> tree = new LinkedHashMap<>(applied.content());
    tree.remove("stringData");
    tree.put("data", data);
    return applied.withContent(tree);
  }

  /**
   * Whether the managed-fields tree {@code fields} has the path {@code keys}; a list item ({@code
   * k:{...}}) is matched by the key fields the path names (the server's key may hold more, which it
   * defaulted: a port's {@code protocol}).
   */
  private static boolean owns(JsonObject fields, List<String> keys) {
    return node(fields, keys) != null;
  }

  /** The managed-fields node at {@code keys}, or {@code null}. */
  private static @Nullable JsonObject node(JsonObject fields, List<String> keys) {
    JsonObject node = fields;
    for (String key : keys) {
      JsonObject child = node.get(key) instanceof JsonObject exact ? exact : null;
      if (child == null && key.startsWith("k:")) {
        child = keyedItem(node, key.substring(2));
      }
      if (child == null) {
        return null;
      }
      node = child;
    }
    return node;
  }

  /** The {@code k:} child of {@code node} whose key holds every field of {@code json}. */
  private static @Nullable JsonObject keyedItem(JsonObject node, String json) {
    JsonElement wanted;
    try {
      wanted = JsonParser.parseString(json);
    } catch (RuntimeException e) {
      return null;
    }
    if (!(wanted instanceof JsonObject want) || want.size() == 0) {
      return null;
    }
    for (String key : node.keySet()) {
      if (!key.startsWith("k:")) {
        continue;
      }
      JsonElement parsed;
      try {
        parsed = JsonParser.parseString(key.substring(2));
      } catch (RuntimeException e) {
        continue;
      }
      if (parsed instanceof JsonObject have
          && want.entrySet().stream()
              .allMatch(
                  e -> have.get(e.getKey()) != null && sameJson(have.get(e.getKey()), e.getValue()))
          && node.get(key) instanceof JsonObject child) {
        return child;
      }
    }
    return null;
  }

  /** Equal JSON values, numbers by value ({@code 8080} and {@code 8080.0}). */
  private static boolean sameJson(JsonElement a, JsonElement b) {
    if (a.isJsonPrimitive()
        && b.isJsonPrimitive()
        && a.getAsJsonPrimitive().isNumber()
        && b.getAsJsonPrimitive().isNumber()) {
      return a.getAsBigDecimal().compareTo(b.getAsBigDecimal()) == 0;
    }
    return a.equals(b);
  }

  /**
   * A leaf of a {@code fieldsV1} tree: its keys ({@code [f:spec, f:rules]}), and whether the
   * manager owns only the map or list there (a {@code "."} entry), not a value.
   */
  private record Leaf(List<String> keys, boolean container) {}

  /** The leaves of a {@code fieldsV1} tree. */
  private static void leaves(JsonObject node, List<String> keys, List<Leaf> out) {
    boolean any = false;
    for (String key : node.keySet()) {
      if (key.equals(".")) {
        continue;
      }
      any = true;
      List<String> path = new ArrayList<>(keys);
      path.add(key);
      if (node.get(key) instanceof JsonObject child && child.size() > 0) {
        leaves(child, path, out);
      } else {
        out.add(new Leaf(List.copyOf(path), false));
      }
    }
    if (!any && !keys.isEmpty()) {
      out.add(new Leaf(List.copyOf(keys), node.has(".")));
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
