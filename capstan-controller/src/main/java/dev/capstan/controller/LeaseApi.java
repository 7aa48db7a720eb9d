package dev.capstan.controller;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Lease;
import org.jspecify.annotations.Nullable;

/**
 * The three requests {@link LeaderElection} makes on its {@code coordination.k8s.io/v1} Lease, so
 * that its rounds can be run against an in-memory Lease in unit tests. Every write is a
 * compare-and-set: the API server applies it only when the Lease is still at the resourceVersion
 * the write carries. Errors are {@link dev.capstan.common.ClusterException}s carrying the HTTP
 * status (0 when no response arrived).
 */
interface LeaseApi {

  /**
   * Reads the Lease.
   *
   * @return the Lease, or {@code null} when it does not exist
   */
  @Nullable V1Lease get(String namespace, String name);

  /**
   * Creates the Lease.
   *
   * @return the Lease as created, with its resourceVersion
   * @throws dev.capstan.common.ClusterException with status 409 when it exists already
   */
  V1Lease create(String namespace, V1Lease lease);

  /**
   * Replaces the Lease, on the resourceVersion in {@code lease}'s metadata.
   *
   * @return the Lease as written, with its new resourceVersion
   * @throws dev.capstan.common.ClusterException with status 409 when anyone wrote the Lease since
   *     that version, 404 when it no longer exists
   */
  V1Lease replace(String namespace, String name, V1Lease lease);

  /** The Lease API of a cluster, through client-java's {@code CoordinationV1Api}. */
  static LeaseApi of(ApiClient client) {
    return new KubernetesLeaseApi(client);
  }
}
