package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ReleaseIdentity;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Deleting and un-stamping an object only while it carries a given owner's stamp: read it, check
 * the stamp, then write with the read object's uid and resourceVersion as preconditions, so an
 * object that changed hands in between is never touched. A lost race is read again (at most {@value
 * #ATTEMPTS} times).
 */
final class OwnedObjects {
  static final int ATTEMPTS = 3;

  private OwnedObjects() {}

  /**
   * Deletes the object if it exists and {@code owner} owns it.
   *
   * @return whether it was deleted
   */
  static boolean delete(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      String name,
      ReleaseIdentity owner,
      @Nullable String propagationPolicy) {
    for (int attempt = 1; ; attempt++) {
      Optional<V1ObjectMeta> meta = ownedMeta(api, namespace, name, owner);
      if (meta.isEmpty()) {
        return false;
      }
      try {
        return api.delete(
            namespace,
            name,
            meta.get().getUid(),
            meta.get().getResourceVersion(),
            propagationPolicy);
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Removes {@code owner}'s stamp (its labels and annotations, except {@code keep}) if the object
   * exists and {@code owner} owns it, with a JSON merge patch conditioned on the resourceVersion.
   *
   * @return whether a stamp was removed
   */
  static boolean unstamp(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      String name,
      ReleaseIdentity owner,
      Set<String> keep) {
    for (int attempt = 1; ; attempt++) {
      Optional<V1ObjectMeta> meta = ownedMeta(api, namespace, name, owner);
      if (meta.isEmpty()) {
        return false;
      }
      String patch =
          Stamps.removalPatch(meta.get(), String.valueOf(meta.get().getResourceVersion()), keep);
      try {
        api.patch(
            namespace, name, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, patch, Stamps.MANAGER_NAME);
        return true;
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static Optional<V1ObjectMeta> ownedMeta(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      String name,
      ReleaseIdentity owner) {
    Optional<JsonObject> live = api.getRaw(namespace, name);
    if (live.isEmpty() || !(live.get().get("metadata") instanceof JsonObject m)) {
      return Optional.empty();
    }
    V1ObjectMeta meta = JSON.getGson().fromJson(m, V1ObjectMeta.class);
    return Stamps.ownedBy(meta, owner) ? Optional.of(meta) : Optional.empty();
  }
}
