package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
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

  /**
   * Gives up Capstan's ownership of the fields of {@code ref} at {@code pointers} (JSON pointers)
   * without touching their values: one GET of the object, and, when Capstan's {@code Apply} entry
   * owns one of them, one JSON merge patch of {@code metadata.managedFields} without them,
   * conditioned on the observed resourceVersion. A server-side apply that then leaves the fields
   * out does not remove them: they stay, owned by whoever else holds them, or by nobody.
   *
   * @return the precondition of the object as it now is (its resourceVersion after the patch)
   * @throws PreconditionFailedException when the object is not the one observed (changed,
   *     re-created or gone); nothing was written
   */
  static Precondition giveUp(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      ResourceRef ref,
      Precondition.Observed observed,
      List<String> pointers) {
    JsonObject live = observedLive(api, namespace, ref, observed, "apply");
    JsonArray kept = withoutFields(live, pointers);
    if (kept == null) {
      return observed;
    }
    JsonObject patchMeta = new JsonObject();
    patchMeta.addProperty("resourceVersion", observed.resourceVersion());
    patchMeta.add("managedFields", kept);
    JsonObject patch = new JsonObject();
    patch.add("metadata", patchMeta);
    DynamicKubernetesObject written;
    try {
      written =
          api.patch(
              namespace,
              ref.name(),
              V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
              patch.toString(),
              Stamps.MANAGER_NAME);
    } catch (ClusterException e) {
      if (e.status() == 409) {
        throw new PreconditionFailedException(
            "apply", ref, observed, 409, String.valueOf(e.getMessage()), e);
      }
      throw e;
    }
    String after =
        written.getMetadata() == null ? null : written.getMetadata().getResourceVersion();
    return after == null ? observed : Precondition.observed(observed.uid(), after);
  }

  /**
   * The managed fields of {@code raw} with the fields at {@code pointers} taken out of Capstan's
   * own top-level {@code Apply} entries, or {@code null} when those entries own none of them. A
   * list item on the way is matched by the key fields of the live item at the pointer's index.
   */
  static @Nullable JsonArray withoutFields(JsonObject raw, List<String> pointers) {
    JsonObject metadata = JsonTrees.object(raw, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return null;
    }
    JsonArray out = entries.deepCopy();
    boolean changed = false;
    for (JsonElement e : out) {
      if (!(e instanceof JsonObject entry)
          || !Stamps.MANAGER_NAME.equals(text(entry, "manager"))
          || !"Apply".equals(text(entry, "operation"))
          || text(entry, "subresource") != null
          || !(entry.get("fieldsV1") instanceof JsonObject fields)) {
        continue;
      }
      for (String pointer : pointers) {
        changed |= remove(fields, raw, steps(pointer), 0);
      }
    }
    return changed ? out : null;
  }

  /** Removes the field at {@code steps} below {@code fields}, walking {@code live} alongside. */
  private static boolean remove(
      JsonObject fields, @Nullable JsonElement live, List<String> steps, int i) {
    String step = steps.get(i);
    String key;
    JsonElement next;
    if (live instanceof com.google.gson.JsonArray items) {
      int index;
      try {
        index = Integer.parseInt(step);
      } catch (NumberFormatException e) {
        return false;
      }
      if (index < 0 || index >= items.size() || !(items.get(index) instanceof JsonObject item)) {
        return false;
      }
      key = null;
      for (String k : fields.keySet()) {
        if (k.startsWith("k:") && keyMatches(k.substring(2), item)) {
          key = k;
          break;
        }
      }
      if (key == null) {
        return false;
      }
      next = item;
    } else {
      key = "f:" + step;
      next = live instanceof JsonObject o ? o.get(step) : null;
    }
    if (!fields.has(key)) {
      return false;
    }
    if (i == steps.size() - 1) {
      fields.remove(key);
      return true;
    }
    return fields.get(key) instanceof JsonObject child && remove(child, next, steps, i + 1);
  }

  private static boolean keyMatches(String json, JsonObject item) {
    try {
      return com.google.gson.JsonParser.parseString(json) instanceof JsonObject key
          && key.size() > 0
          && key.entrySet().stream().allMatch(e -> e.getValue().equals(item.get(e.getKey())));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static List<String> steps(String pointer) {
    List<String> out = new ArrayList<>();
    for (String segment : pointer.substring(1).split("/", -1)) {
      out.add(segment.replace("~1", "/").replace("~0", "~"));
    }
    return out;
  }

  /**
   * The object as it is now, one GET: still the one observed (same uid and resourceVersion), or a
   * {@link PreconditionFailedException} worded as the API server words the refusal of {@code verb}.
   */
  private static JsonObject observedLive(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      ResourceRef ref,
      Precondition.Observed observed,
      String verb) {
    Optional<JsonObject> live = api.getRaw(namespace, ref.name());
    String uid = live.map(o -> JsonTrees.text(o, "metadata", "uid")).orElse(null);
    String version = live.map(o -> JsonTrees.text(o, "metadata", "resourceVersion")).orElse(null);
    if (live.isEmpty() || !observed.uid().equals(uid)) {
      throw new PreconditionFailedException(
          verb,
          ref,
          observed,
          409,
          "uid mismatch: the provided object specified uid "
              + observed.uid()
              + (live.isEmpty() ? ", and no existing object was found" : ", found " + uid),
          null);
    }
    if (!observed.resourceVersion().equals(version)) {
      throw new PreconditionFailedException(
          verb,
          ref,
          observed,
          409,
          "the object has been modified; please apply your changes to the latest version and try"
              + " again",
          null);
    }
    return live.get();
  }

  /**
   * The merge patch that un-stamps {@code ref} ({@code removal}) and also removes Capstan's own
   * top-level entries from its {@code metadata.managedFields}, keeping every field's value: one GET
   * of the object, fenced on the observed uid and resourceVersion. Without an entry of Capstan's,
   * {@code removal} as it is; with Capstan's the only one, the entries are cleared ({@code [{}]},
   * the API server's way to strip them: an empty list would keep them).
   *
   * @throws PreconditionFailedException when the object is not the one observed
   */
  static String unstampPatch(
      ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> api,
      @Nullable String namespace,
      ResourceRef ref,
      Precondition.Observed observed,
      String removal) {
    JsonObject live = observedLive(api, namespace, ref, observed, "unstamp");
    JsonObject metadata = JsonTrees.object(live, "metadata");
    if (metadata == null || !(metadata.get("managedFields") instanceof JsonArray entries)) {
      return removal;
    }
    JsonArray kept = new JsonArray();
    boolean ours = false;
    for (JsonElement e : entries) {
      if (Stamps.MANAGER_NAME.equals(text(e, "manager")) && text(e, "subresource") == null) {
        ours = true;
      } else {
        kept.add(e);
      }
    }
    if (!ours) {
      return removal;
    }
    if (kept.isEmpty()) {
      kept.add(new JsonObject());
    }
    JsonObject patch = com.google.gson.JsonParser.parseString(removal).getAsJsonObject();
    patch.getAsJsonObject("metadata").add("managedFields", kept);
    return patch.toString();
  }

  private static @Nullable String text(JsonElement entry, String key) {
    return entry instanceof JsonObject o && o.get(key) != null && o.get(key).isJsonPrimitive()
        ? o.get(key).getAsString()
        : null;
  }
}
