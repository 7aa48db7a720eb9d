package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.PlannedChange;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CRD safety gate on the real control plane: a release whose CRD change would drop a version
 * objects are stored at is refused on cast and on rollback before any write, the plan naming the
 * CRD and what would break; once the objects are migrated as the refusal says, the same cast goes
 * through.
 */
@ControlPlaneTest
class CrdSafetyIT {

  private static Map<String, Object> json(String text) {
    return JsonTrees.toJava(JsonParser.parseString(text).getAsJsonObject());
  }

  private static String version(String name, boolean served, boolean storage) {
    return "{\"name\":\""
        + name
        + "\",\"served\":"
        + served
        + ",\"storage\":"
        + storage
        + ",\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
        + "\"x-kubernetes-preserve-unknown-fields\":true}}}";
  }

  /** The release: the Widget CRD with {@code versions}, a Widget at {@code at}, a ConfigMap. */
  private static Payloads release(String ns, String group, String at, String... versions) {
    return Payloads.builder()
        .namespace(ns)
        .manifest(
            json(
                "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
                    + "\"metadata\":{\"name\":\"widgets."
                    + group
                    + "\"},\"spec\":{\"group\":\""
                    + group
                    + "\",\"scope\":\"Namespaced\",\"names\":{\"kind\":\"Widget\","
                    + "\"plural\":\"widgets\"},\"versions\":["
                    + String.join(",", versions)
                    + "]}}"))
        .manifest(
            json(
                "{\"apiVersion\":\""
                    + group
                    + "/"
                    + at
                    + "\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\"},"
                    + "\"spec\":{\"size\":3}}"))
        .manifest(
            json(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"settings\"},"
                    + "\"data\":{\"color\":\"blue\"}}"))
        .build();
  }

