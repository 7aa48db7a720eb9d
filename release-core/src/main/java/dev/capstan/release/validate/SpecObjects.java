package dev.capstan.release.validate;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns today's typed specs into the object trees {@link ApiServerLimits} checks: the fields that
 * count towards the API server's limits (metadata, data, the container's command, args and
 * environment), in the shape the adapters write them.
 */
public final class SpecObjects {
  private SpecObjects() {}

  /**
   * Checks a typed spec against the API server's limits.
   *
   * @param spec the spec
   * @return one line per problem (see {@link ApiServerLimits#check})
   */
  public static List<String> check(ResourceSpec spec) {
    return toObject(spec).map(ApiServerLimits::check).orElse(List.of());
  }

  /**
   * The object tree of a typed spec.
   *
   * @param spec the spec
   * @return the tree; empty for kinds that hold no user data
   */
  public static Optional<Map<String, @Nullable Object>> toObject(ResourceSpec spec) {
    if (spec instanceof ConfigMapSpec c) {
      Map<String, @Nullable Object> o =
          object("v1", "ConfigMap", c.namespace(), c.name(), c.labels(), c.annotations());
      o.put("data", c.data());
      return Optional.of(o);
    }
    if (spec instanceof SecretSpec s) {
      Map<String, @Nullable Object> o =
          object("v1", "Secret", s.namespace(), s.name(), s.labels(), s.annotations());
      o.put("type", s.type());
      Map<String, String> data = new LinkedHashMap<>();
      for (Map.Entry<String, SecretValue> e : s.data().entrySet()) {
        data.put(e.getKey(), e.getValue().base64());
      }
      o.put("data", data);
      return Optional.of(o);
    }
    if (spec instanceof ServiceSpec s) {
      Map<String, @Nullable Object> o =
          object("apps/v1", "Deployment", s.namespace(), s.name(), s.labels(), s.annotations());
      List<Map<String, String>> env = new ArrayList<>();
      s.env().forEach((k, v) -> env.add(Map.of("name", k, "value", v)));
      Map<String, @Nullable Object> container = new LinkedHashMap<>();
      container.put("name", s.name());
      container.put("image", s.image());
      container.put("command", s.command());
      container.put("args", s.args());
      container.put("env", env);
      o.put(
          "spec",
          Map.of(
              "replicas",
              s.replicas(),
              "template",
              Map.of("spec", Map.of("containers", List.of(container)))));
      return Optional.of(o);
    }
    if (spec instanceof VolumeSpec v) {
      return Optional.of(
          object(
              "v1", "PersistentVolumeClaim", v.namespace(), v.name(), v.labels(), v.annotations()));
    }
    return Optional.empty();
  }

  private static Map<String, @Nullable Object> object(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, String> annotations) {
    Map<String, @Nullable Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("namespace", namespace);
    metadata.put("labels", labels);
    metadata.put("annotations", annotations);
    Map<String, @Nullable Object> o = new LinkedHashMap<>();
    o.put("apiVersion", apiVersion);
    o.put("kind", kind);
    o.put("metadata", metadata);
    return o;
  }
}
