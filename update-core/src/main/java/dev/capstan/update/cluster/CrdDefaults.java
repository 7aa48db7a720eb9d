package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The defaulting the Kubernetes API server applies to a {@code apiextensions.k8s.io/v1}
 * CustomResourceDefinition spec, so that a spec as written and the same spec as stored compare
 * equal: {@code conversion} becomes {@code {strategy: None}} when absent, a webhook service's
 * {@code port} becomes 443, {@code names.singular} the lower-cased kind and {@code names.listKind}
 * the kind plus {@code List} when absent, and {@code preserveUnknownFields: false} is dropped (the
 * API server omits it). The in-memory cluster stores CRDs through it; the planner compares specs
 * through it. Idempotent.
 */
public final class CrdDefaults {
  private CrdDefaults() {}

  /**
   * Applies the API server's defaults to a CRD spec.
   *
   * @param spec a CRD {@code spec} tree (not modified)
   * @return a frozen copy with the defaults filled in
   */
  public static Map<String, @Nullable Object> apply(Map<String, @Nullable Object> spec) {
    Map<String, @Nullable Object> out = mutable(spec);
    if (!(out.get("conversion") instanceof Map<?, ?>)) {
      Map<String, @Nullable Object> conversion = new LinkedHashMap<>();
      conversion.put("strategy", "None");
      out.put("conversion", conversion);
    } else {
      Map<String, @Nullable Object> conversion = child(out, "conversion");
      if ("Webhook".equals(conversion.get("strategy"))
          && conversion.get("webhook") instanceof Map<?, ?>) {
        Map<String, @Nullable Object> webhook = child(conversion, "webhook");
        if (webhook.get("clientConfig") instanceof Map<?, ?>) {
          Map<String, @Nullable Object> clientConfig = child(webhook, "clientConfig");
          if (clientConfig.get("service") instanceof Map<?, ?>) {
            child(clientConfig, "service").putIfAbsent("port", 443L);
          }
        }
      }
    }
    if (out.get("names") instanceof Map<?, ?>) {
      Map<String, @Nullable Object> names = child(out, "names");
      if (names.get("kind") instanceof String kind && !kind.isEmpty()) {
        names.putIfAbsent("singular", kind.toLowerCase(Locale.ROOT));
        names.putIfAbsent("listKind", kind + "List");
      }
    }
    if (Boolean.FALSE.equals(out.get("preserveUnknownFields"))) {
      out.remove("preserveUnknownFields");
    }
    return Trees.freezeMap(out);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> child(
      Map<String, @Nullable Object> map, String key) {
    return (Map<String, @Nullable Object>) requireNonNull(map.get(key), key);
  }

  /** A deep, mutable copy (maps and lists), so nested defaults can be filled in place. */
  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> mutable(Map<String, @Nullable Object> map) {
    Map<String, @Nullable Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(k, copy(v)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static @Nullable Object copy(@Nullable Object value) {
    if (value instanceof Map<?, ?> m) {
      return mutable((Map<String, @Nullable Object>) m);
    }
    if (value instanceof List<?> l) {
      List<@Nullable Object> out = new ArrayList<>();
      l.forEach(x -> out.add(copy(x)));
      return out;
    }
    return value;
  }
}
