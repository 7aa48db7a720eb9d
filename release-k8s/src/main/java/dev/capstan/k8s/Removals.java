package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Precondition;
import io.kubernetes.client.custom.V1Patch;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Removals of the release's objects: a DELETE (background propagation) and an un-stamp (a JSON
 * merge patch removing the stamp), each conditioned on the observed uid and resourceVersion, or,
 * without them, on a GET that finds the owner's stamp ({@link OwnedObjects}).
 */
final class Removals {
  /** Annotations an unstamp keeps: they describe the object's data, not its owner. */
  static final Set<String> KEPT_ON_UNSTAMP = Set.of(Stamps.PREFIX + "reclaim-policy");

  private final DynamicApis apis;
  private final ServedKinds kinds;

  Removals(DynamicApis apis, ServedKinds kinds) {
    this.apis = apis;
    this.kinds = kinds;
  }

  /** {@link KubernetesOrchestrator#delete}. */
  boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = kinds.served(ref.kind(), "delete", ref);
    if (precondition instanceof Precondition.Observed observed) {
      try {
        return apis.api(resource)
            .calls
            .delete(
                scope(ref.kind(), ref.namespace()),
                ref.name(),
                observed.uid(),
                observed.resourceVersion(),
                "Background");
      } catch (ClusterException e) {
        throw Fences.fenced(e, "delete", ref, precondition);
      }
    }
    return OwnedObjects.delete(
        apis.api(resource).calls,
        scope(ref.kind(), ref.namespace()),
        ref.name(),
        owner,
        "Background");
  }

  /** {@link KubernetesOrchestrator#unstamp}. */
  boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = kinds.served(ref.kind(), "unstamp", ref);
    if (precondition instanceof Precondition.Observed observed) {
      try {
        var calls = apis.api(resource).calls;
        String namespace = scope(ref.kind(), ref.namespace());
        // Capstan's field-manager entry goes with its stamp, so that another tool's later
        // server-side apply of the kept object meets no conflict with a manager that left
        calls.patch(
            namespace,
            ref.name(),
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            FieldManagers.unstampPatch(
                calls,
                namespace,
                ref,
                observed,
                Stamps.removalPatch(
                    Stamps.stampOnly(), observed.resourceVersion(), KEPT_ON_UNSTAMP)),
            Stamps.MANAGER_NAME);
        return true;
      } catch (ClusterException e) {
        if (e.status() == 404) {
          return false;
        }
        throw Fences.fenced(e, "unstamp", ref, precondition);
      }
    }
    return OwnedObjects.unstamp(
        apis.api(resource).calls,
        scope(ref.kind(), ref.namespace()),
        ref.name(),
        owner,
        KEPT_ON_UNSTAMP);
  }

  private static @Nullable String scope(Kind kind, String namespace) {
    return kind.namespaced() ? namespace : null;
  }
}
