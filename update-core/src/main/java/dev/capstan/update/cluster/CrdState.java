package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.CrdGate;
import dev.capstan.common.Trees;
import dev.capstan.common.health.Condition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A live CustomResourceDefinition.
 *
 * @param name its {@code metadata.name}
 * @param spec its {@code spec}, as a plain tree (maps, lists, strings, longs, doubles, booleans)
 * @param conditions its status conditions
 * @param storedVersions its {@code status.storedVersions}: every version objects may still be
 *     persisted at in etcd
 * @param dryRunSpec the spec it would have once the release's document is applied (a server-side
 *     dry run on Kubernetes, the API server's defaulting in memory), or empty when the inventory
 *     was asked for no document
 */
public record CrdState(
    String name,
    Map<String, @Nullable Object> spec,
    List<Condition> conditions,
    List<String> storedVersions,
    Map<String, @Nullable Object> dryRunSpec) {
  /** Validates the fields and deep-copies the trees. */
  public CrdState {
    requireNonNull(name, "name");
    spec = Trees.freezeMap(spec);
    conditions = List.copyOf(conditions);
    storedVersions = List.copyOf(storedVersions);
    dryRunSpec = Trees.freezeMap(dryRunSpec);
  }

  /**
   * Creates a CRD whose stored versions are its storage version (as the API server records it right
   * after creation) and without a dry-run spec.
   *
   * @param name its {@code metadata.name}
   * @param spec its {@code spec}
   * @param conditions its status conditions
   */
  public CrdState(String name, Map<String, @Nullable Object> spec, List<Condition> conditions) {
    this(name, spec, conditions, storageVersions(spec), Map.of());
  }

  /**
   * Returns one condition.
   *
   * @param type the condition type
   * @return the condition, or empty
   */
  public Optional<Condition> condition(String type) {
    return Optional.ofNullable(Condition.find(conditions, type));
  }

  /**
   * Returns the versions the live spec declares, with their served and storage flags.
   *
   * @return {@code spec.versions[]}, in spec order
   */
  public List<CrdVersion> versions() {
    return versions(spec);
  }

  /**
   * Returns a copy with another dry-run spec.
   *
   * @param value what the spec would be after applying the release's document
   * @return the copy
   */
  public CrdState withDryRunSpec(Map<String, @Nullable Object> value) {
    return new CrdState(name, spec, conditions, storedVersions, value);
  }

  /**
   * Reads the versions of a CRD spec.
   *
   * @param spec a CRD {@code spec} tree
   * @return {@code spec.versions[]} with their flags; entries without a name are left out
   */
  public static List<CrdVersion> versions(Map<String, @Nullable Object> spec) {
    return CrdGate.versions(spec).stream()
        .map(v -> new CrdVersion(v.name(), v.served(), v.storage()))
        .toList();
  }

  private static List<String> storageVersions(Map<String, @Nullable Object> spec) {
    return CrdGate.storageVersions(spec);
  }
}
