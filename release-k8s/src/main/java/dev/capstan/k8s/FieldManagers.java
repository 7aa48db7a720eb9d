package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Hands the fields of objects Capstan now owns over from the field managers that wrote them before
 * (another tool taken over, such as Helm), so that Capstan's own server-side apply is the only
 * owner of what it applies: a field a later cast stops applying is then removed, instead of being
 * kept alive by the old co-owner's entry in {@code metadata.managedFields}.
 *
 * <p>Only top-level entries of the named managers go, whatever their operation ({@code Update} for
 * a client-side writer, {@code Apply} for a server-side one); subresource entries ({@code status},
 * written by controllers) stay. Fields only those managers owned stay on the object, owned by
 * nobody: nothing is dropped. Each call is a GET and, when there is something to hand over, one
 * JSON merge patch of {@code metadata.managedFields} conditioned on the resourceVersion (retried on
 * a conflict); an object without Capstan's stamp of the given owner, or without an entry of
 * Capstan's own manager, is left alone.
 */
public final class FieldManagers {
  private final DynamicApis apis;

  /**
   * Works through the given clients.
   *
   * @param clients the clients
   */
  public FieldManagers(KubeClients clients) {
    this.apis = new DynamicApis(requireNonNull(clients, "clients"));
  }

  /**
   * Removes the top-level {@code managedFields} entries of {@code managers} from the object {@code
   * ref}, when it carries {@code owner}'s stamp and Capstan's manager has an entry.
   *
   * @param ref the object
   * @param owner the release that must own it
   * @param managers the field managers to hand over from, e.g. {@code helm}
   * @return the entries removed, as {@code manager operation} (e.g. {@code helm Update}), in their
   *     order; empty when there was none, or the object is absent or not owned by {@code owner}
   * @throws ClusterException when the API server refuses
   */
  public List<String> handOver(ResourceRef ref, ReleaseIdentity owner, Set<String> managers) {
    requireNonNull(ref, "ref");
    requireNonNull(owner, "owner");
    Set<String> from = Set.copyOf(managers);
    Discovery.Resource resource =
        apis.resolve(ref.kind())
            .orElseThrow(
                () ->
                    new KubeFailure(404, "NotFound", "kind is not served", null)
                        .toException(
                            "hand over fields", ref.kind().key(), ref.namespace(), ref.name()));
    var api = apis.api(resource).calls;
    String namespace = ref.kind().namespaced() ? ref.namespace() : null;
    for (int attempt = 1; ; attempt++) {
      Optional<JsonObject> live = api.getRaw(namespace, ref.name());
      if (live.isEmpty() || !(live.get().get("metadata") instanceof JsonObject metadata)) {
        return List.of();
      }
      V1ObjectMeta meta = JSON.getGson().fromJson(metadata, V1ObjectMeta.class);
      if (!Stamps.ownedBy(meta, owner)) {
        return List.of();
      }
      JsonArray kept = new JsonArray();
      List<String> removed = new ArrayList<>();
      boolean ours = false;
      if (metadata.get("managedFields") instanceof JsonArray entries) {
        for (JsonElement e : entries) {
          String manager = text(e, "manager");
          boolean topLevel = text(e, "subresource") == null;
          if (topLevel && manager != null && from.contains(manager)) {
            removed.add(manager + " " + text(e, "operation"));
          } else {
            ours |= topLevel && Stamps.MANAGER_NAME.equals(manager);
            kept.add(e);
          }
        }
      }
      if (removed.isEmpty() || !ours) {
        return List.of();
      }
      JsonObject patchMeta = new JsonObject();
      patchMeta.addProperty("resourceVersion", meta.getResourceVersion());
      patchMeta.add("managedFields", kept);
      JsonObject patch = new JsonObject();
      patch.add("metadata", patchMeta);
      try {
        api.patch(
            namespace,
            ref.name(),
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            patch.toString(),
            Stamps.MANAGER_NAME);
        return List.copyOf(removed);
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == OwnedObjects.ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static @Nullable String text(JsonElement entry, String key) {
    return entry instanceof JsonObject o && o.get(key) != null && o.get(key).isJsonPrimitive()
        ? o.get(key).getAsString()
        : null;
  }
}
