package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.UninstallResult;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.util.PatchUtils;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An object an uninstall keeps (a CRD, unless CRDs are deleted) is un-stamped and no longer names
 * Capstan as a field manager, so another tool's later server-side apply of it (an operator's
 * upgrade applying its CRDs with {@code kubectl apply --server-side}) meets no conflict and needs
 * no {@code --force-conflicts}; the fields keep their values.
 */
@ControlPlaneTest
class KeptObjectsIT {

  private static String crd(String group, String description) {
    return "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
        + "\"metadata\":{\"name\":\"gadgets."
        + group
        + "\"},\"spec\":{\"group\":\""
        + group
        + "\",\"scope\":\"Namespaced\",\"names\":{\"kind\":\"Gadget\",\"plural\":\"gadgets\"},"
        + "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":"
        + "{\"openAPIV3Schema\":{\"type\":\"object\",\"description\":\""
        + description
        + "\",\"x-kubernetes-preserve-unknown-fields\":true}}}]}}";
  }

  @Test
  void aCrdKeptByAnUninstallIsAppliedServerSideByAnotherManagerWithoutForcingConflicts(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String group = ns + ".capstan.test";
    String name = "gadgets." + group;
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller().build();
    Payloads payloads =
        Payloads.builder()
            .namespace(ns)
            .manifest(JsonTrees.toJava(JsonParser.parseString(crd(group, "v1")).getAsJsonObject()))
            .build();
    releases.cast(ReleaseSpec.of(ns, "gadgets", payloads), payloads);
    assertThat(managers(cluster, name)).contains("capstan");

    UninstallResult u = releases.uninstall(ns, "gadgets", UninstallOptions.defaults());

    assertThat(u.retained()).extracting(r -> r.name()).containsExactly(name);
    assertThat(managers(cluster, name)).doesNotContain("capstan");
    V1CustomResourceDefinition kept =
        new ApiextensionsV1Api(cluster.client()).readCustomResourceDefinition(name).execute();
    assertThat(kept.getMetadata().getLabels()).doesNotContainKey("capstan.dev/release-id");
    assertThat(
            kept.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getDescription())
        .isEqualTo("v1");

    // kubectl apply --server-side (field manager kubectl, conflicts not forced) of a newer CRD:
    // a field Capstan applied with another value, which a manager that left no longer holds
    V1CustomResourceDefinition applied =
        PatchUtils.patch(
            V1CustomResourceDefinition.class,
            () ->
                new ApiextensionsV1Api(cluster.client())
                    .patchCustomResourceDefinition(name, new V1Patch(crd(group, "v2")))
                    .fieldManager("kubectl")
                    .force(false)
                    .buildCall(null),
            V1Patch.PATCH_FORMAT_APPLY_YAML,
            cluster.client());

    assertThat(
            applied
                .getSpec()
                .getVersions()
                .get(0)
                .getSchema()
                .getOpenAPIV3Schema()
                .getDescription())
        .isEqualTo("v2");
    assertThat(managers(cluster, name)).contains("kubectl").doesNotContain("capstan");
    new ApiextensionsV1Api(cluster.client()).deleteCustomResourceDefinition(name).execute();
  }

  private static List<String> managers(Cluster cluster, String crd) throws Exception {
    List<V1ManagedFieldsEntry> entries =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
                "apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.client())
            .get(crd)
            .throwsApiException()
            .getObject()
            .getMetadata()
            .getManagedFields();
    return entries == null
        ? List.of()
        : entries.stream().map(V1ManagedFieldsEntry::getManager).toList();
  }
}
