package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.release.ClusterException;
import dev.capstan.release.ReleaseLockedException;
import dev.capstan.release.StaleRecordException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1NamespaceList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimList;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.openapi.models.V1StorageClass;
import io.kubernetes.client.openapi.models.V1StorageClassList;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The release engine's {@link Store} on Kubernetes: Secrets, ConfigMaps and PersistentVolumeClaims
 * written by server-side apply (field manager {@code capstan}), namespaces and storage classes
 * observed, release records as Secrets and the operation lease as a {@code coordination.k8s.io/v1}
 * Lease, all in the release's namespace. See the package documentation for the mapping and {@code
 * release-k8s/README.md} for the requests each call makes and the RBAC it needs.
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; a lost compare-and-set of a record a {@link StaleRecordException}; a lease held by
 * another a {@link ReleaseLockedException}. Secret values never appear in exceptions. An
 * interrupted request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesStore implements Store {
  private final ResourceApi<V1Secret, V1SecretList> secrets;
  private final ResourceApi<V1ConfigMap, V1ConfigMapList> configMaps;
  private final ResourceApi<V1PersistentVolumeClaim, V1PersistentVolumeClaimList> volumes;
  private final ResourceApi<V1Namespace, V1NamespaceList> namespaces;
  private final ResourceApi<V1StorageClass, V1StorageClassList> storageClasses;
  private final ReleaseRecords records;
  private final ReleaseLeases leases;

  /** A store on the given clients. */
  public KubernetesStore(KubeClients clients) {
    this(clients, ReleaseRecords.CHUNK_BYTES);
  }

  /** A store that splits records larger than {@code chunkBytes} (tests use small chunks). */
  KubernetesStore(KubeClients clients, int chunkBytes) {
    requireNonNull(clients, "clients");
    this.secrets = new ResourceApi<>(clients, Kind.SECRET, Errors.RELEASE);
    this.configMaps = new ResourceApi<>(clients, Kind.CONFIGMAP, Errors.RELEASE);
    this.volumes = new ResourceApi<>(clients, Kind.PVC, Errors.RELEASE);
    this.namespaces = new ResourceApi<>(clients, Kind.NAMESPACE, Errors.RELEASE);
    this.storageClasses = new ResourceApi<>(clients, Kind.STORAGE_CLASS, Errors.RELEASE);
    this.records = new ReleaseRecords(secrets, new CoreV1Api(clients.apiClient()), chunkBytes);
    this.leases = new ReleaseLeases(new ResourceApi<>(clients, Kind.LEASE, Errors.RELEASE));
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST (paged) of the kind in the namespace (namespaces and storage classes: of the
   * cluster), filtered to {@code names}; with a single name, the LIST selects it by field. Record
   * Secrets are left out of a Secret LIST by label.
   */
  @Override
  public List<LiveObject> observe(ResourceType type, String namespace, Set<String> names) {
    requireNonNull(type, "type");
    requireNonNull(namespace, "namespace");
    requireNonNull(names, "names");
    if (names.isEmpty()) {
      return List.of();
    }
    String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
    return switch (type) {
      case NAMESPACE -> present(type, namespaces.list(null, null, field), names);
      case STORAGE_CLASS -> present(type, storageClasses.list(null, null, field), names);
      case SECRET ->
          live(secrets, namespace, ReleaseRecords.NOT_RECORDS, field, names, StoreObjects::secret);
      case CONFIGMAP -> live(configMaps, namespace, null, field, names, StoreObjects::configMap);
      case VOLUME -> live(volumes, namespace, null, field, names, StoreObjects::volume);
      case SERVICE -> throw notStored(type);
    };
  }

  private static List<LiveObject> present(
      ResourceType type, List<? extends KubernetesObject> objects, Set<String> names) {
    List<LiveObject> out = new ArrayList<>();
    for (KubernetesObject o : objects) {
      String name = o.getMetadata().getName();
      if (names.contains(name)) {
        out.add(LiveObject.present(new ResourceRef(type, "", name)));
      }
    }
    return out;
  }

  private static <T extends KubernetesObject> List<LiveObject> live(
      ResourceApi<T, ?> api,
      String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      Set<String> names,
      BiFunction<JsonObject, T, LiveObject> reconstruct) {
    List<LiveObject> out = new ArrayList<>();
    for (JsonObject raw : api.listRaw(namespace, labelSelector, fieldSelector)) {
      T object = api.fromRaw(raw);
      V1ObjectMeta meta = object.getMetadata();
      if (meta != null && names.contains(meta.getName())) {
        out.add(reconstruct.apply(raw, object));
      }
    }
    return out;
  }

  /**
   * {@inheritDoc} One server-side apply (PATCH), forced: the plan has decided Capstan's fields win.
   */
  @Override
  public void apply(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    requireNonNull(spec, "spec");
    String manager = Stamps.MANAGER_NAME;
    if (spec instanceof SecretSpec s) {
      secrets.apply(s.namespace(), s.name(), StoreObjects.secret(s, stamp), manager);
    } else if (spec instanceof ConfigMapSpec c) {
      configMaps.apply(c.namespace(), c.name(), StoreObjects.configMap(c, stamp), manager);
    } else if (spec instanceof VolumeSpec v) {
      volumes.apply(v.namespace(), v.name(), StoreObjects.volume(v, stamp), manager);
    } else {
      throw notStored(spec.type());
    }
  }

  /** {@inheritDoc} A GET, then a DELETE with the read uid and resourceVersion as preconditions. */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner) {
    requireNonNull(owner, "owner");
    return switch (ref.type()) {
      case SECRET -> OwnedObjects.delete(secrets, ref.namespace(), ref.name(), owner, null);
      case CONFIGMAP -> OwnedObjects.delete(configMaps, ref.namespace(), ref.name(), owner, null);
      case VOLUME -> OwnedObjects.delete(volumes, ref.namespace(), ref.name(), owner, null);
      default -> throw notStored(ref.type());
    };
  }

  /**
   * {@inheritDoc} A GET, then a JSON merge patch conditioned on the read resourceVersion that
   * removes the stamp's labels and annotations. A volume keeps the annotations describing its
   * content ({@code capstan.dev/reclaim-policy}, {@code capstan.dev/size}, {@code
   * capstan.dev/default-storage-class}).
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner) {
    requireNonNull(owner, "owner");
    return switch (ref.type()) {
      case SECRET -> OwnedObjects.unstamp(secrets, ref.namespace(), ref.name(), owner, Set.of());
      case CONFIGMAP ->
          OwnedObjects.unstamp(configMaps, ref.namespace(), ref.name(), owner, Set.of());
      case VOLUME ->
          OwnedObjects.unstamp(
              volumes, ref.namespace(), ref.name(), owner, StoreObjects.KEPT_ON_UNSTAMP);
      default -> throw notStored(ref.type());
    };
  }

  /** {@inheritDoc} One CREATE; a namespace that exists already is left as it is. */
  @Override
  public void createNamespace(String name) {
    try {
      namespaces.create(
          new V1Namespace()
              .apiVersion("v1")
              .kind("Namespace")
              .metadata(new V1ObjectMeta().name(name)));
    } catch (ClusterException e) {
      if (e.status() != 409) {
        throw e;
      }
    }
  }

  /** {@inheritDoc} One LIST of the release's record Secrets. */
  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    return records.latest(namespace, name);
  }

  /** {@inheritDoc} One LIST of the release's record Secrets. */
  @Override
  public List<StoredRelease> records(String namespace, String name) {
    return records.all(namespace, name);
  }

  /**
   * {@inheritDoc} One LIST of the record heads in the namespace, and one LIST of chunks per chunked
   * latest record.
   */
  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    return records.latestOfEach(namespace);
  }

  /** {@inheritDoc} One CREATE (plus one per chunk). */
  @Override
  public StoredRelease createRecord(Release release) {
    return records.create(requireNonNull(release, "release"));
  }

  /**
   * {@inheritDoc} One UPDATE of the head, conditioned on its resourceVersion (plus chunk writes).
   */
  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    return records.update(
        requireNonNull(release, "release"), requireNonNull(expectedVersion, "expectedVersion"));
  }

  /** {@inheritDoc} One DELETECOLLECTION of the revision's head and chunks. */
  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    records.delete(namespace, name, revision);
  }

  /** {@inheritDoc} A GET and a CREATE or UPDATE of the Lease (compare-and-set). */
  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    return leases.acquire(namespace, name, holder, now, ttl);
  }

  /** {@inheritDoc} A GET and an UPDATE of the Lease. */
  @Override
  public void renewLease(String namespace, String name, String holder, Instant now, Duration ttl) {
    leases.renew(namespace, name, holder, now, ttl);
  }

  /**
   * {@inheritDoc} A GET and an UPDATE clearing the holder (the Lease object stays for the next
   * operation), or a DELETE when {@code forget}.
   */
  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    leases.release(namespace, name, holder, forget);
  }

  private static IllegalArgumentException notStored(ResourceType type) {
    return new IllegalArgumentException(
        "the Kubernetes store keeps volumes, configmaps, secrets and observes namespaces and"
            + " storage classes; "
            + type
            + " objects belong to the orchestrator");
  }
}
