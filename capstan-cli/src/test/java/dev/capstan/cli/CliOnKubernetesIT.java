package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code capstan} command line against a real control plane: {@code release cast} of a release
 * file and of a directory of plain manifests, {@code get}, {@code update --dry-run} and an update
 * that rolls out by watch; a CRD change dropping a stored version refused by {@code release cast}
 * and {@code release rollback}.
 */
@ControlPlaneTest
class CliOnKubernetesIT {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  private int run(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of("WEB_DB_PASSWORD", "pw-on-k8s");
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void releaseCastThenUpdateDryRunAndUpdateOnARealControlPlane(ControlPlane plane, TestNamespace ns)
      throws Exception {
    Files.writeString(
        dir.resolve("release.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: web, namespace: NS, version: 1.0.0}
        spec:
          services:
          - name: web
            image: registry.example/demo/web:v1.0.0
            replicas: 2
            ports: [{name: http, port: 8080}]
            envFrom: [{secret: web-db}, {configMap: web-settings}]
          secrets:
          - {name: web-db, fromEnv: {password: WEB_DB_PASSWORD}}
          configMaps:
          - {name: web-settings, data: {log-level: info}}
        """
            .replace("NS", ns.name()));

    assertThat(run(plane, "release", "cast", "-f", "release.yaml")).as(err).isZero();
    assertThat(out)
        .contains("  + create     apps/Deployment/" + ns + "/web")
        .endsWith("Release " + ns + "/web revision 1 deployed.\n");
    assertThat(err).contains("object(s) healthy");

    assertThat(run(plane, "release", "get", "web", "-n", ns.name(), "-o", "json")).isZero();
    JsonNode release = new ObjectMapper().readTree(out);
    assertThat(release.get("status").asText()).isEqualTo("deployed");
    assertThat(release.get("owns")).hasSize(4);
    V1Deployment deployment =
        new AppsV1Api(plane.client()).readNamespacedDeployment("web", ns.name()).execute();
    assertThat(Objects.requireNonNull(deployment.getMetadata()).getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "capstan");
    assertThat(run(plane, "release", "plan", "-f", "release.yaml")).isZero();
    assertThat(out).contains("No changes: every object is up to date.");

    writePlatform(ns.name());
    assertThat(
            run(
                plane,
                "update",
                "--catalog",
                "catalog.yaml",
                "--release-manifest",
                "manifest.yaml",
                "--dry-run"))
        .as(err)
        .isZero();
    assertThat(out)
        .contains("Version:      v1.0.0 -> v1.1.0")
        .contains(
            "Dry run (plan only; no CRD apply, builds, or rollouts were attempted): 1 component(s)"
                + " would be updated.");
    assertThat(
            new AppsV1Api(plane.client())
                .readNamespacedDeployment("web", ns.name())
                .execute()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo("registry.example/demo/web:v1.0.0");

    assertThat(
            run(
                plane,
                "update",
                "--catalog",
                "catalog.yaml",
                "--release-manifest",
                "manifest.yaml",
                "--yes",
                "-o",
                "json"))
        .as(err)
        .isZero();
    JsonNode result = new ObjectMapper().readTree(out).get("result");
    assertThat(result.get("workloads").get(0).get("status").asText()).isEqualTo("updated");
    assertThat(err).contains("Rolled out " + ns + "/web");
  }

  @Test
  void aCorruptRecordFailsOnlyItsReleaseInTheListAndTheAdviceGivenMendsIt(
      ControlPlane plane, TestNamespace ns) throws Exception {
    String n = ns.name();
    for (String name : List.of("a", "b")) {
      Files.writeString(
          dir.resolve(name + ".yaml"),
          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata: {k: v}\n");
      assertThat(run(plane, "release", "cast", name, "-n", n, "-f", name + ".yaml", "--yes"))
          .as(err)
          .isZero();
    }
    // the head of b's only revision patched to garbage
    PatchUtils.patch(
        V1Secret.class,
        () ->
            new CoreV1Api(plane.client())
                .patchNamespacedSecret(
                    "capstan.release.v1.b.v1",
                    n,
                    new V1Patch("{\"data\":{\"release\":\"Z2FyYmFnZQ==\"}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        plane.client());

    assertThat(run(plane, "release", "list", "-n", n)).isEqualTo(ExitCode.FAILED);
    assertThat(out).startsWith("NAME").contains("\na ").doesNotContain("\nb ");
    String removal = "kubectl -n " + n + " delete secret -l owner=capstan,name=b,version=1";
    assertThat(err)
        .contains("capstan: release " + n + "/b: the record of revision 1 cannot be read (")
        .contains("to recover, delete that record (" + removal + ")")
        .contains("--adopt");

    // the advice followed: that kubectl command, then a cast with --adopt
    new CoreV1Api(plane.client())
        .deleteCollectionNamespacedSecret(n)
        .labelSelector("owner=capstan,name=b,version=1")
        .execute();
    assertThat(run(plane, "release", "list", "-n", n)).as(err).isZero();
    assertThat(run(plane, "release", "cast", "b", "-n", n, "-f", "b.yaml", "--adopt", "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release " + n + "/b revision 1 deployed.\n");
    assertThat(run(plane, "release", "list", "-n", n)).as(err).isZero();
    assertThat(out).contains("\na ").contains("\nb ");
  }

  @Test
  void aDirectoryOfPlainManifestsIsCastPlannedAgainAndUninstalled(
      ControlPlane plane, TestNamespace ns) throws Exception {
    Path app = Files.createDirectories(dir.resolve("app"));
    Files.writeString(
        app.resolve("config.yaml"),
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {ratio: "1.10"}
        ---
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: app}
        """);
    Files.writeString(
        app.resolve("web.yaml"),
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          replicas: 1
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              serviceAccountName: app
              containers:
              - name: web
                image: registry.example/demo/web:v1.0.0
                envFrom: [{configMapRef: {name: settings}}]
        ---
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: {name: web}
        spec:
          defaultBackend: {service: {name: web, port: {number: 80}}}
        """);
    String n = ns.name();

    assertThat(run(plane, "release", "cast", "app", "-n", n, "-f", "app")).as(err).isZero();

    assertThat(out)
        .startsWith(
            """
            Plan for release NS/app: revision 1 (first install)
              = reference  Namespace//NS
              + create     ServiceAccount/NS/app
              + create     ConfigMap/NS/settings
              + create     apps/Deployment/NS/web
              + create     networking.k8s.io/Ingress/NS/web
            Summary: 4 create, 1 reference
            """
                .replace("NS", n))
        .endsWith("Release " + n + "/app revision 1 deployed.\n");
    assertThat(run(plane, "release", "plan", "app", "-n", n, "-f", "app")).as(err).isZero();
    assertThat(out).contains("No changes: every object is up to date.");
    assertThat(run(plane, "release", "uninstall", "app", "-n", n, "--yes")).as(err).isZero();
    assertThat(out)
        .startsWith(
            """
            deleted  networking.k8s.io/Ingress/NS/web
            deleted  apps/Deployment/NS/web
            deleted  ConfigMap/NS/settings
            deleted  ServiceAccount/NS/app
            """
                .replace("NS", n));
  }

  private void writePlatform(String ns) throws IOException {
    Files.writeString(
        dir.resolve("catalog.yaml"),
        """
        platform: Web Platform
        metadata: {domain: web.capstan.dev, partOf: web}
        installedCheck: {namespace: NS, deployment: web}
        components:
          - {name: web, namespace: NS, deployment: web, container: web, repository: demo/web, built: true}
        """
            .replace("NS", ns));
    Files.writeString(
        dir.resolve("manifest.yaml"),
        """
        apiVersion: capstan.dev/v1alpha1
        kind: PlatformRelease
        version: v1.1.0
        registry: registry.example
        components:
          - {name: web, repository: demo/web, tag: v1.1.0}
        """);
  }

  /** A release of the Widget CRD of {@code group} with {@code versions}, and a ConfigMap. */
  private static String widgets(String group, String... versions) {
    return """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.GROUP}
        spec:
          group: GROUP
          scope: Namespaced
          names: {kind: Widget, plural: widgets}
          versions: [VERSIONS]
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {color: blue}
        """
        .replace("GROUP", group)
        .replace("VERSIONS", String.join(", ", versions));
  }

  private static String version(String name, boolean served, boolean storage) {
    return "{name: %s, served: %s, storage: %s, schema: {openAPIV3Schema: {type: object,"
            .formatted(name, served, storage)
        + " x-kubernetes-preserve-unknown-fields: true}}}";
  }

  @Test
  void aCrdChangeDroppingAStoredVersionIsRefusedByCastAndByRollbackWithNothingWritten(
      ControlPlane plane, TestNamespace ns) throws Exception {
    String group = ns.name() + ".capstan.test";
    String crd = "widgets." + group;
    String key = "apiextensions.k8s.io/CustomResourceDefinition//" + crd;
    ApiextensionsV1Api extensions = new ApiextensionsV1Api(plane.client());
    Files.writeString(dir.resolve("w1.yaml"), widgets(group, version("v1", true, true)));
    Files.writeString(
        dir.resolve("w2.yaml"),
        widgets(group, version("v1", true, false), version("v2", true, true)));
    Files.writeString(dir.resolve("w3.yaml"), widgets(group, version("v2", true, true)));
    try {
      assertThat(
              run(plane, "release", "cast", "widgets", "-n", ns.name(), "--yes", "-f", "w1.yaml"))
          .as(err)
          .isZero();
      assertThat(
              run(plane, "release", "cast", "widgets", "-n", ns.name(), "--yes", "-f", "w2.yaml"))
          .as(err)
          .isZero();
      String version =
          Objects.requireNonNull(
                  extensions.readCustomResourceDefinition(crd).execute().getMetadata())
              .getResourceVersion();

      assertThat(
              run(plane, "release", "cast", "widgets", "-n", ns.name(), "--yes", "-f", "w3.yaml"))
          .isEqualTo(ExitCode.BLOCKED);
      assertThat(out)
          .contains("  ✗ conflict   " + key + "  (unsafe CRD change: version v1: stored");
      assertThat(err)
          .startsWith(
              CliRun.workingOn(plane.kubeconfig())
                  + "capstan: release "
                  + ns
                  + "/widgets has unresolved conflicts; nothing was written: "
                  + key
                  + "\n  - "
                  + key
                  + ": unsafe CRD change: version v1: stored version removed (status.storedVersions"
                  + " lists it, so objects may still be stored at v1 and could no longer be read);"
                  + " migrate the objects stored at v1");
      assertThat(
              run(plane, "release", "rollback", "widgets", "-n", ns.name(), "--to", "1", "--yes"))
          .isEqualTo(ExitCode.BLOCKED);
      assertThat(err)
          .contains(
              key
                  + ": unsafe CRD change: version v2: stored version removed (status.storedVersions"
                  + " lists it");

      assertThat(
              Objects.requireNonNull(
                      extensions.readCustomResourceDefinition(crd).execute().getMetadata())
                  .getResourceVersion())
          .isEqualTo(version);
      assertThat(run(plane, "release", "history", "widgets", "-n", ns.name(), "-o", "json"))
          .isZero();
      assertThat(new ObjectMapper().readTree(out)).hasSize(2);
    } finally {
      // CRDs are cluster-wide and retained by an uninstall: remove this test's
      extensions.deleteCustomResourceDefinition(crd).execute();
    }
  }
}
