package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands without {@code -n} work in the kubeconfig context's namespace, as kubectl's and helm's
 * do, and {@code --kube-context} (helm's name) picks the context as {@code --context} does.
 */
@ControlPlaneTest
class KubeContextCliIT {
  @TempDir Path dir;

  private CliRun run(String... args) {
    Map<String, @Nullable String> env = Map.of();
    return CliRun.of(Terminal.none(), env::get, dir, args);
  }

  /**
   * The control plane's kubeconfig with a second context, {@code team}, on the same cluster and
   * user, whose namespace is {@code namespace}; the current context stays the plane's.
   */
  private Path kubeconfigWithTeamContext(ControlPlane plane, String namespace) throws Exception {
    String text = Files.readString(plane.kubeconfig());
    int contexts = text.indexOf("contexts:\n");
    assertThat(contexts).isPositive();
    String withTeam =
        text.substring(0, contexts + "contexts:\n".length())
            + "- name: team\n"
            + "  context:\n"
            + "    cluster: capstan-test\n"
            + "    user: capstan-admin\n"
            + "    namespace: "
            + namespace
            + "\n"
            + text.substring(contexts + "contexts:\n".length());
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, withTeam);
    return file;
  }

  @Test
  void commandsWithoutANamespaceUseTheContextsNamespace(ControlPlane plane, TestNamespace ns)
      throws Exception {
    Path kubeconfig = kubeconfigWithTeamContext(plane, ns.name());
    Files.writeString(
        dir.resolve("settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n");
    List<String> team =
        new ArrayList<>(List.of("--kubeconfig", kubeconfig.toString(), "--kube-context", "team"));

    CliRun cast = run(concat(team, "release", "cast", "app", "-f", "settings.yaml", "--yes"));

    assertThat(cast.code()).as(cast.err()).isZero();
    assertThat(cast.out())
        .contains("Plan for release " + ns + "/app: revision 1 (first install)")
        .contains("+ create     ConfigMap/" + ns + "/settings")
        .endsWith("Release " + ns + "/app revision 1 deployed.\n");
    assertThat(
            new CoreV1Api(plane.client())
                .readNamespacedConfigMap("settings", ns.name())
                .execute()
                .getData())
        .containsEntry("k", "v");
    CliRun list = run(concat(team, "release", "list"));
    assertThat(list.code()).isZero();
    assertThat(list.out()).contains("\napp  ").startsWith("NAME ");
    CliRun get = run(concat(team, "release", "get", "app", "-o", "json"));
    assertThat(get.code()).isZero();
    assertThat(get.out()).contains("\"namespace\" : \"" + ns + "\"");
    // the same with --context, and the plane's own context (namespace default) lists nothing here
    CliRun viaContext =
        run(
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "team",
            "release",
            "history",
            "app");
    assertThat(viaContext.code()).isZero();
    assertThat(viaContext.out()).contains("deployed");
    CliRun other = run("--kubeconfig", kubeconfig.toString(), "release", "get", "app");
    assertThat(other.code()).isEqualTo(ExitCode.FAILED);
    assertThat(other.err()).contains("default/app");
  }

  private static String[] concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all.toArray(String[]::new);
  }
}
