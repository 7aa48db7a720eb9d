package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.LiveObject;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimSpec;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1VolumeResourceRequirements;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Secrets, ConfigMaps and PersistentVolumeClaims: the objects Capstan writes for a spec, and the
 * spec read back from a live object. The read-back covers exactly the fields Capstan writes, so an
 * untouched object hashes as its spec did and an edited one does not.
 */
final class StoreObjects {
  /** A volume's reclaim policy ({@code Retain} or {@code Delete}); kept when un-stamped. */
  static final String RECLAIM_POLICY = Stamps.PREFIX + "reclaim-policy";

  /** The size as the spec spelled it (the API server rewrites quantities). */
  static final String SIZE = Stamps.PREFIX + "size";

  /** {@code true} when the spec leaves the storage class to the cluster's default. */
  static final String DEFAULT_STORAGE_CLASS = Stamps.PREFIX + "default-storage-class";

  /** What un-stamping a volume keeps: the annotations describing its content. */
  static final Set<String> KEPT_ON_UNSTAMP = Set.of(RECLAIM_POLICY, SIZE, DEFAULT_STORAGE_CLASS);

  private StoreObjects() {}

  static V1ConfigMap configMap(ConfigMapSpec spec, @Nullable OwnershipStamp stamp) {
    return new V1ConfigMap()
        .apiVersion("v1")
        .kind("ConfigMap")
        .metadata(Live.metadata(spec, stamp, Map.of()))
        .data(new LinkedHashMap<>(spec.data()));
  }

  static LiveObject configMap(JsonObject raw, V1ConfigMap live) {
    return live(
        ResourceType.CONFIGMAP,
        raw,
        live.getMetadata(),
        (meta, owned) ->
            new ConfigMapSpec(
                meta.getNamespace(),
                meta.getName(),
                ownedEntries(live.getData(), owned.at("f:data")),
                Stamps.userLabels(meta.getLabels(), owned),
                Stamps.userAnnotations(meta.getAnnotations(), owned)));
  }

  static V1Secret secret(SecretSpec spec, @Nullable OwnershipStamp stamp) {
    Map<String, byte[]> data = new LinkedHashMap<>();
    spec.data().forEach((k, v) -> data.put(k, v.bytes()));
    return new V1Secret()
        .apiVersion("v1")
        .kind("Secret")
        .metadata(Live.metadata(spec, stamp, Map.of()))
        .type(spec.secretType())
        .data(data);
  }

  static LiveObject secret(JsonObject raw, V1Secret live) {
    return live(
        ResourceType.SECRET,
        raw,
        live.getMetadata(),
        (meta, owned) -> {
          SortedMap<String, SecretValue> data = new TreeMap<>();
          ownedEntries(live.getData(), owned.at("f:data"))
              .forEach((k, v) -> data.put(k, SecretValue.ofBytes(v)));
          return new SecretSpec(
              meta.getNamespace(),
              meta.getName(),
              live.getType() == null ? "Opaque" : live.getType(),
              data,
              Stamps.userLabels(meta.getLabels(), owned),
              Stamps.userAnnotations(meta.getAnnotations(), owned));
        });
  }

  static V1PersistentVolumeClaim volume(VolumeSpec spec, @Nullable OwnershipStamp stamp) {
    Map<String, String> representation = new LinkedHashMap<>();
    representation.put(
        RECLAIM_POLICY,
        spec.reclaimPolicy() == VolumeSpec.ReclaimPolicy.RETAIN ? "Retain" : "Delete");
    representation.put(SIZE, spec.size());
    if (spec.storageClass() == null) {
      representation.put(DEFAULT_STORAGE_CLASS, "true");
    }
    return new V1PersistentVolumeClaim()
        .apiVersion("v1")
        .kind("PersistentVolumeClaim")
        .metadata(Live.metadata(spec, stamp, representation))
        .spec(
            new V1PersistentVolumeClaimSpec()
                .accessModes(
                    spec.accessModes().stream().map(VolumeSpec.AccessMode::kubernetesName).toList())
                .resources(
                    new V1VolumeResourceRequirements()
                        .requests(Map.of("storage", new Quantity(spec.size()))))
                .storageClassName(spec.storageClass()));
  }

  static LiveObject volume(JsonObject raw, V1PersistentVolumeClaim live) {
    return live(
        ResourceType.VOLUME,
        raw,
        live.getMetadata(),
        (meta, owned) -> {
          V1PersistentVolumeClaimSpec spec = live.getSpec();
          if (spec == null) {
            throw new IllegalArgumentException("no spec");
          }
          Quantity storage =
              spec.getResources() == null || spec.getResources().getRequests() == null
                  ? null
                  : spec.getResources().getRequests().get("storage");
          String size = Live.quantity(storage, Live.annotation(meta, SIZE));
          List<VolumeSpec.AccessMode> modes = new ArrayList<>();
          for (String mode :
              spec.getAccessModes() == null ? List.<String>of() : spec.getAccessModes()) {
            modes.add(accessMode(mode));
          }
          String storageClass =
              "true".equals(Live.annotation(meta, DEFAULT_STORAGE_CLASS))
                  ? null
                  : spec.getStorageClassName();
          VolumeSpec.ReclaimPolicy policy =
              "Retain".equals(Live.annotation(meta, RECLAIM_POLICY))
                  ? VolumeSpec.ReclaimPolicy.RETAIN
                  : VolumeSpec.ReclaimPolicy.DELETE;
          return new VolumeSpec(
              meta.getNamespace(),
              meta.getName(),
              size == null ? "" : size,
              storageClass,
              modes,
              policy,
              Stamps.userLabels(meta.getLabels(), owned),
              Stamps.userAnnotations(meta.getAnnotations(), owned));
        });
  }

  /**
   * The live object of a namespaced object: its stamp, and the spec {@code read} makes of its
   * metadata and the fields Capstan owns.
   */
  private static LiveObject live(
      ResourceType type,
      JsonObject raw,
      V1ObjectMeta meta,
      BiFunction<V1ObjectMeta, OwnedFields, ResourceSpec> read) {
    ResourceRef ref = ResourceRef.of(type, meta.getNamespace(), meta.getName());
    OwnedFields owned = OwnedFields.of(raw, Stamps.MANAGER_NAME);
    return Live.object(ref, Stamps.read(meta), raw, () -> read.apply(meta, owned));
  }

  private static VolumeSpec.AccessMode accessMode(String kubernetesName) {
    for (VolumeSpec.AccessMode m : VolumeSpec.AccessMode.values()) {
      if (m.kubernetesName().equals(kubernetesName)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown access mode " + kubernetesName);
  }

  /** The entries of a data map whose keys are owned. */
  private static <V> SortedMap<String, V> ownedEntries(
      @Nullable Map<String, V> data, OwnedFields owned) {
    SortedMap<String, V> out = new TreeMap<>();
    if (data != null) {
      data.forEach(
          (k, v) -> {
            if (owned.ownsKey(k)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }
}