  @Test
  void aCrdChangeDroppingAStoredVersionIsRefusedOnCastAndOnRollbackWithNoWrite(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String group = ns + ".capstan.test";
    String crd = "widgets." + group;
    String key = "apiextensions.k8s.io/CustomResourceDefinition//" + crd;
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(plane.client());
    try {
      Payloads v1 = release(ns, group, "v1", version("v1", true, true));
      releases.cast(ReleaseSpec.of(ns, "widgets", v1), v1);
      // v2 becomes the storage version, v1 stays served: a path, so it goes through
      Payloads both =
          release(ns, group, "v1", version("v1", true, false), version("v2", true, true));
      releases.cast(ReleaseSpec.of(ns, "widgets", both), both);
      assertThat(
              extensions
                  .readCustomResourceDefinition(crd)
                  .execute()
                  .getStatus()
                  .getStoredVersions())
          .containsExactly("v1", "v2");

      // dropping v1, which objects may still be stored at: refused, nothing written
      Payloads v2 = release(ns, group, "v2", version("v2", true, true));
      cluster.requests().reset();
      ReleaseConflictException refused =
          catchThrowableOfType(
              ReleaseConflictException.class,
              () -> releases.cast(ReleaseSpec.of(ns, "widgets", v2), v2));
      String removedV1 =
          "unsafe CRD change: version v1: stored version removed (status.storedVersions lists it,"
              + " so objects may still be stored at v1 and could no longer be read); migrate the"
              + " objects stored at v1 to a version the CRD keeps (write each again there, resetting"
              + " its metadata.managedFields, whose entries at v1 would fail every later apply) and"
              + " remove v1 from its"
              + " status.storedVersions, then cast again (the API server refuses the change until"
              + " then)";
      assertThat(refused.plan().conflicts())
          .extracting(c -> c.ref().key() + ": " + c.reason())
          .containsExactly(key + ": " + removedV1);
      // the lease taken and given up, the record read, the plan's observation: no other request
      assertThat(cluster.writes())
          .containsOnlyKeys("CREATE leases", "DELETE leases")
          .containsEntry("CREATE leases", 1L);
      assertThat(releases.history(ns, "widgets")).hasSize(2);

      // rolling back to revision 1 drops v2, now stored too: refused the same way
      cluster.requests().reset();
      ReleaseConflictException rollback =
          catchThrowableOfType(
              ReleaseConflictException.class, () -> releases.rollback(ns, "widgets", 1));
      assertThat(rollback.plan().conflicts())
          .singleElement()
          .satisfies(
              c ->
                  assertThat(c.reason())
                      .startsWith("unsafe CRD change: version v2: stored version removed"));
      assertThat(cluster.writes()).containsOnlyKeys("CREATE leases", "DELETE leases");
      assertThat(releases.planRollback(ns, "widgets", 1).applyable()).isFalse();
      assertThat(releases.history(ns, "widgets")).hasSize(2);
      assertThat(extensions.readCustomResourceDefinition(crd).execute().getSpec().getVersions())
          .hasSize(2);

      // the advice, followed: write the stored objects again at v2 (the storage version) with
      // their managed fields reset (Capstan's entry names v1: the next apply would fail on it),
      // then take v1 out of status.storedVersions; the same cast then goes through
      DynamicKubernetesApi widgets =
          new DynamicKubernetesApi(group, "v2", "widgets", plane.client());
      widgets
          .patch(
              ns,
              "w1",
              V1Patch.PATCH_FORMAT_JSON_PATCH,
              new V1Patch(
                  "[{\"op\":\"replace\",\"path\":\"/metadata/managedFields\",\"value\":[{}]}]"))
          .throwsApiException();
      PatchUtils.patch(
          V1CustomResourceDefinition.class,
          () ->
              extensions
                  .patchCustomResourceDefinitionStatus(
                      crd, new V1Patch("{\"status\":{\"storedVersions\":[\"v2\"]}}"))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          plane.client());

      var done = releases.cast(ReleaseSpec.of(ns, "widgets", v2), v2);

      assertThat(done.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      assertThat(done.plan().changes())
          .filteredOn(c -> c.ref().key().equals(key))
          .extracting(PlannedChange::action)
          .containsExactly(Action.UPDATE);
      assertThat(extensions.readCustomResourceDefinition(crd).execute().getSpec().getVersions())
          .extracting(v -> v.getName())
          .containsExactly("v2");
    } finally {
      // CRDs are cluster-wide and retained by an uninstall: remove this test's
      extensions.deleteCustomResourceDefinition(crd).execute();
    }
  }

  @Test
  void aCustomResourceAtAVersionItsCrdGainsInTheSameCastIsWrittenAtThatVersion(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String group = ns + ".capstan.test";
    String crd = "widgets." + group;
    // one adapter for both casts: its discovery knows Widget at v1 only when the second begins
    ReleaseController releases = new Cluster(plane).controller("caster");
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(plane.client());
    try {
      Payloads v1 = release(ns, group, "v1", version("v1", true, true));
      releases.cast(ReleaseSpec.of(ns, "widgets", v1), v1);
      Payloads atV2 =
          release(ns, group, "v2", version("v1", true, false), version("v2", true, true));

      var done = releases.cast(ReleaseSpec.of(ns, "widgets", atV2), atV2);

      assertThat(done.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      // Capstan's apply of the Widget was made at v2, the version its manifest names
      var widget =
          new DynamicKubernetesApi(group, "v2", "widgets", plane.client())
              .get(ns, "w1")
              .throwsApiException()
              .getObject();
      assertThat(widget.getMetadata().getManagedFields())
          .filteredOn(f -> "capstan".equals(f.getManager()))
          .extracting(f -> f.getApiVersion())
          .containsExactly(group + "/v2");
    } finally {
      extensions.deleteCustomResourceDefinition(crd).execute();
    }
  }

  @Test
  void theObservationACastMakesCarriesTheCrdsStoredVersionsAtNoExtraRequest(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String group = ns + ".capstan.test";
    String crd = "widgets." + group;
    Cluster cluster = new Cluster(plane);
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(plane.client());
    try {
      Payloads v1 = release(ns, group, "v1", version("v1", true, true));
      cluster.controller("caster").cast(ReleaseSpec.of(ns, "widgets", v1), v1);
      cluster.requests().reset();

      var observed =
          cluster.orchestrator.observe(
              dev.capstan.release.model.Kind.CUSTOM_RESOURCE_DEFINITION, "", java.util.Set.of(crd));

      assertThat(observed)
          .singleElement()
          .satisfies(o -> assertThat(o.status()).containsEntry("storedVersions", List.of("v1")));
      assertThat(cluster.requests().log()).containsExactly("LIST customresourcedefinitions");
    } finally {
      extensions.deleteCustomResourceDefinition(crd).execute();
    }
  }

  /** A Gadget CRD of one version whose schema is {@code schema} (YAML-free JSON). */
  private static Payloads gadgets(String ns, String group, String schema) {
    return Payloads.builder()
        .namespace(ns)
        .manifest(
            json(
                "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
                    + "\"metadata\":{\"name\":\"gadgets."
                    + group
                    + "\"},\"spec\":{\"group\":\""
                    + group
                    + "\",\"scope\":\"Namespaced\",\"names\":{\"kind\":\"Gadget\","
                    + "\"plural\":\"gadgets\"},\"versions\":[{\"name\":\"v1\",\"served\":true,"
                    + "\"storage\":true,\"subresources\":{\"status\":{}},"
                    + "\"schema\":{\"openAPIV3Schema\":"
                    + schema
                    + "}}]}}"))
        .build();
  }

  private static final String OPEN =
      "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":"
          + "{\"size\":{\"type\":\"integer\"}}},\"status\":{\"type\":\"object\","
          + "\"properties\":{\"phase\":{\"type\":\"string\"}}}}}";

  @Test
  void aRequiredStatusFieldNeverBlocksAndASchemaNarrowedBlocksOnlyWhereObjectsAreStored(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String group = ns + ".capstan.test";
    String crd = "gadgets." + group;
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(plane.client());
    try {
      Payloads v1 = gadgets(ns, group, OPEN);
      releases.cast(ReleaseSpec.of(ns, "gadgets", v1), v1);

      // metallb's shape: a release adds a required status field; status-only, never a finding
      Payloads statusRequired =
          gadgets(
              ns,
              group,
              OPEN.replace(
                  "\"properties\":{\"phase\"",
                  "\"required\":[\"phase\"],\"properties\":{\"phase\""));
      cluster.requests().reset();
      var status = releases.cast(ReleaseSpec.of(ns, "gadgets", statusRequired), statusRequired);
      assertThat(status.plan().changes(Action.UPDATE))
          .extracting(c -> c.ref().name())
          .containsExactly(crd);
      assertThat(cluster.requests().counts()).doesNotContainKey("LIST gadgets");

      // a required spec field: judged by what is stored, one LIST (limit 1) of the kind; none
      Payloads specRequired =
          gadgets(
              ns,
              group,
              OPEN.replace(
                  "\"properties\":{\"size\"", "\"required\":[\"size\"],\"properties\":{\"size\""));
      cluster.requests().reset();
      var spec = releases.cast(ReleaseSpec.of(ns, "gadgets", specRequired), specRequired);
      assertThat(spec.plan().changes(Action.UPDATE))
          .extracting(c -> c.ref().name())
          .containsExactly(crd);
      assertThat(cluster.requests().counts()).containsEntry("LIST gadgets", 1L);

      // with a Gadget stored, narrowing again (a property removed) is refused, naming it
      new DynamicKubernetesApi(group, "v1", "gadgets", plane.client())
          .create(
              new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject(
                  JsonParser.parseString(
                          "{\"apiVersion\":\""
                              + group
                              + "/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g1\","
                              + "\"namespace\":\""
                              + ns
                              + "\"},\"spec\":{\"size\":1}}")
                      .getAsJsonObject()))
          .throwsApiException();
      Payloads narrower =
          gadgets(
              ns,
              group,
              OPEN.replace("\"size\":{\"type\":\"integer\"}", "\"count\":{\"type\":\"integer\"}"));
      ReleaseConflictException refused =
          catchThrowableOfType(
              ReleaseConflictException.class,
              () -> releases.cast(ReleaseSpec.of(ns, "gadgets", narrower), narrower));
      assertThat(refused)
          .hasMessageContaining(
              "version v1: schema narrowed: property spec.size removed (objects stored: at v1: "
                  + group
                  + "/Gadget/"
                  + ns
                  + "/g1)");
    } finally {
      extensions.deleteCustomResourceDefinition(crd).execute();
    }
  }
}
