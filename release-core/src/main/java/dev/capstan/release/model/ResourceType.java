package dev.capstan.release.model;

import dev.capstan.common.Escapes;
import java.util.Locale;

/**
 * The kinds of object a release deals with, declared in <em>apply order</em>: a cast applies
 * namespaces first and services last; prune and uninstall go the other way (service, secret,
 * configmap, volume). Objects of one kind are ordered by {@link ResourceRef#key()}.
 *
 * <p>{@link #NAMESPACE} and {@link #STORAGE_CLASS} are <em>shared</em> kinds: a release only ever
 * references them, never owns or deletes them.
 */
public enum ResourceType {
  /** A namespace; shared and cluster-scoped. */
  NAMESPACE("namespace", 0, true, true),
  /** A storage class; shared and cluster-scoped. */
  STORAGE_CLASS("storage_class", 1, true, true),
  /** A persistent volume (claim). */
  VOLUME("volume", 2, false, false),
  /** A configuration map. */
  CONFIGMAP("configmap", 3, false, false),
  /** A secret. */
  SECRET("secret", 4, false, false),
  /** A service: a workload run by the orchestrator. */
  SERVICE("service", 5, false, false);

  private final String id;
  private final int applyRank;
  private final boolean shared;
  private final boolean clusterScoped;

  ResourceType(String id, int applyRank, boolean shared, boolean clusterScoped) {
    this.id = id;
    this.applyRank = applyRank;
    this.shared = shared;
    this.clusterScoped = clusterScoped;
  }

  /** The lower-case identifier used in keys and JSON, e.g. {@code storage_class}. */
  public String id() {
    return id;
  }

  /** Whether this kind is shared: referenced by releases, never owned or deleted by one. */
  public boolean shared() {
    return shared;
  }

  /** Whether objects of this kind live outside any namespace. */
  public boolean clusterScoped() {
    return clusterScoped;
  }

  /** Position in apply order (0 first). Prune order is the reverse. */
  public int applyRank() {
    return applyRank;
  }

  /**
   * The type with the given identifier.
   *
   * @throws IllegalArgumentException naming the value and the known identifiers
   */
  public static ResourceType fromId(String id) {
    for (ResourceType t : values()) {
      if (t.id.equals(id)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "resource type must be one of namespace, storage_class, volume, configmap, secret, service: "
            + Escapes.quote(id));
  }

  @Override
  public String toString() {
    return id.toLowerCase(Locale.ROOT);
  }
}
