package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last shapes of published install manifests, as fixtures of our own, on the real control
 * plane: typed lists ({@code ConfigMapList}, {@code RoleList}, {@code RoleBindingList}) and a
 * {@code List}, a provisioner's own StorageClass, a claim bound statically to a volume of a class
 * no object backs, and a ResourceQuota beside the Deployments it counts (updated by the quota
 * controller as they go). Each casts, re-casts writing nothing, and uninstalls cleanly; the quota
 * case ten times in a row.
 */
@ControlPlaneTest
class PublishedShapesIT {
  @TempDir Path dir;

  /** The fixtures {@code files} copied into a directory of their own, read as the CLI reads -f. */
  private ReleaseFile read(String ns, String... files) throws IOException {
    Path manifests = Files.createDirectories(dir.resolve("manifests-" + ns));
    for (String f : files) {
      try (InputStream in = getClass().getResourceAsStream("/published-shapes/" + f)) {
        Files.copy(java.util.Objects.requireNonNull(in, f), manifests.resolve(f));
      }
    }
    return ReleaseFiles.read(manifests, new Overrides(ns, "shapes"), name -> null);
  }

  private static Map<String, Long> writesOf(Cluster cluster, String verb) {
    Map<String, Long> out = new TreeMap<>(cluster.writes());
    out.keySet().removeIf(k -> !k.startsWith(verb + " ") || k.endsWith(" leases"));
    return out;
  }

