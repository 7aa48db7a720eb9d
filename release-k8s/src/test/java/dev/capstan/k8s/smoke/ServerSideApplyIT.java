package dev.capstan.k8s.smoke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class ServerSideApplyIT {

  private static final String FIRST = "capstan-it-first";
  private static final String SECOND = "capstan-it-second";

  @Test
  void applyCreatesTheObjectAndALaterApplyPatchesItUnderTheSameFieldManager(
      ApiClient client, TestNamespace ns) throws ApiException {
    V1ConfigMap created = apply(client, ns, FIRST, false, Map.of("color", "blue"));

    assertThat(created.getData()).containsExactlyEntriesOf(Map.of("color", "blue"));
    assertThat(created.getMetadata().getResourceVersion()).isNotBlank();

    V1ConfigMap patched = apply(client, ns, FIRST, false, Map.of("color", "green", "size", "L"));

    assertThat(patched.getData())
        .containsExactlyInAnyOrderEntriesOf(Map.of("color", "green", "size", "L"));
    assertThat(patched.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(applyManagers(client, ns)).containsExactly(FIRST);
    assertThat(fieldsOwnedBy(client, ns, FIRST)).contains("f:color", "f:size");
  }

  @Test
  void applyOfAFieldOwnedByAnotherManagerConflictsAndNamesThatManager(
      ApiClient client, TestNamespace ns) throws ApiException {
    apply(client, ns, FIRST, false, Map.of("color", "blue"));

    ApiException conflict =
        catchThrowableOfType(
            ApiException.class, () -> apply(client, ns, SECOND, false, Map.of("color", "red")));

    assertThat(conflict.getCode()).isEqualTo(409);
    V1Status status = JSON.deserialize(conflict.getResponseBody(), V1Status.class);
    assertThat(status.getReason()).isEqualTo("Conflict");
    assertThat(status.getMessage())
        .contains("conflict with \"" + FIRST + "\"")
        .contains(".data.color");
    V1ConfigMap unchanged =
        new CoreV1Api(client).readNamespacedConfigMap("settings", ns.name()).execute();
    assertThat(unchanged.getData()).containsEntry("color", "blue");
  }

  @Test
  void forcedApplyTakesOverTheConflictingField(ApiClient client, TestNamespace ns)
      throws ApiException {
    apply(client, ns, FIRST, false, Map.of("color", "blue", "size", "L"));

    V1ConfigMap forced = apply(client, ns, SECOND, true, Map.of("color", "red"));

    assertThat(forced.getData()).containsEntry("color", "red").containsEntry("size", "L");
    assertThat(fieldsOwnedBy(client, ns, SECOND)).contains("f:color");
    assertThat(fieldsOwnedBy(client, ns, FIRST)).doesNotContain("f:color").contains("f:size");
  }

  private static V1ConfigMap apply(
      ApiClient client, TestNamespace ns, String manager, boolean force, Map<String, String> data)
      throws ApiException {
    StringBuilder yaml =
        new StringBuilder()
            .append("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
            .append("  namespace: ")
            .append(ns.name())
            .append("\ndata:\n");
    data.forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    CoreV1Api core = new CoreV1Api(client);
    return PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            core.patchNamespacedConfigMap("settings", ns.name(), new V1Patch(yaml.toString()))
                .fieldManager(manager)
                .force(force)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        client);
  }

  private static List<String> applyManagers(ApiClient client, TestNamespace ns)
      throws ApiException {
    return managedFields(client, ns).stream()
        .filter(e -> "Apply".equals(e.getOperation()))
        .map(V1ManagedFieldsEntry::getManager)
        .filter(Objects::nonNull)
        .toList();
  }

  private static String fieldsOwnedBy(ApiClient client, TestNamespace ns, String manager)
      throws ApiException {
    return managedFields(client, ns).stream()
        .filter(e -> manager.equals(e.getManager()))
        .map(e -> String.valueOf(e.getFieldsV1()))
        .reduce("", String::concat);
  }

  /**
   * Reads metadata.managedFields through the dynamic API: client-java 27's typed models drop them
   * while deserializing (its V1MetadataExclusionStrategy, default since 22.0.0).
   */
  private static List<V1ManagedFieldsEntry> managedFields(ApiClient client, TestNamespace ns)
      throws ApiException {
    DynamicKubernetesObject object =
        new DynamicKubernetesApi("", "v1", "configmaps", client)
            .get(ns.name(), "settings")
            .throwsApiException()
            .getObject();
    List<V1ManagedFieldsEntry> entries = object.getMetadata().getManagedFields();
    return entries == null ? List.of() : entries;
  }
}
