package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hooks on the real control plane: Jobs that kwok's pods complete (or fail, for {@link
 * ControlPlane#FAILING_IMAGE}), each case with the exact order of the writes the cast or uninstall
 * sends (the request log): pre-upgrade before the release's first write, a failing one with its
 * pod's reason and nothing of the release written, weights, each delete policy, pre/post-delete
 * around an uninstall, pre/post-rollback around a rollback.
 */
@ControlPlaneTest
class HooksIT {
  private static final Duration PATIENT = Duration.ofMinutes(2);

  static Manifest job(String ns, String name, String image, Map<String, String> annotations) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "batch/v1",
            "kind",
            "Job",
            "metadata",
            Map.of("name", name, "namespace", ns, "annotations", annotations),
            "spec",
            Map.of(
                "backoffLimit",
                0,
                "template",
                Map.of(
                    "spec",
                    Map.of(
                        "restartPolicy",
                        "Never",
                        "containers",
                        List.of(Map.of("name", "main", "image", image)))))));
  }

  private static Map<String, String> hook(String phases, String... more) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("helm.sh/hook", phases);
    for (int i = 0; i < more.length; i += 2) {
      a.put(more[i], more[i + 1]);
    }
    return a;
  }

  private static ConfigMapSpec settings(String ns, String value) {
    return ConfigMapSpec.of(ns, "settings", Map.of("value", value));
  }

  private static Payloads payloads(ResourceSpec... items) {
    return Payloads.of(items);
  }

  private static CastResult cast(ReleaseController c, String ns, Payloads p) {
    return c.cast(
        ReleaseSpec.of(ns, "web", p).withOptions(ReleaseOptions.defaults().withTimeout(PATIENT)),
        p);
  }

  /** The writes of Jobs and ConfigMaps since the last reset, in order. */
  private static List<String> writes(Cluster cluster) {
    List<String> out = new ArrayList<>();
    for (String line : cluster.requests().log()) {
      if (line.matches("(PATCH|POST|DELETE) (jobs|configmaps) .*")) {
        out.add(line);
      }
    }
    return out;
  }

  private static boolean exists(Cluster cluster, String ns, String job) throws Exception {
    return new BatchV1Api(cluster.client())
        .listNamespacedJob(ns).execute().getItems().stream()
            .anyMatch(j -> job.equals(java.util.Objects.requireNonNull(j.getMetadata()).getName()));
  }

  @Test
  void preUpgradeJobsRunInWeightOrderToCompletionBeforeTheReleasesFirstWrite(
      ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController c = cluster.controller().build();
    cast(c, ns, payloads(settings(ns, "1")));
    cluster.requests().reset();
    String image = "registry.example/migrate:1";

    CastResult r =
        cast(
            c,
            ns,
            payloads(
                settings(ns, "2"),
                job(ns, "third", image, hook("pre-upgrade", "helm.sh/hook-weight", "5")),
                job(ns, "second", image, hook("pre-upgrade", "helm.sh/hook-weight", "5")),
                job(ns, "first", image, hook("pre-upgrade", "helm.sh/hook-weight", "-5"))));

    assertThat(writes(cluster))
        .containsExactly(
            "PATCH jobs " + ns + "/first",
            "PATCH jobs " + ns + "/second",
            "PATCH jobs " + ns + "/third",
            "PATCH configmaps " + ns + "/settings");
    // each awaited to completion before the next write: its WATCH sits between the two
    List<String> log = cluster.requests().log();
    int firstWatch = log.indexOf("WATCH jobs " + ns);
    assertThat(firstWatch)
        .isGreaterThan(log.indexOf("PATCH jobs " + ns + "/first"))
        .isLessThan(log.indexOf("PATCH jobs " + ns + "/second"));
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(r.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-upgrade batch/Job/" + ns + "/first succeeded",
            "pre-upgrade batch/Job/" + ns + "/second succeeded",
            "pre-upgrade batch/Job/" + ns + "/third succeeded");
    assertThat(r.release().owns()).hasSize(1);
  }

  @Test
  void aFailingPreUpgradeJobStopsTheCastWithItsPodsReasonAndNothingOfTheReleaseWritten(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController c = cluster.controller().build();
    cast(c, ns, payloads(settings(ns, "1")));
    cluster.requests().reset();

    CastFailedException e =
        catchThrowableOfType(
            CastFailedException.class,
            () ->
                cast(
                    c,
                    ns,
                    payloads(
                        settings(ns, "2"),
                        job(ns, "migrate", ControlPlane.FAILING_IMAGE, hook("pre-upgrade")))));

    assertThat(e.getMessage())
        .matches(
            "release "
                + ns
                + "/web revision 2 failed: pre-upgrade hook batch/Job/"
                + ns
                + "/migrate failed: Job failed: BackoffLimitExceeded: Job has reached the specified"
                + " backoff limit; pod migrate-[a-z0-9]+: container main: Error \\(exit code 1\\):"
                + " simulated failure \\(kwok\\)");
    assertThat(writes(cluster)).containsExactly("PATCH jobs " + ns + "/migrate");
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsEntry("value", "1");
    assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(exists(cluster, ns, "migrate")).isTrue(); // before-hook-creation: kept to look at
  }

  @Test
  void eachDeletePolicyLeavesExactlyWhatItSays(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController c = cluster.controller().build();
    String ok = "registry.example/ok:1";
    Manifest rerun = job(ns, "rerun", ok, hook("pre-install,pre-upgrade"));
    Manifest gone =
        job(ns, "gone", ok, hook("pre-install", "helm.sh/hook-delete-policy", "hook-succeeded"));
    Manifest kept =
        job(ns, "kept", ok, hook("pre-install", "helm.sh/hook-delete-policy", "hook-failed"));

    cast(c, ns, payloads(settings(ns, "1"), rerun, gone, kept));

    assertThat(writes(cluster))
        .containsExactly(
            "PATCH jobs " + ns + "/gone",
            "PATCH jobs " + ns + "/kept",
            "PATCH jobs " + ns + "/rerun",
            "DELETE jobs " + ns + "/gone",
            "PATCH configmaps " + ns + "/settings");
    assertThat(exists(cluster, ns, "gone")).isFalse();
    assertThat(exists(cluster, ns, "kept")).isTrue();
    assertThat(exists(cluster, ns, "rerun")).isTrue();
    cluster.requests().reset();

    // before-hook-creation (the default): the last run's object goes first
    Manifest failing =
        job(
            ns,
            "failing",
            ControlPlane.FAILING_IMAGE,
            hook(
                "pre-upgrade",
                "helm.sh/hook-delete-policy",
                "hook-failed",
                "helm.sh/hook-weight",
                "1")); // after rerun (weight 0): the first failure stops the phase
    assertThat(
            catchThrowableOfType(
                CastFailedException.class,
                () -> cast(c, ns, payloads(settings(ns, "2"), rerun, failing))))
        .hasMessageStartingWith(
            "release "
                + ns
                + "/web revision 2 failed: pre-upgrade hook batch/Job/"
                + ns
                + "/failing failed: Job failed: BackoffLimitExceeded");

    assertThat(writes(cluster))
        .containsExactly(
            "DELETE jobs " + ns + "/rerun",
            "PATCH jobs " + ns + "/rerun",
            "PATCH jobs " + ns + "/failing",
            "DELETE jobs " + ns + "/failing");
    assertThat(exists(cluster, ns, "failing")).isFalse();
    assertThat(exists(cluster, ns, "rerun")).isTrue();
  }

  @Test
  void preAndPostDeleteRunAroundAnUninstall(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController c = cluster.controller().build();
    String ok = "registry.example/ok:1";
    cast(
        c,
        ns,
        payloads(
            settings(ns, "1"),
            job(ns, "backup", ok, hook("pre-delete")),
            job(ns, "farewell", ok, hook("post-delete"))));
    cluster.requests().reset();

    var u = c.uninstall(ns, "web", UninstallOptions.defaults());

    assertThat(writes(cluster))
        .containsExactly(
            "PATCH jobs " + ns + "/backup",
            "DELETE configmaps " + ns + "/settings",
            "PATCH jobs " + ns + "/farewell");
    assertThat(u.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-delete batch/Job/" + ns + "/backup succeeded",
            "post-delete batch/Job/" + ns + "/farewell succeeded");
  }

  @Test
  void preAndPostRollbackRunAroundARollback(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController c = cluster.controller().build();
    String ok = "registry.example/ok:1";
    cast(
        c,
        ns,
        payloads(
            settings(ns, "1"),
            job(ns, "down", ok, hook("pre-rollback")),
            job(ns, "check", ok, hook("post-rollback"))));
    cast(c, ns, payloads(settings(ns, "2")));
    cluster.requests().reset();

    CastResult r = c.rollback(ns, "web", 1, ReleaseOptions.defaults().withTimeout(PATIENT));

    assertThat(writes(cluster))
        .containsExactly(
            "PATCH jobs " + ns + "/down",
            "PATCH configmaps " + ns + "/settings",
            "PATCH jobs " + ns + "/check");
    assertThat(r.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-rollback batch/Job/" + ns + "/down succeeded",
            "post-rollback batch/Job/" + ns + "/check succeeded");
  }
}
