package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.release.model.Kind;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The dynamic (raw JSON) API of every kind the cluster serves, found through {@link Discovery}: one
 * {@link ResourceApi} per resource, made on first use and kept. A kind discovery does not know
 * makes discovery read again, once per kind; applying a CustomResourceDefinition forgets which
 * kinds were looked up in vain, so the custom resources of a CRD created in the same cast are
 * found. Thread-safe.
 */
final class DynamicApis {
  /** A dynamic API, as this adapter uses it. */
  static final class Api {
    final Discovery.Resource resource;
    final ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> calls;

    Api(
        Discovery.Resource resource,
        ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> calls) {
      this.resource = resource;
      this.calls = calls;
    }

    /**
     * Every object matching the selectors, in pages, as raw JSON with its {@code apiVersion} and
     * {@code kind} (the items of a LIST have neither).
     */
    List<JsonObject> list(
        @Nullable String namespace,
        @Nullable String labelSelector,
        @Nullable String fieldSelector) {
      List<JsonObject> items = calls.listingRaw(namespace, labelSelector, fieldSelector).items();
      items.forEach(this::typed);
      return items;
    }

    /**
     * As {@link #list(String, String, String)}, in pages of {@code pageSize} objects, keeping only
     * those named in {@code names}: the others are parsed one at a time and dropped, never held.
     */
    List<JsonObject> list(
        @Nullable String namespace,
        @Nullable String labelSelector,
        @Nullable String fieldSelector,
        int pageSize,
        Set<String> names) {
      List<JsonObject> items =
          calls.listingRaw(namespace, labelSelector, fieldSelector, pageSize, named(names)).items();
      items.forEach(this::typed);
      return items;
    }

    /** Sets {@code apiVersion} and {@code kind} on an object of this resource that lacks them. */
    JsonObject typed(JsonObject object) {
      if (!object.has("apiVersion")) {
        object.addProperty(
            "apiVersion",
            resource.group().isEmpty()
                ? resource.version()
                : resource.group() + "/" + resource.version());
      }
      if (!object.has("kind")) {
        object.addProperty("kind", resource.kind());
      }
      return object;
    }
  }

  /** Accepts the objects named in {@code names}. */
  static Predicate<JsonObject> named(Set<String> names) {
    return o -> {
      String name = JsonTrees.text(o, "metadata", "name");
      return name != null && names.contains(name);
    };
  }

  /** Pods, for the health of workloads. */
  static final Discovery.Resource PODS = new Discovery.Resource("", "v1", "pods", "Pod", true);

  /** ReplicaSets, to find a Deployment's current pods. */
  static final Discovery.Resource REPLICA_SETS =
      new Discovery.Resource("apps", "v1", "replicasets", "ReplicaSet", true);

  /** StorageClasses, for the volume binding mode of claims. */
  static final Discovery.Resource STORAGE_CLASSES =
      new Discovery.Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", false);

  /** Leases, which hold a release's operation lease (for access reviews). */
  static final Discovery.Resource LEASES =
      new Discovery.Resource("coordination.k8s.io", "v1", "leases", "Lease", true);

  /** Secrets, which hold a release's records (for access reviews). */
  static final Discovery.Resource SECRETS =
      new Discovery.Resource("", "v1", "secrets", "Secret", true);

  /** Namespaces. */
  static final Discovery.Resource NAMESPACES =
      new Discovery.Resource("", "v1", "namespaces", "Namespace", false);

  private final KubeClients clients;
  private final Discovery discovery;
  private final Map<Discovery.Resource, Api> apis = new ConcurrentHashMap<>();
  private final Set<String> missed = ConcurrentHashMap.newKeySet();
  private final Set<String> defined = ConcurrentHashMap.newKeySet();

  DynamicApis(KubeClients clients) {
    this.clients = clients;
    this.discovery = new Discovery(clients.apiClient());
  }

  Discovery discovery() {
    return discovery;
  }

  /** The API of a known resource. */
  Api api(Discovery.Resource resource) {
    return apis.computeIfAbsent(
        resource,
        r ->
            new Api(
                r,
                new ResourceApi<>(
                    clients,
                    new ApiResource<>(
                        DynamicKubernetesObject.class,
                        DynamicKubernetesListObject.class,
                        r.group(),
                        r.version(),
                        r.plural(),
                        r.kind()))));
  }

  /**
   * The resources serving {@code kind}, preferred version first; empty when the cluster does not
   * serve it even after discovery was read again. Discovery is read again (once, until a CRD is
   * applied) also when the kind is served but not at {@code kind}'s version: a CRD applied since
   * may have added it. A built-in kind at its GA version ({@link BuiltInKinds}) is answered without
   * discovery.
   */
  List<Discovery.Resource> served(Kind kind) {
    Optional<Discovery.Resource> builtIn = BuiltInKinds.of(kind);
    if (builtIn.isPresent()) {
      return List.of(builtIn.get()); // served by every supported API server: no discovery
    }
    List<Discovery.Resource> found = discovery.find(kind.group(), kind.kind());
    if (atVersion(found, kind)) {
      return found;
    }
    // One caller at a time reads discovery again: objects of one kind are applied in parallel.
    synchronized (this) {
      found = discovery.find(kind.group(), kind.kind());
      String missing = kind.key() + "@" + kind.version();
      if (!atVersion(found, kind) && missed.add(missing)) {
        discovery.refresh();
        found = discovery.find(kind.group(), kind.kind());
        // a CRD this adapter applied: the API server serves its kind (or the version it added)
        // shortly after the update
        for (int i = 0; i < 20 && !atVersion(found, kind) && defined.contains(kind.key()); i++) {
          if (!sleep()) {
            break;
          }
          discovery.refresh();
          found = discovery.find(kind.group(), kind.kind());
        }
      }
      if (atVersion(found, kind)) {
        missed.remove(missing);
      }
      return found;
    }
  }

  private static boolean atVersion(List<Discovery.Resource> found, Kind kind) {
    return found.stream().anyMatch(r -> r.version().equals(kind.version()));
  }

  /**
   * The resource to address {@code kind} at: its own version when served, else the preferred one;
   * empty when the kind is not served.
   */
  Optional<Discovery.Resource> resolve(Kind kind) {
    List<Discovery.Resource> found = served(kind);
    for (Discovery.Resource r : found) {
      if (r.version().equals(kind.version())) {
        return Optional.of(r);
      }
    }
    return found.stream().findFirst();
  }

  /** Notes that a CRD defining {@code group/kind} was applied (its kind may now be served). */
  void defined(@Nullable String group, @Nullable String kind) {
    missed.clear();
    if (group != null && kind != null) {
      defined.add(group.isEmpty() ? kind : group + "/" + kind);
    }
  }

  private static boolean sleep() {
    try {
      Thread.sleep(250);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
