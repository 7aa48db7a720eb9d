package dev.capstan.controller;

import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Status;
import org.jspecify.annotations.Nullable;

/**
 * {@link LeaseApi} on client-java's {@link CoordinationV1Api}: one request per call, a client
 * {@link ApiException} translated into a {@link ClusterException} naming the operation, the Lease
 * and the HTTP status, with the server's Status message (never a response body that is no Status).
 */
final class KubernetesLeaseApi implements LeaseApi {
  private final CoordinationV1Api api;

  KubernetesLeaseApi(ApiClient client) {
    this.api = new CoordinationV1Api(client);
  }

  @Override
  public @Nullable V1Lease get(String namespace, String name) {
    try {
      return api.readNamespacedLease(name, namespace).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw failure("get", namespace, name, e);
    }
  }

  @Override
  public V1Lease create(String namespace, V1Lease lease) {
    try {
      return api.createNamespacedLease(namespace, lease).execute();
    } catch (ApiException e) {
      throw failure("create", namespace, lease.getMetadata().getName(), e);
    }
  }

  @Override
  public V1Lease replace(String namespace, String name, V1Lease lease) {
    try {
      return api.replaceNamespacedLease(name, namespace, lease).execute();
    } catch (ApiException e) {
      throw failure("replace", namespace, name, e);
    }
  }

  private static ClusterException failure(
      String operation, String namespace, @Nullable String name, ApiException e) {
    return new ClusterException(
        operation, "Lease", namespace, name, e.getCode(), detail(e), e.getCode() == 0 ? e : null);
  }

  /** The Status message of the response, or what kept a response from arriving. */
  private static String detail(ApiException e) {
    if (e.getCode() == 0) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return "no response: " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
    String body = e.getResponseBody();
    if (body != null && !body.isBlank()) {
      try {
        V1Status status = JSON.deserialize(body, V1Status.class);
        if (status != null && status.getMessage() != null) {
          return status.getMessage();
        }
      } catch (RuntimeException notAStatus) {
        // not shown: a body that is no Status could be anything
      }
    }
    return "HTTP " + e.getCode() + " without a Status body";
  }
}
