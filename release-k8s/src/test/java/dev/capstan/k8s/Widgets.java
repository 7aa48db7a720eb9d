package dev.capstan.k8s;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.Await;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;

/**
 * The Widget CRD the health ITs play the controller of: namespaced Widgets in a group of the test's
 * own, with a status subresource and any fields.
 */
final class Widgets {
  private Widgets() {}

  /** Creates the CRD of Widgets in {@code group} and waits until they are served in {@code ns}. */
  static void createCrd(Cluster cluster, String group, String ns, Duration patience)
      throws ApiException {
    createCrd(
        cluster,
        group,
        ns,
        patience,
        "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}");
  }

  /**
   * Creates the CRD of Widgets in {@code group} with the given {@code openAPIV3Schema} (JSON) and
   * waits until they are served in {@code ns}.
   */
  static void createCrd(Cluster cluster, String group, String ns, Duration patience, String schema)
      throws ApiException {
    JsonObject crd =
        JsonParser.parseString(
                """
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"widgets.GROUP"},
                 "spec":{"group":"GROUP","scope":"Namespaced",
                   "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
                   "versions":[{"name":"v1","served":true,"storage":true,
                     "subresources":{"status":{}},
                     "schema":{"openAPIV3Schema":SCHEMA}}]}}
                """
                    .replace("GROUP", group)
                    .replace("SCHEMA", schema))
            .getAsJsonObject();
    crds(cluster).create(new DynamicKubernetesObject(crd)).throwsApiException();
    Await.until(
        "the Widget CRD served",
        patience,
        () -> api(cluster, group).list(ns).isSuccess() ? Boolean.TRUE : null);
  }

  /** The Widgets of {@code group}. */
  static DynamicKubernetesApi api(Cluster cluster, String group) {
    return new DynamicKubernetesApi(group, "v1", "widgets", cluster.client());
  }

  /** Deletes the CRD of Widgets in {@code group} (and every Widget with it). */
  static void deleteCrd(Cluster cluster, String group) {
    crds(cluster).delete("widgets." + group);
  }

  private static DynamicKubernetesApi crds(Cluster cluster) {
    return new DynamicKubernetesApi(
        "apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.client());
  }
}
