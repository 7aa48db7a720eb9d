package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Secret;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A Release's ConfigMap and Secret sources, read from the API server with its account's client (one
 * GET each), so the API server decides whether the account may read them: a Release cannot cast
 * what its account may not read, whatever the controller itself may.
 */
final class AccountSources implements ManifestSources {
  private final CoreV1Api core;

  /** Sources read with {@code client} (an impersonating client, or the controller's own). */
  AccountSources(ApiClient client) {
    this.core = new CoreV1Api(requireNonNull(client, "client"));
  }

  @Override
  public @Nullable Map<String, String> configMap(String namespace, String name) {
    V1ConfigMap c;
    try {
      c = core.readNamespacedConfigMap(name, namespace).execute();
    } catch (ApiException e) {
      return absentOrThrow(e, "ConfigMap", namespace, name);
    }
    Map<String, String> data = new LinkedHashMap<>();
    if (c.getData() != null) {
      data.putAll(c.getData());
    }
    if (c.getBinaryData() != null) {
      c.getBinaryData().forEach((k, v) -> data.put(k, new String(v, StandardCharsets.UTF_8)));
    }
    return data;
  }

  @Override
  public @Nullable Map<String, String> secret(String namespace, String name) {
    V1Secret s;
    try {
      s = core.readNamespacedSecret(name, namespace).execute();
    } catch (ApiException e) {
      return absentOrThrow(e, "Secret", namespace, name);
    }
    Map<String, String> data = new LinkedHashMap<>();
    if (s.getData() != null) {
      s.getData().forEach((k, v) -> data.put(k, new String(v, StandardCharsets.UTF_8)));
    }
    return data;
  }

  /** Null for 404; else the failure, naming the object and the HTTP status (never a body). */
  private static @Nullable Map<String, String> absentOrThrow(
      ApiException e, String kind, String namespace, String name) {
    if (e.getCode() == 404) {
      return null;
    }
    throw new ClusterException(
        "get", kind, namespace, name, e.getCode(), KubernetesReleaseObjects.detail(e), null);
  }
}
