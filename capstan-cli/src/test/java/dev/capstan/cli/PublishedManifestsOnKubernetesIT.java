package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.InstallBundles;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI casts install manifests as projects publish them on the real control plane: a node agent
 * (a Namespace document with {@code pod-security.kubernetes.io/enforce: privileged}, a {@code kind:
 * List}, RBAC in two namespaces, a host-network DaemonSet) and a CRD bundle file over 4 MiB with
 * CRDs near 1 MB, healthy, re-cast without a write, refused when emptied, uninstalled leaving the
 * CRDs and the namespace; and the release's own namespace refused clearly or created.
 */
@ControlPlaneTest
class PublishedManifestsOnKubernetesIT {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  private static final int CRD_BYTES = 1_000_000;
  private static final int BUNDLE_BYTES = (4 << 20) + 300_000;

  private int run(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of();
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
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

  /**
   * When Capstan's field managers last wrote each object of the release and its namespace (the time
   * of their managedFields entries): a write that changes anything moves it, and the controllers'
   * own status writes do not.
   */
  private static Map<String, String> written(ControlPlane plane, String ns, String group, int crds)
      throws ApiException {
    Map<String, String> out = new TreeMap<>();
    out.put("namespace", times(raw(plane, "", "v1", "namespaces", "", ns)));
    out.put("daemonset", times(raw(plane, "apps", "v1", "daemonsets", ns, "agent")));
    out.put("serviceaccount", times(raw(plane, "", "v1", "serviceaccounts", ns, "agent")));
    for (int i = 0; i < crds; i++) {
      out.put(
          "crd" + i,
          times(
              raw(
                  plane,
                  "apiextensions.k8s.io",
                  "v1",
                  "customresourcedefinitions",
                  "",
                  "kind" + i + "s." + group)));
    }
    return out;
  }

  /** The managedFields of an object, read raw (the typed models drop them). */
  private static java.util.List<io.kubernetes.client.openapi.models.V1ManagedFieldsEntry> raw(
      ControlPlane plane, String group, String version, String plural, String ns, String name)
      throws ApiException {
    DynamicKubernetesApi api = new DynamicKubernetesApi(group, version, plural, plane.client());
    return Objects.requireNonNull(
        (ns.isEmpty() ? api.get(name) : api.get(ns, name))
            .throwsApiException()
            .getObject()
            .getMetadata()
            .getManagedFields());
  }

  private static String times(
      java.util.List<io.kubernetes.client.openapi.models.V1ManagedFieldsEntry> entries) {
    List<String> capstan =
        entries.stream()
            .filter(e -> e.getManager() != null && e.getManager().startsWith("capstan"))
            .map(e -> e.getManager() + "@" + e.getTime())
            .sorted()
            .toList();
    assertThat(capstan).isNotEmpty();
    return capstan.toString();
  }

  private static DynamicKubernetesApi crds(ControlPlane plane) {
    return new DynamicKubernetesApi(
        "apiextensions.k8s.io", "v1", "customresourcedefinitions", plane.client());
  }

  @Test
  void aNodeAgentAndAFourMebibyteCrdBundleCastHealthyRecastWithoutWritesAndUninstallKeepingCrds(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name() + "-lb";
    String group = tns.name() + ".bundle.example.com";
    write("agent/install.yaml", InstallBundles.nodeAgent(ns, "registry.example/agent:1.0"));
    Path bundle =
        write("agent/crds.yaml", InstallBundles.crdBundle(group, CRD_BYTES, BUNDLE_BYTES));
    int crds = InstallBundles.crdCount(group, CRD_BYTES, BUNDLE_BYTES);
    assertThat(Files.size(bundle)).isGreaterThan(4L << 20);
    write(
        "empty.yaml",
        "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: agent, namespace: "
            + ns
            + "}\n");
    try {
      assertThat(run(plane, "release", "cast", "agent", "-n", ns, "-f", "agent", "--yes"))
          .as(err)
          .isZero();
      assertThat(out)
          .contains(
              "  + create     Namespace//"
                  + ns
                  + "  (ensured: created with the labels and annotations of the document)\n")
          .contains("  + create     apiextensions.k8s.io/CustomResourceDefinition//kind0s." + group)
          .endsWith("Release " + ns + "/agent revision 1 deployed.\n");
      assertThat(err).contains("object(s) healthy");
      V1DaemonSet ds = new AppsV1Api(plane.client()).readNamespacedDaemonSet("agent", ns).execute();
      assertThat(Objects.requireNonNull(ds.getStatus()).getNumberReady())
          .isEqualTo(ds.getStatus().getDesiredNumberScheduled())
          .isPositive();
      assertThat(
              new CoreV1Api(plane.client()).readNamespace(ns).execute().getMetadata().getLabels())
          .containsEntry("pod-security.kubernetes.io/enforce", "privileged");

      Map<String, String> before = written(plane, ns, group, crds);
      assertThat(run(plane, "release", "cast", "agent", "-n", ns, "-f", "agent", "--yes"))
          .as(err)
          .isZero();
      assertThat(out).contains("No changes: every object is up to date.\n");
      assertThat(written(plane, ns, group, crds)).isEqualTo(before);

      // an emptied input: refused before any write, the objects as they were
      assertThat(run(plane, "release", "cast", "-f", "empty.yaml", "--yes"))
          .isEqualTo(ExitCode.INVALID);
      assertThat(err)
          .startsWith(
              CliRun.workingOn(plane.kubeconfig())
                  + "capstan: invalid release "
                  + ns
                  + "/agent (1 problem; nothing was written):\n"
                  + "  - resources: the release holds no object to own, but revision 2 owns "
                  + (crds + 6));
      assertThat(written(plane, ns, group, crds)).isEqualTo(before);

      assertThat(run(plane, "release", "uninstall", "agent", "-n", ns, "--yes")).as(err).isZero();
      assertThat(out)
          .contains("deleted  apps/DaemonSet/" + ns + "/agent\n")
          .contains(
              "retained apiextensions.k8s.io/CustomResourceDefinition//kind0s."
                  + group
                  + " (a CRD: kept with its custom resources; --delete-crds deletes it)\n")
          .contains("note     Namespace//" + ns + ": kept: the release ensures it");
      assertThat(crds(plane).get("kind0s." + group).isSuccess()).isTrue();
      assertThat(new CoreV1Api(plane.client()).readNamespace(ns).execute().getMetadata())
          .satisfies(m -> assertThat(m.getDeletionTimestamp()).isNull());
    } finally {
      for (int i = 0; i < crds; i++) {
        crds(plane).delete("kind" + i + "s." + group);
      }
      new CoreV1Api(plane.client()).deleteNamespace(ns).execute();
    }
  }

  @Test
  void theReleasesOwnNamespaceIsAClearPlanConflictAndCreateNamespaceCreatesIt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String home = tns.name() + "-mon";
    write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: probe, namespace: "
            + tns.name()
            + "}\ndata: {a: b}\n");

    assertThat(run(plane, "release", "cast", "probe", "-n", home, "-f", "cm.yaml", "--yes"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .contains(
            "  ✗ conflict   Namespace//"
                + home
                + "  (the release's namespace '"
                + home
                + "' does not exist, and its record and lease are kept there; create it, or pass"
                + " createNamespace (the CLI's --create-namespace) to have the cast create it)\n");
    // no API status (a 404 of the missing namespace) behind the refusal: 404 as a word, not
    // inside a port, a namespace's random suffix or a temporary folder's name
    assertThat(err).doesNotContainPattern("\\b404\\b");

    try {
      assertThat(
              run(
                  plane,
                  "release",
                  "cast",
                  "probe",
                  "-n",
                  home,
                  "-f",
                  "cm.yaml",
                  "--create-namespace",
                  "--yes"))
          .as(err)
          .isZero();
      assertThat(out).endsWith("Release " + home + "/probe revision 1 deployed.\n");
      assertThat(run(plane, "release", "get", "probe", "-n", home)).isZero();
      assertThat(out).contains("Status:      deployed\n");
    } finally {
      new CoreV1Api(plane.client()).deleteNamespace(home).execute();
    }
  }
}
