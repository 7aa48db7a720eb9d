package dev.capstan.release.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.release.internal.json.Json;
import java.util.List;
import java.util.Map;

/**
 * Reads schema-1 records (four kinds) as schema 2: each {@code {"type", "namespace", "name"}} ref
 * becomes the refs of the objects its kind renders to, and a service's {@code envFrom} entries name
 * their kind.
 */
final class SchemaV1 {
  /** What each schema-1 type renders to: apiVersion and kind, in order. */
  private static final Map<String, List<String[]>> OBJECTS =
      Map.of(
          "service",
          List.of(new String[] {"apps/v1", "Deployment"}, new String[] {"v1", "Service"}),
          "secret",
          List.<String[]>of(new String[] {"v1", "Secret"}),
          "configmap",
          List.<String[]>of(new String[] {"v1", "ConfigMap"}),
          "volume",
          List.<String[]>of(new String[] {"v1", "PersistentVolumeClaim"}),
          "namespace",
          List.<String[]>of(new String[] {"v1", "Namespace"}),
          "storage_class",
          List.<String[]>of(new String[] {"storage.k8s.io/v1", "StorageClass"}));

  private SchemaV1() {}

  static ObjectNode upgrade(ObjectNode release) {
    ObjectNode out = release.deepCopy();
    ArrayNode owns = out.putArray("owns");
    for (JsonNode owned : release.path("owns")) {
      for (ObjectNode ref : refs(owned.path("ref"))) {
        ObjectNode o = owns.addObject();
        o.set("contentHash", owned.path("contentHash"));
        o.set("ref", ref);
      }
    }
    for (String list : List.of("references", "retained")) {
      ArrayNode refs = out.putArray(list);
      for (JsonNode ref : release.path(list)) {
        refs.addAll(refs(ref));
      }
    }
    for (JsonNode payload : out.path("payloads")) {
      if ("service".equals(payload.path("kind").asText())) {
        for (JsonNode from : payload.path("envFrom")) {
          ObjectNode f = (ObjectNode) from;
          JsonNode type = f.remove("type");
          f.put(
              "kind",
              "secret".equals(type == null ? null : type.asText()) ? "Secret" : "ConfigMap");
        }
      }
    }
    return out;
  }

  private static List<ObjectNode> refs(JsonNode v1) {
    List<String[]> objects = OBJECTS.get(v1.path("type").asText());
    if (objects == null) {
      throw new RecordFormatException(
          "release record (schema 1) has a ref of unknown type: " + v1.path("type"), null);
    }
    return objects.stream()
        .map(
            o -> {
              ObjectNode ref = Json.mapper().createObjectNode();
              ref.put("apiVersion", o[0]);
              ref.put("kind", o[1]);
              ref.put("name", v1.path("name").asText());
              ref.put("namespace", v1.path("namespace").asText());
              return ref;
            })
        .toList();
  }
}
