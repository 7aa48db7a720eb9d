package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.port.Precondition;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Writes of the release's objects: stamped with the ownership labels and annotations, one
 * server-side apply (PATCH) under field manager {@code capstan}, forced (the plan has decided). An
 * update carries the observed {@code metadata.uid} and {@code resourceVersion} in the body as
 * preconditions; a create carries {@link #CREATE_ONLY_VERSION}. Fields given up are first taken out
 * of Capstan's managed fields ({@link FieldManagers#giveUp}). Each write's answer is handed to the
 * {@link HealthWatch}, and a CRD written to discovery.
 */
final class Applies {
  /**
   * The {@code metadata.resourceVersion} a create's server-side apply carries: the largest value
   * the API server parses (an unsigned 64-bit storage revision), which no stored object reaches.
   * Measured on kube-apiserver 1.36: an apply with it creates an absent object (a create ignores
   * the resourceVersion) and is refused with 409 Conflict ("the object has been modified") when the
   * object exists, so a create is one request that cannot take over an object that appeared since
   * the plan. (A {@code metadata.uid} cannot serve: an apply carrying one is refused for an absent
   * object.)
   */
  static final String CREATE_ONLY_VERSION = "18446744073709551615";

  private final DynamicApis apis;
  private final ServedKinds kinds;
  private final HealthWatch health;

  Applies(DynamicApis apis, ServedKinds kinds, HealthWatch health) {
    this.apis = apis;
    this.kinds = kinds;
    this.health = health;
  }

  /** {@link KubernetesOrchestrator#apply(Manifest, OwnershipStamp, Precondition)}. */
  void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    requireNonNull(object, "object");
    requireNonNull(precondition, "precondition");
    Kind kind = object.kind();
    Discovery.Resource resource = kinds.served(kind, "apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> calls =
        apis.api(resource).calls;
    Map<String, Object> body = applyBody(object, stamp, precondition);
    try {
      DynamicKubernetesObject written =
          calls.applyJson(namespace, object.name(), JsonTrees.toJson(body), Stamps.MANAGER_NAME);
      if (written.getMetadata() != null) {
        health.written(object.ref(), written.getMetadata().getResourceVersion(), written.getRaw());
      }
    } catch (ClusterException e) {
      throw Fences.fenced(
          e,
          precondition instanceof Precondition.Absent ? "create" : "apply",
          object.ref(),
          precondition);
    }
    if (kind.isCrd()) {
      apis.defined(
          object.get("spec.group") instanceof String g ? g : null,
          object.get("spec.names.kind") instanceof String k ? k : null);
    }
  }

  /**
   * The body {@link #apply(Manifest, OwnershipStamp, Precondition)} sends: {@link
   * #applyBody(Manifest, OwnershipStamp)} with {@code precondition} as metadata (a create's {@link
   * #CREATE_ONLY_VERSION}, an update's observed uid and resourceVersion).
   */
  static Map<String, Object> applyBody(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    Map<String, Object> body = applyBody(object, stamp);
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata =
        (Map<String, Object>) requireNonNull(body.get("metadata"), "metadata");
    if (precondition instanceof Precondition.Absent) {
      // an existing object fails with 409 Conflict (modified); see CREATE_ONLY_VERSION
      metadata.put("resourceVersion", CREATE_ONLY_VERSION);
    } else if (precondition instanceof Precondition.Observed observed) {
      // server-side apply honours both as preconditions: a changed object fails with 409
      // Conflict (modified), a re-created or deleted one with 409 Conflict (uid mismatch)
      metadata.put("uid", observed.uid());
      metadata.put("resourceVersion", observed.resourceVersion());
    }
    return body;
  }

  /** {@link KubernetesOrchestrator#apply(Manifest, OwnershipStamp, Precondition, List)}. */
  void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    Precondition at = precondition;
    if (!givenUp.isEmpty() && precondition instanceof Precondition.Observed observed) {
      Discovery.Resource resource = kinds.served(object.kind(), "apply", object.ref());
      at =
          FieldManagers.giveUp(
              apis.api(resource).calls,
              object.kind().namespaced() ? object.namespace() : null,
              object.ref(),
              observed,
              givenUp);
    }
    apply(object, stamp, at);
  }

  /**
   * The server-side apply body of {@code object}: its content with the stamp, and a mutable copy of
   * its metadata under {@code metadata}.
   */
  static Map<String, Object> applyBody(Manifest object, @Nullable OwnershipStamp stamp) {
    Map<String, Object> body = new LinkedHashMap<>(object.content());
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (body.get("metadata") instanceof Map<?, ?> m) {
      m.forEach((k, v) -> metadata.put(String.valueOf(k), v));
    }
    if (stamp != null) {
      Map<String, String> labels = strings(metadata.get("labels"));
      Map<String, String> annotations = strings(metadata.get("annotations"));
      Stamps.write(stamp, labels, annotations);
      metadata.put("labels", labels);
      metadata.put("annotations", annotations);
    }
    body.put("metadata", metadata);
    return body;
  }

  private static Map<String, String> strings(@Nullable Object map) {
    Map<String, String> out = new TreeMap<>();
    if (map instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    }
    return out;
  }
}
