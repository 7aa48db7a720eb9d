package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import org.jspecify.annotations.Nullable;

/**
 * Server-side dry runs: the apply PATCH an update would send ({@link Applies#applyBody}), with
 * {@code dryRun=All}, read back as observation reads content; nothing is written.
 */
final class DryRuns {
  private final DynamicApis apis;
  private final ServedKinds kinds;

  DryRuns(DynamicApis apis, ServedKinds kinds) {
    this.apis = apis;
    this.kinds = kinds;
  }

  /** {@link KubernetesOrchestrator#dryRunApply}. */
  Manifest apply(Manifest object, @Nullable OwnershipStamp stamp) {
    requireNonNull(object, "object");
    Kind kind = object.kind();
    Discovery.Resource resource = kinds.served(kind, "dry-run apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    JsonObject raw =
        apis.api(resource)
            .calls
            .dryRunApply(
                namespace,
                object.name(),
                JsonTrees.toJson(Applies.applyBody(object, stamp)),
                Stamps.MANAGER_NAME);
    Manifest result = LiveContent.content(raw, kind);
    if (result == null || !result.ref().equals(object.ref())) {
      throw new ClusterException(
          "dry-run apply",
          kind.key(),
          namespace,
          object.name(),
          0,
          "the API server returned an object that cannot be read back as " + object.ref().key(),
          null);
    }
    return result;
  }
}
