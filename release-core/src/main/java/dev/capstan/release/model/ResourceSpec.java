package dev.capstan.release.model;

import java.util.SortedMap;

/**
 * The rendered content of one object a release owns: one record per kind. A spec names its own
 * namespace and name, so {@link #ref()} identifies it; {@link ContentHash#of(ResourceSpec)} hashes
 * it.
 */
public sealed interface ResourceSpec permits ServiceSpec, SecretSpec, ConfigMapSpec, VolumeSpec {

  /** The namespace the object lives in. */
  String namespace();

  /** The object's name. */
  String name();

  /** User labels (the ownership stamp is added by the adapter, never stored here). */
  SortedMap<String, String> labels();

  /** User annotations. */
  SortedMap<String, String> annotations();

  /** The kind of object. */
  ResourceType type();

  /** The reference of this object. */
  default ResourceRef ref() {
    return ResourceRef.of(type(), namespace(), name());
  }
}