  @Test
  void typedListsAStorageClassAndAStaticallyBoundClaimCastReCastWithNoWriteAndUninstall(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller().build();
    ReleaseFile file = read(ns, "lists.yaml", "storage.yaml");
    ReleaseSpec spec = file.toSpec();

    CastResult first = releases.cast(spec, file.payloads());

    assertThat(first.plan().changes(Action.CONFLICT)).isEmpty();
    assertThat(first.plan().changes(Action.CREATE))
        .extracting(c -> c.ref().key())
        .containsExactly(
            "PersistentVolume//shapes-static",
            "storage.k8s.io/StorageClass//shapes-local",
            "ServiceAccount/" + ns + "/shapes-agent",
            "rbac.authorization.k8s.io/Role/" + ns + "/config-reader",
            "rbac.authorization.k8s.io/RoleBinding/" + ns + "/config-reader",
            "PersistentVolumeClaim/" + ns + "/static-data",
            "ConfigMap/" + ns + "/dashboard-a",
            "ConfigMap/" + ns + "/dashboard-b");
    // a claim's class is no reference: only the namespace is
    assertThat(first.release().references()).containsExactly(ResourceRef.namespace(ns));
    assertThat(
            cluster
                .core
                .readNamespacedPersistentVolumeClaim("static-data", ns)
                .execute()
                .getStatus()
                .getPhase())
        .isEqualTo("Bound");

    cluster.requests().reset();
    Plan again = releases.plan(spec, file.payloads());
    assertThat(again.changesNothing()).isTrue();
    releases.cast(spec, file.payloads());
    assertThat(writesOf(cluster, "PATCH")).isEmpty();

    cluster.requests().reset();
    UninstallResult gone =
        releases.uninstall(
            ns, "shapes", UninstallOptions.defaults().withWait(Duration.ofSeconds(60)));
    assertThat(gone.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(gone.deleted()).hasSize(8);
    assertThat(gone.retained()).isEmpty();
    Map<String, Long> deletes = writesOf(cluster, "DELETE");
    // the volume controller releases the volume as its claim goes (just before it, in reverse
    // rank order): its delete may be refused, looked at again and sent again
    assertThat(java.util.Objects.requireNonNull(deletes.remove("DELETE persistentvolumes")))
        .isBetween(1L, 4L);
    assertThat(deletes)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "DELETE configmaps", 2L,
                "DELETE persistentvolumeclaims", 1L,
                "DELETE rolebindings", 1L,
                "DELETE roles", 1L,
                "DELETE serviceaccounts", 1L,
                "DELETE storageclasses", 1L));
    assertThat(
            cluster.core.listPersistentVolume().execute().getItems().stream()
                .map(pv -> pv.getMetadata().getName())
                .toList())
        .doesNotContain("shapes-static");
  }

  @Test
  void aReleaseWithAQuotaBesideItsDeploymentsUninstallsTenTimesOutOfTen(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller().build();
    ReleaseFile file = read(ns, "lists.yaml", "quota.yaml");
    ReleaseSpec spec = file.toSpec();
    ResourceRef quota = ResourceRef.of(Kind.RESOURCE_QUOTA, ns, "shapes-quota");
    int quotaDeletes = 0;
    for (int round = 1; round <= 10; round++) {
      // each round starts as the first did: the pods of the last round's Deployments are the
      // garbage collector's to delete after the uninstall, and until they are gone they count
      // against the quota the new cast's pods need (how long that takes is the machine's load)
      awaitNoPods(cluster, ns);
      releases.cast(spec, file.payloads());
      if (round == 1) {
        cluster.requests().reset();
        releases.cast(spec, file.payloads());
        assertThat(writesOf(cluster, "PATCH")).as("re-cast").isEmpty();
      }

      cluster.requests().reset();
      UninstallResult gone = releases.uninstall(ns, "shapes", UninstallOptions.defaults());

      assertThat(gone.release().status())
          .as("round %d", round)
          .isEqualTo(ReleaseStatus.UNINSTALLED);
      assertThat(gone.deleted()).as("round %d", round).hasSize(8).contains(quota);
      Map<String, Long> deletes = writesOf(cluster, "DELETE");
      // the quota controller may update the quota between the observation and its delete: the
      // delete is then refused, looked at again and sent again (timing decides how often)
      long quotaAttempts =
          java.util.Objects.requireNonNull(
              deletes.remove("DELETE resourcequotas"), "quota deletes");
      assertThat(quotaAttempts).as("round %d", round).isBetween(1L, 4L);
      quotaDeletes += (int) quotaAttempts;
      assertThat(deletes)
          .as("round %d", round)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "DELETE configmaps", 2L,
                  "DELETE deployments", 2L,
                  "DELETE rolebindings", 1L,
                  "DELETE roles", 1L,
                  "DELETE serviceaccounts", 1L));
    }
    System.out.println("quota DELETEs over 10 uninstalls: " + quotaDeletes);
    assertThat(releases.history(ns, "shapes").get(0).status()).isEqualTo(ReleaseStatus.UNINSTALLED);
  }

  private static dev.capstan.release.model.Payloads selector(String ns, String app, boolean optIn) {
    return dev.capstan.release.model.Payloads.builder()
        .namespace(ns)
        .manifest(
            JsonTrees.toJava(
                com.google.gson.JsonParser.parseString(
                        ("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web'"
                                + (optIn
                                    ? ",'annotations':{'capstan.dev/replace-on-immutable':'true'}"
                                    : "")
                                + "},'spec':{'replicas':1,'selector':{'matchLabels':{'app':'APP'}},"
                                + "'template':{'metadata':{'labels':{'app':'APP'}},'spec':"
                                + "{'containers':[{'name':'web','image':'registry.example/web:1'}]}}}}")
                            .replace('\'', '"')
                            .replace("APP", app))
                    .getAsJsonObject()))
        .build();
  }

  @Test
  void anImmutableSelectorChangeIsRefusedWithAdviceAndOptedInIsAReplaceThatReCastsWithNoWrite(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller().build();
    var v1 = selector(ns, "web", false);
    releases.cast(ReleaseSpec.of(ns, "web", v1), v1);

    // by default: the API server's refusal, and how to opt in
    var v2 = selector(ns, "web-v2", false);
    var failed =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            dev.capstan.release.error.CastFailedException.class,
            () -> releases.cast(ReleaseSpec.of(ns, "web", v2), v2));
    assertThat(failed.result().release().failure())
        .contains("field is immutable")
        .endsWith(
            "; the API server cannot update apps/Deployment/"
                + ns
                + "/web in place: to delete and create it again, give it the annotation"
                + " capstan.dev/replace-on-immutable: \"true\" (or cast with replaceOnImmutable)");

    // the advice, followed
    var opted = selector(ns, "web-v2", true);
    cluster.requests().reset();
    CastResult replaced = releases.cast(ReleaseSpec.of(ns, "web", opted), opted);
    assertThat(replaced.plan().changes(Action.REPLACE)).hasSize(1);
    assertThat(writesOf(cluster, "DELETE")).containsEntry("DELETE deployments", 1L);
    assertThat(writesOf(cluster, "PATCH")).containsEntry("PATCH deployments", 1L);
    assertThat(
            cluster
                .apps
                .readNamespacedDeployment("web", ns)
                .execute()
                .getSpec()
                .getSelector()
                .getMatchLabels())
        .containsExactlyEntriesOf(Map.of("app", "web-v2"));

    cluster.requests().reset();
    releases.cast(ReleaseSpec.of(ns, "web", opted), opted);
    assertThat(writesOf(cluster, "PATCH")).isEmpty();
    assertThat(writesOf(cluster, "DELETE")).isEmpty();
    UninstallResult gone = releases.uninstall(ns, "web", UninstallOptions.defaults());
    assertThat(gone.deleted()).hasSize(1);
  }

  private static void awaitNoPods(Cluster cluster, String namespace) {
    dev.capstan.k8s.testing.Await.until(
        "no pods left in " + namespace,
        Cluster.ROLLOUT,
        () ->
            cluster.core.listNamespacedPod(namespace).execute().getItems().isEmpty() ? true : null);
  }
}
