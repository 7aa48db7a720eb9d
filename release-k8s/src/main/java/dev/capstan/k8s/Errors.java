package dev.capstan.k8s;

import org.jspecify.annotations.Nullable;

/**
 * Translates a {@link KubeFailure} into the exception of the port that made the request, once, at
 * this edge: {@link dev.capstan.release.ClusterException} for the release ports, {@link
 * dev.capstan.update.ClusterException} for the platform port. Both name the operation, the kind,
 * the object and the HTTP status.
 */
@FunctionalInterface
interface Errors {

  /** The release ports' translation. */
  Errors RELEASE =
      (operation, kind, namespace, name, f) ->
          new dev.capstan.release.ClusterException(
              operation, kind, namespace, name, f.status(), f.detail(), f.transport());

  /** The platform port's translation. */
  Errors UPDATE =
      (operation, kind, namespace, name, f) ->
          new dev.capstan.update.ClusterException(
              operation, kind, namespace, name, f.status(), f.detail(), f.transport());

  /**
   * The exception for a failed request.
   *
   * @param operation what was attempted, e.g. {@code apply}
   * @param kind the Kubernetes kind, e.g. {@code Deployment}
   * @param namespace the namespace, or {@code null}
   * @param name the object's name, or {@code null} for a collection
   * @param failure what went wrong
   */
  RuntimeException translate(
      String operation,
      String kind,
      @Nullable String namespace,
      @Nullable String name,
      KubeFailure failure);
}
