package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.Optional;
import java.util.Set;
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

  /**
   * {@link KubernetesOrchestrator#verifyApply}: the very PATCH {@link Applies} sends, preconditions
   * included, with {@code dryRun=All}. A refusal is an answer with HTTP 400, 403, 404, 409 or 422
   * (validation, admission, quota, a missing namespace, an immutable field), or server-side apply's
   * refusal of the content, which comes as a 500 ({@link KubeFailure#refusesContent}: a field the
   * schema does not declare, a value of the wrong type); any other 500 is a fault of the server's
   * and throws. A 409 on a write with a precondition is the precondition failing, thrown as {@link
   * PreconditionFailedException}; the authorizer's 403 ({@code User "..." cannot patch resource
   * ...}) is no verdict on the object but on the identity's rights, and throws, as any other
   * failure does.
   *
   * <p>An answer that stores a number beyond 32 bits otherwise than it was sent ({@link
   * StoredNumbers}: an {@code int32} field wraps {@code 4294967298} to 2 with no error) is a
   * refusal too, read from the answer this request has anyway: no request more.
   */
  Optional<String> verify(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    requireNonNull(object, "object");
    Kind kind = object.kind();
    Discovery.Resource resource = kinds.served(kind, "dry-run apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    String body = JsonTrees.toJson(Applies.applyBody(object, stamp, precondition));
    try {
      JsonObject answer =
          apis.api(resource).calls.dryRunApply(namespace, object.name(), body, Stamps.MANAGER_NAME);
      return StoredNumbers.changed(object, answer);
    } catch (ClusterException e) {
      if (Fences.fenced(e, "dry-run apply", object.ref(), precondition)
          instanceof PreconditionFailedException fenced) {
        throw fenced;
      }
      boolean unauthorized =
          e.status() == 403 && String.valueOf(e.getMessage()).contains(" cannot patch resource ");
      if (e instanceof KubeFailure.ContentRefused
          || (Set.of(400, 403, 404, 409, 422).contains(e.status()) && !unauthorized)) {
        return Optional.of(String.valueOf(e.getMessage()));
      }
      throw e;
    }
  }
}
