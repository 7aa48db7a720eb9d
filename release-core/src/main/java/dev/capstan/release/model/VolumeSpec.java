package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A persistent volume (a PersistentVolumeClaim on Kubernetes).
 *
 * <p>The {@link ReclaimPolicy} says what happens to the data when the release stops owning the
 * volume (prune or uninstall): {@code DELETE} deletes it; {@code RETAIN} keeps it, removes the
 * release's stamp and lists the volume in the release record, so a later cast of the same release
 * takes it back without {@code adopt}.
 *
 * @param namespace the namespace
 * @param name the volume's name
 * @param size the requested size as a quantity, e.g. {@code 10Gi}
 * @param storageClass the storage class, or {@code null} for the cluster default
 * @param accessModes the access modes, at least one
 * @param reclaimPolicy what to do with the data when the release lets go of it
 * @param labels user labels
 * @param annotations user annotations
 */
public record VolumeSpec(
    String namespace,
    String name,
    String size,
    @Nullable String storageClass,
    List<AccessMode> accessModes,
    ReclaimPolicy reclaimPolicy,
    SortedMap<String, String> labels,
    SortedMap<String, String> annotations)
    implements ResourceSpec {

  private static final Pattern SIZE =
      Pattern.compile("[0-9]+(\\.[0-9]+)?(k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?");

  /** Validates the size, storage class and access modes. */
  public VolumeSpec {
    ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, namespace, name);
    String at = "volume " + namespace + "/" + name + ": ";
    requireNonNull(size, at + "size");
    if (!SIZE.matcher(size).matches()) {
      throw new IllegalArgumentException(
          at + "size must be a quantity such as 10Gi or 500Mi: " + Names.quote(size));
    }
    if (storageClass != null) {
      ResourceRef.storageClass(storageClass);
    }
    accessModes = Copies.list(accessModes, at + "accessModes");
    if (accessModes.isEmpty() || accessModes.size() != accessModes.stream().distinct().count()) {
      throw new IllegalArgumentException(
          at + "accessModes must be non-empty and without repeats: " + accessModes);
    }
    requireNonNull(reclaimPolicy, at + "reclaimPolicy");
    labels = Copies.metadata(labels, at + "labels", true);
    annotations = Copies.metadata(annotations, at + "annotations", false);
  }

  /**
   * A {@code ReadWriteOnce} volume of {@code size} on the default class, reclaim {@code DELETE}.
   */
  public static VolumeSpec of(String namespace, String name, String size) {
    return new VolumeSpec(
        namespace,
        name,
        size,
        null,
        List.of(AccessMode.READ_WRITE_ONCE),
        ReclaimPolicy.DELETE,
        Copies.sortedMap(Map.of(), "labels"),
        Copies.sortedMap(Map.of(), "annotations"));
  }

  @Override
  public ResourceRef ref() {
    return ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, namespace, name);
  }

  @Override
  public List<Manifest> render() {
    return List.of(TypedRendering.volume(this));
  }

  /** A copy with the given reclaim policy. */
  public VolumeSpec withReclaimPolicy(ReclaimPolicy policy) {
    return new VolumeSpec(
        namespace, name, size, storageClass, accessModes, policy, labels, annotations);
  }

  /** A copy on the given storage class. */
  public VolumeSpec withStorageClass(@Nullable String storageClass) {
    return new VolumeSpec(
        namespace, name, size, storageClass, accessModes, reclaimPolicy, labels, annotations);
  }

  /** A copy of the given size. */
  public VolumeSpec withSize(String size) {
    return new VolumeSpec(
        namespace, name, size, storageClass, accessModes, reclaimPolicy, labels, annotations);
  }

  /** What happens to a volume's data when its release lets go of it. */
  public enum ReclaimPolicy {
    /** Keep the data: the volume is un-stamped and recorded for re-adoption. */
    RETAIN,
    /** Delete the volume and its data. */
    DELETE
  }

  /** How a volume may be mounted. */
  public enum AccessMode {
    /** Read-write by one node. */
    READ_WRITE_ONCE("ReadWriteOnce"),
    /** Read-only by many nodes. */
    READ_ONLY_MANY("ReadOnlyMany"),
    /** Read-write by many nodes. */
    READ_WRITE_MANY("ReadWriteMany"),
    /** Read-write by one pod. */
    READ_WRITE_ONCE_POD("ReadWriteOncePod");

    private final String kubernetesName;

    AccessMode(String kubernetesName) {
      this.kubernetesName = kubernetesName;
    }

    /** The Kubernetes spelling, e.g. {@code ReadWriteOnce}. */
    public String kubernetesName() {
      return kubernetesName;
    }
  }
}
