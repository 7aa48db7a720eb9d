package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An {@link InMemoryCluster}'s state as JSON ({@link InMemoryCluster#exportState()}, {@link
 * InMemoryCluster#importState(byte[])}): objects with their stamps, uids and resource versions,
 * records with their versions, namespaces, storage classes, served custom kinds, records (the
 * codec's bytes), leases, never-ready images and reported statuses.
 */
final class StateFormat {
  static final String STATE_FORMAT = "capstan.dev/in-memory-cluster.v2";

  private StateFormat() {}

  /** The state of {@code mo} and {@code mr}; the caller holds the cluster's lock. */
  static byte[] export(MemoryObjects mo, MemoryRecords mr) {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("format", STATE_FORMAT);
    root.set("namespaces", Json.mapper().valueToTree(mo.namespaces.keySet()));
    ObjectNode fields = root.putObject("namespaceFields");
    mo.namespaces.forEach(
        (name, state) -> {
          if (!state.labels.isEmpty() || !state.annotations.isEmpty()) {
            ObjectNode byManager = fields.putObject(name);
            new TreeSet<>(state.managers())
                .forEach(
                    m -> {
                      ObjectNode node = byManager.putObject(m);
                      node.set(
                          "labels",
                          Json.mapper().valueToTree(state.labels.getOrDefault(m, Map.of())));
                      node.set(
                          "annotations",
                          Json.mapper().valueToTree(state.annotations.getOrDefault(m, Map.of())));
                    });
          }
        });
    root.set("storageClasses", Json.mapper().valueToTree(mo.storageClasses));
    root.set("neverReady", Json.mapper().valueToTree(mo.health.neverReady));
    if (!mo.health.failToComplete.isEmpty()) {
      root.set("failToComplete", Json.mapper().valueToTree(mo.health.failToComplete));
    }
    ArrayNode kinds = root.putArray("servedKinds");
    new TreeMap<>(mo.served.kinds)
        .values()
        .forEach(
            k -> {
              ObjectNode node = kinds.addObject();
              node.put("apiVersion", k.apiVersion());
              node.put("kind", k.kind());
              node.put("namespaced", k.namespaced());
            });
    ArrayNode objs = root.putArray("objects");
    TreeMap<ResourceRef, StoredObject> sorted = new TreeMap<>(ResourceRef.APPLY_ORDER);
    sorted.putAll(mo.objects);
    for (StoredObject o : sorted.values()) {
      ObjectNode node = objs.addObject();
      node.set("object", Json.mapper().valueToTree(o.content.content()));
      node.put("uid", o.uid);
      node.put("resourceVersion", o.version);
      if (o.stamp != null) {
        node.set("stamp", Json.mapper().valueToTree(o.stamp));
      }
      List<String> stored = mo.served.storedVersions.get(o.content.ref());
      if (stored != null) {
        node.set("storedVersions", Json.mapper().valueToTree(stored));
      }
      if (!o.appliedHash.equals(o.hash)) {
        if (o.applied != null) {
          node.set("applied", Json.mapper().valueToTree(o.applied.content()));
        } else {
          node.put("appliedHash", o.appliedHash);
        }
      }
      if (!o.takenBy.isEmpty()) {
        ObjectNode taken = node.putObject("takenBy");
        new TreeMap<>(o.takenBy)
            .forEach(
                (pointer, writer) -> {
                  ObjectNode w = taken.putObject(pointer);
                  w.put("manager", writer.manager());
                  if (writer.subresource() != null) {
                    w.put("subresource", writer.subresource());
                  }
                });
      }
    }
    ObjectNode recs = root.putObject("records");
    new TreeMap<>(mr.records)
        .forEach(
            (key, revs) -> {
              ObjectNode byRev = recs.putObject(key);
              revs.forEach(
                  (rev, e) ->
                      byRev.put(
                          Integer.toString(rev), Base64.getEncoder().encodeToString(e.bytes)));
            });
    ObjectNode recordVersions = root.putObject("recordVersions");
    new TreeMap<>(mr.records)
        .forEach(
            (key, revs) -> {
              ObjectNode byRev = recordVersions.putObject(key);
              revs.forEach((rev, e) -> byRev.put(Integer.toString(rev), e.version));
            });
    root.set("leases", Json.mapper().valueToTree(new TreeMap<>(mr.leases)));
    if (!mr.leaseIntents.isEmpty()) {
      root.set("leaseIntents", Json.mapper().valueToTree(new TreeMap<>(mr.leaseIntents)));
    }
    if (!mo.health.statuses.isEmpty()) {
      ArrayNode reported = root.putArray("statuses");
      TreeMap<ResourceRef, Map<String, Object>> byRef = new TreeMap<>(ResourceRef.APPLY_ORDER);
      byRef.putAll(mo.health.statuses);
      byRef.forEach(
          (ref, status) -> {
            ObjectNode node = reported.addObject();
            node.set("ref", Json.mapper().valueToTree(ref));
            node.set("status", Json.mapper().valueToTree(status));
          });
    }
    return Json.canonical(root);
  }

  /**
   * Loads {@code state} into the new cluster {@code c}, whose halves are {@code mo} and {@code mr}.
   *
   * @throws IllegalArgumentException if the bytes are not such a state
   */
  static void load(byte[] state, InMemoryCluster c, MemoryObjects mo, MemoryRecords mr) {
    try {
      JsonNode root = Json.mapper().readTree(state);
      if (root == null || !STATE_FORMAT.equals(root.path("format").asText())) {
        throw new IllegalArgumentException(
            "in-memory cluster state must have format "
                + STATE_FORMAT
                + " (a state written by an older Capstan cannot be read; remove it to start anew)");
      }
      mo.namespaces.clear();
      root.path("namespaces").forEach(n -> c.addNamespace(n.asText()));
      for (Map.Entry<String, JsonNode> ns : root.path("namespaceFields").properties()) {
        for (Map.Entry<String, JsonNode> m : ns.getValue().properties()) {
          c.applyNamespace(
              ns.getKey(),
              m.getKey(),
              strings(m.getValue().path("labels")),
              strings(m.getValue().path("annotations")));
        }
      }
      mo.storageClasses.clear();
      root.path("storageClasses").forEach(n -> mo.storageClasses.add(n.asText()));
      for (Map.Entry<String, JsonNode> e : root.path("neverReady").properties()) {
        mo.health.neverReady.put(e.getKey(), e.getValue().asText());
      }
      for (Map.Entry<String, JsonNode> e : root.path("failToComplete").properties()) {
        mo.health.failToComplete.put(e.getKey(), e.getValue().asText());
      }
      for (JsonNode k : root.path("servedKinds")) {
        c.serve(
            Kind.of(
                k.path("apiVersion").asText(),
                k.path("kind").asText(),
                k.path("namespaced").asBoolean()));
      }
      for (JsonNode node : root.path("objects")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = Json.mapper().treeToValue(node.get("object"), Map.class);
        Manifest spec = Manifest.of(tree);
        OwnershipStamp stamp =
            node.has("stamp")
                ? Json.mapper().treeToValue(node.get("stamp"), OwnershipStamp.class)
                : null;
        c.put(spec, stamp);
        if (node.get("storedVersions") instanceof ArrayNode stored) {
          List<String> versions = new ArrayList<>();
          stored.forEach(v -> versions.add(v.asText()));
          mo.served.storedVersions.put(spec.ref(), List.copyOf(versions));
        }
        if (node.hasNonNull("uid") && node.path("resourceVersion").canConvertToLong()) {
          // the identity it had; a state saved before it was kept gets new ones, as before
          mo.restoreIdentity(
              spec.ref(), node.get("uid").asText(), node.get("resourceVersion").asLong());
        }
        StoredObject o = requireNonNull(mo.objects.get(spec.ref()));
        if (node.hasNonNull("applied")) {
          @SuppressWarnings("unchecked")
          Map<String, Object> appliedTree =
              Json.mapper().treeToValue(node.get("applied"), Map.class);
          Manifest applied = Manifest.of(appliedTree);
          Map<String, StoredObject.Writer> takenBy = new java.util.HashMap<>();
          for (Map.Entry<String, JsonNode> t : node.path("takenBy").properties()) {
            JsonNode sub = t.getValue().get("subresource");
            takenBy.put(
                t.getKey(),
                new StoredObject.Writer(
                    t.getValue().path("manager").asText(), sub == null ? null : sub.asText()));
          }
          mo.objects.put(
              spec.ref(),
              new StoredObject(
                  o.content,
                  o.stamp,
                  o.hash,
                  ContentHash.of(applied),
                  applied,
                  o.uid,
                  o.version,
                  takenBy));
        } else {
          // a state from before the applied content was kept: drift by hash alone
          String appliedHash =
              node.hasNonNull("appliedHash")
                  ? node.get("appliedHash").asText()
                  : stamp != null && !ContentHash.isKeyed(stamp.contentHash())
                      ? stamp.contentHash()
                      : null;
          if (appliedHash != null) {
            mo.objects.put(
                spec.ref(),
                new StoredObject(o.content, o.stamp, o.hash, appliedHash, null, o.uid, o.version));
          }
        }
      }
      // each record's version as saved (a state saved before they were kept gets new ones, above
      // every saved one): a reviewed plan names the version of the record it saw
      JsonNode savedVersions = root.path("recordVersions");
      for (JsonNode byRev : savedVersions) {
        for (JsonNode v : byRev) {
          mr.versions = Math.max(mr.versions, v.asLong());
        }
      }
      for (Map.Entry<String, JsonNode> release : root.path("records").properties()) {
        NavigableMap<Integer, StoredRecord> revs = new TreeMap<>();
        JsonNode saved = savedVersions.path(release.getKey());
        for (Map.Entry<String, JsonNode> rev : release.getValue().properties()) {
          byte[] bytes = Base64.getDecoder().decode(rev.getValue().asText());
          JsonNode version = saved.path(rev.getKey());
          revs.put(
              Integer.parseInt(rev.getKey()),
              new StoredRecord(
                  bytes,
                  ReleaseRecordCodec.decode(bytes),
                  version.canConvertToLong() && version.isNumber()
                      ? version.asLong()
                      : ++mr.versions));
        }
        mr.records.put(release.getKey(), revs);
      }
      for (Map.Entry<String, JsonNode> e : root.path("leases").properties()) {
        mr.leases.put(e.getKey(), Json.mapper().treeToValue(e.getValue(), Lease.class));
        mr.leaseVersions.put(e.getKey(), ++mr.leaseWrites);
        JsonNode intent = root.path("leaseIntents").get(e.getKey());
        if (intent != null && intent.isTextual()) {
          mr.leaseIntents.put(e.getKey(), intent.asText());
        }
      }
      for (JsonNode node : root.path("statuses")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> status = Json.mapper().treeToValue(node.get("status"), Map.class);
        c.reportStatus(Json.mapper().treeToValue(node.get("ref"), ResourceRef.class), status);
      }
    } catch (java.io.IOException | RuntimeException e) {
      throw new IllegalArgumentException("not an in-memory cluster state: " + e.getMessage(), e);
    }
  }

  private static Map<String, String> strings(JsonNode node) {
    Map<String, String> out = new TreeMap<>();
    node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
