package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.k8s.testing.InstallBundles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Install manifests as projects publish them, cast with the CLI on the in-memory cluster: a
 * Namespace document with pod-security labels, a {@code kind: List}, objects in several namespaces
 * and a CRD bundle file over 4 MiB; the refusals of an empty cast and of a missing release
 * namespace, each with advice that works when followed.
 */
class PublishedManifestsCliTest {
  @TempDir Path dir;

  private String out = "";
  private String err = "";

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file;
  }

  private static final String GROUP = "bundle.example.com";
  private static final int CRD_BYTES = 1_000_000;
  private static final int BUNDLE_BYTES = (4 << 20) + 300_000;

  @Test
  void aNodeAgentAndAFourMebibyteCrdBundleCastAsPublishedAndUninstallKeepsWhatTheRulesKeep()
      throws IOException {
    write("agent/install.yaml", InstallBundles.nodeAgent("lb-system", "registry.example/agent:1"));
    Path crds = write("agent/crds.yaml", InstallBundles.crdBundle(GROUP, CRD_BYTES, BUNDLE_BYTES));
    int count = InstallBundles.crdCount(GROUP, CRD_BYTES, BUNDLE_BYTES);
    assertThat(Files.size(crds)).isGreaterThan(4L << 20);
    assertThat(count).isEqualTo(5);

    assertThat(run("release", "cast", "agent", "-n", "lb-system", "-f", "agent", "--yes"))
        .as(err)
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .contains(
            "  ✗ conflict   Namespace//kube-system  (referenced namespace 'kube-system' does not"
                + " exist; create it, or pass createNamespace (the CLI's --create-namespace))\n");

    assertThat(
            run(
                "release",
                "cast",
                "agent",
                "-n",
                "lb-system",
                "-f",
                "agent",
                "--create-namespace",
                "--yes"))
        .as(err)
        .isZero();
    StringBuilder crdLines = new StringBuilder();
    for (int i = 0; i < count; i++) {
      crdLines
          .append("  + create     apiextensions.k8s.io/CustomResourceDefinition//kind")
          .append(i)
          .append("s.")
          .append(GROUP)
          .append('\n');
    }
    assertThat(out)
        .isEqualTo(
            "Plan for release lb-system/agent: revision 1 (first install)\n"
                + "  = reference  Namespace//kube-system  (missing; created because"
                + " createNamespace is set)\n"
                + "  + create     Namespace//lb-system  (ensured: created with the labels and"
                + " annotations of the document)\n"
                + crdLines
                + "  + create     rbac.authorization.k8s.io/ClusterRole//lb-system-agent\n"
                + "  + create     rbac.authorization.k8s.io/ClusterRoleBinding//lb-system-agent\n"
                + "  + create     ServiceAccount/lb-system/agent\n"
                + "  + create     rbac.authorization.k8s.io/Role/kube-system/lb-system-agent\n"
                + "  + create     rbac.authorization.k8s.io/RoleBinding/kube-system/lb-system-agent\n"
                + "  + create     apps/DaemonSet/lb-system/agent\n"
                + "Summary: "
                + (count + 7)
                + " create, 1 reference\n"
                + "Release lb-system/agent revision 1 deployed.\n");

    assertThat(run("release", "cast", "agent", "-n", "lb-system", "-f", "agent", "--yes")).isZero();
    assertThat(out)
        .contains(
            "  = reference  Namespace//lb-system  (ensured: its labels and annotations are as the"
                + " document has them)\n")
        .contains("No changes: every object is up to date.\n");

    assertThat(run("release", "uninstall", "agent", "-n", "lb-system", "--yes")).isZero();
    assertThat(out)
        .contains("deleted  apps/DaemonSet/lb-system/agent\n")
        .contains(
            "retained apiextensions.k8s.io/CustomResourceDefinition//kind0s."
                + GROUP
                + " (a CRD: kept with its custom resources; --delete-crds deletes it)\n")
        .contains(
            "note     Namespace//lb-system: kept: the release ensures it, and namespaces are shared"
                + " (deleteNamespaces, the CLI's --delete-namespaces, deletes it with everything in"
                + " it)\n");
    assertThat(run("release", "get", "agent", "-n", "lb-system")).isZero();
    assertThat(out)
        .contains(
            "Retained:    "
                + count
                + " object(s) let go of and kept: "
                + count
                + " CustomResourceDefinition\n")
        .contains(
            "  apiextensions.k8s.io/CustomResourceDefinition//kind0s."
                + GROUP
                + "  (a CRD: kept with its custom resources; uninstall --delete-crds deletes it)\n")
        .doesNotContain("volume");

    // the note's advice, followed: --delete-namespaces deletes the ensured namespace
    assertThat(run("release", "cast", "agent", "-n", "lb-system", "-f", "agent", "--yes"))
        .as(err)
        .isZero();
    assertThat(
            run(
                "release",
                "uninstall",
                "agent",
                "-n",
                "lb-system",
                "--delete-namespaces",
                "--purge",
                "--yes"))
        .as(err)
        .isZero();
    assertThat(out)
        .contains("deleted  Namespace//lb-system\n")
        .doesNotContain("note     Namespace");
    // the namespace is gone; the CRDs stay, unowned once the records are purged
    assertThat(run("release", "plan", "agent", "-n", "lb-system", "-f", "agent"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .contains(
            "  + create     Namespace//lb-system  (ensured: created with the labels and"
                + " annotations of the document)\n")
        .contains(
            "  ✗ conflict   apiextensions.k8s.io/CustomResourceDefinition//kind0s."
                + GROUP
                + "  (exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership)\n");
  }

  @Test
  void anEmptyReleaseFileOverAReleaseThatOwnsObjectsIsRefusedWithExit2AndWritesNothing()
      throws IOException {
    Files.copy(Path.of("../examples/releases/web-v1.yaml"), dir.resolve("web-v1.yaml"));
    write(
        "empty.yaml",
        "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: web, namespace: demo}\n");
    CliRun cast =
        CliRun.of(
            Terminal.none(),
            Map.of("WEB_DB_PASSWORD", "pw")::get,
            dir,
            "release",
            "cast",
            "-f",
            "web-v1.yaml",
            "--yes");
    assertThat(cast.code()).as(cast.err()).isZero();
    byte[] before = Files.readAllBytes(dir.resolve(".capstan/state.json"));

    assertThat(run("release", "cast", "-f", "empty.yaml", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: invalid release demo/web (1 problem; nothing was written):\n"
                + "  - resources: the release holds no object to own, but revision 1 owns 6"
                + " (PersistentVolumeClaim/demo/web-data, ConfigMap/demo/web-legacy,"
                + " ConfigMap/demo/web-settings, …), which this cast would delete; check that the"
                + " input is complete (a release file without spec, a truncated file or an empty"
                + " directory gives no object). To delete them all, uninstall the release, or pass"
                + " dangerousAllowEmpty (the CLI's --dangerous-allow-empty)\n");
    assertThat(out).isEmpty();
    assertThat(Files.readAllBytes(dir.resolve(".capstan/state.json"))).isEqualTo(before);
    assertThat(run("release", "plan", "-f", "empty.yaml")).isEqualTo(ExitCode.INVALID);
    Files.createDirectories(dir.resolve("nothing"));
    assertThat(run("release", "cast", "web", "-n", "demo", "-f", "nothing", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(Files.readAllBytes(dir.resolve(".capstan/state.json"))).isEqualTo(before);

    // the advice, followed: the loudly named flag prunes them all (the Retain volume is kept)
    assertThat(run("release", "cast", "-f", "empty.yaml", "--dangerous-allow-empty", "--yes"))
        .as(err)
        .isZero();
    assertThat(out)
        .contains("  - prune      apps/Deployment/demo/web  ⚠ destructive\n")
        .contains("  ⊘ retain     PersistentVolumeClaim/demo/web-data")
        .endsWith("Release demo/web revision 2 deployed.\n");
    assertThat(run("release", "get", "web", "-n", "demo", "-o", "json")).isZero();
    JsonNode release = new ObjectMapper().readTree(out);
    assertThat(release.get("owns")).isEmpty();
    // or uninstall it
    assertThat(run("release", "uninstall", "web", "-n", "demo", "--yes")).isZero();
    assertThat(out).endsWith("Release demo/web uninstalled (history kept; --purge removes it).\n");
  }

  @Test
  void theReleasesOwnNamespaceIsRefusedClearlyWhenMissingAndCreatedWithCreateNamespace()
      throws IOException {
    write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: probe, namespace: demo}\ndata: {a: b}\n");

    assertThat(run("release", "cast", "probe", "-n", "monitoring", "-f", "cm.yaml", "--yes"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .isEqualTo(
            """
            Plan for release monitoring/probe: revision 1 (first install)
              = reference  Namespace//demo
              ✗ conflict   Namespace//monitoring  (the release's namespace 'monitoring' does not \
            exist, and its record and lease are kept there; create it, or pass createNamespace \
            (the CLI's --create-namespace) to have the cast create it)
              + create     ConfigMap/demo/probe
            Summary: 1 create, 1 conflict, 1 reference
            Not applyable: 1 conflict must be resolved first.
            """);
    // the refusal, and no API status (a 404 of the missing namespace) behind it
    assertThat(err)
        .isEqualTo(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: release monitoring/probe has unresolved conflicts; nothing was written:"
                + " Namespace//monitoring\n"
                + "  - Namespace//monitoring: the release's namespace 'monitoring' does not exist,"
                + " and its record and lease are kept there; create it, or pass createNamespace (the"
                + " CLI's --create-namespace) to have the cast create it\n");

    assertThat(
            run(
                "release",
                "cast",
                "probe",
                "-n",
                "monitoring",
                "-f",
                "cm.yaml",
                "--create-namespace",
                "--yes"))
        .as(err)
        .isZero();
    assertThat(out)
        .contains(
            "  = reference  Namespace//monitoring  (missing; created because createNamespace is"
                + " set)\n")
        .endsWith("Release monitoring/probe revision 1 deployed.\n");
    assertThat(run("release", "list", "-n", "monitoring")).isZero();
    assertThat(out).contains("probe ");
  }

  @Test
  void theOldNamespaceAdviceWorksAndAStorageClassDocumentIsOwned() throws IOException {
    // the advice an earlier Capstan gave for a Namespace document: reference it, --create-namespace
    write(
        "k8s/app.yaml",
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: tools, labels: {pod-security.kubernetes.io/enforce: baseline}}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: tools}
        """);
    write(
        "release.yaml",
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: tools, namespace: tools}
        spec:
          references: [Namespace//tools]
          manifests: [{path: k8s/}]
        """);
    assertThat(run("release", "cast", "-f", "release.yaml", "--create-namespace", "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release tools/tools revision 1 deployed.\n");

    // a provisioner's own StorageClass document is owned like any object; a claim's class is no
    // reference (a claim bound statically names a class no object backs)
    write(
        "sc/claim.yaml",
        """
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: local-path}
        provisioner: example.com/disk
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: data, namespace: demo}
        spec:
          storageClassName: manual
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 1Gi}}
        """);
    assertThat(run("release", "cast", "data", "-n", "demo", "-f", "sc", "--yes")).as(err).isZero();
    assertThat(out)
        .contains("  + create     storage.k8s.io/StorageClass//local-path")
        .contains("  + create     PersistentVolumeClaim/demo/data")
        .doesNotContain("StorageClass//manual");
    assertThat(run("release", "uninstall", "data", "-n", "demo", "--yes")).as(err).isZero();
    assertThat(out).contains("storage.k8s.io/StorageClass//local-path");
  }

  @Test
  void uninstallSaysTheClaimsOfAStatefulSetsTemplatesAreKept() {
    String shop = Path.of("../examples/src/main/resources/apps/shop").toAbsolutePath().toString();
    assertThat(
            run("release", "cast", "shop", "-n", "shop", "-f", shop, "--create-namespace", "--yes"))
        .as(err)
        .isZero();

    assertThat(run("release", "uninstall", "shop", "-n", "shop", "--yes")).isZero();

    assertThat(out)
        .contains(
            "note     apps/StatefulSet/shop/db: the PersistentVolumeClaims its volumeClaimTemplates"
                + " made (data-db-0, … (one per replica)) are kept with their data, as Kubernetes"
                + " keeps them; they are not the release's (it never owned them): delete them in"
                + " namespace shop once the data is no longer needed\n");
  }
}
