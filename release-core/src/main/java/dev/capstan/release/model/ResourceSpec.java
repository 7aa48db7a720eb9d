package dev.capstan.release.model;

import java.util.List;
import java.util.SortedMap;

/**
 * One item of a release: any Kubernetes object as a {@link Manifest}, or one of the typed
 * convenience specs ({@link ServiceSpec}, {@link SecretSpec}, {@link ConfigMapSpec}, {@link
 * VolumeSpec}), which {@link #render()} into ordinary manifests. Everything after rendering (the
 * planner, the records, the ports) sees only manifests, so the typed specs and the manifests go one
 * path.
 */
public sealed interface ResourceSpec
    permits ServiceSpec, SecretSpec, ConfigMapSpec, VolumeSpec, Manifest {

  /** The namespace the object lives in ({@code ""} for a cluster-scoped manifest). */
  String namespace();

  /** The object's name. */
  String name();

  /** User labels (the ownership stamp is added by the adapter, never stored here). */
  SortedMap<String, String> labels();

  /** User annotations. */
  SortedMap<String, String> annotations();

  /** The reference of the object this item is (for a service: its Deployment). */
  ResourceRef ref();

  /** The Kubernetes objects this item is, in apply order (a service: Deployment, then Service). */
  List<Manifest> render();
}
