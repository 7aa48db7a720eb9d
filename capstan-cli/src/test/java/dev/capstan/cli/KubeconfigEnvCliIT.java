package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With only {@code $KUBECONFIG} set (no flag, a home without a kubeconfig), every command works on
 * the cluster it names, as kubectl's and helm's do: a cast says which cluster it writes to, the
 * list shows the release, and {@code -A} lists the releases of every namespace in one read. A list
 * of files is read merged, with files that do not exist passed over.
 */
@ControlPlaneTest
class KubeconfigEnvCliIT {
  @TempDir Path dir;

  private final Map<String, String> env = new HashMap<>();

  private CliRun run(String... args) {
    return CliRun.of(Terminal.none(), env::get, dir, args);
  }

  @Test
  void kubeconfigAloneIsTheClusterOfEveryCommand(ControlPlane plane, TestNamespace ns)
      throws Exception {
    env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
    env.put(
        "KUBECONFIG", dir.resolve("absent").toString() + File.pathSeparator + plane.kubeconfig());
    Files.writeString(
        dir.resolve("settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n");
    String other = ns.name() + "-other";
    new CoreV1Api(plane.client())
        .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(other)))
        .execute();

    CliRun cast = run("release", "cast", "app", "-n", ns.name(), "-f", "settings.yaml", "--yes");
    assertThat(cast.code()).as(cast.err()).isZero();
    assertThat(cast.err()).startsWith(CliRun.workingOn(plane.kubeconfig()));
    assertThat(
            new CoreV1Api(plane.client())
                .readNamespacedConfigMap("settings", ns.name())
                .execute()
                .getData())
        .containsEntry("k", "v");
    CliRun second = run("release", "cast", "db", "-n", other, "-f", "settings.yaml", "--yes");
    assertThat(second.code()).as(second.err()).isZero();

    CliRun list = run("release", "list", "-n", ns.name());
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.err()).isEmpty();
    assertThat(list.out()).startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\napp   1  ");
    CliRun all = run("release", "list", "-A", "-o", "name");
    assertThat(all.code()).as(all.err()).isZero();
    assertThat(all.out().lines().filter(l -> l.startsWith(ns.name())))
        .containsExactly(ns.name() + "/app", other + "/db");
    assertThat(dir.resolve(".capstan")).as("no in-memory state was written").doesNotExist();
  }
}
