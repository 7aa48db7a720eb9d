package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Release files the API server would refuse (HTTP 413, 422 or a 504 after half a minute) are
 * refused by {@code capstan release cast} on a real control plane before its first write: exit code
 * 2, one line, and afterwards no record Secret, no lease and no object in the namespace.
 */
@ControlPlaneTest
class BadInputOnKubernetesIT {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  private int cast(ControlPlane plane, String file) {
    Map<String, @Nullable String> env = Map.of();
    CliRun run =
        CliRun.of(
            Terminal.none(),
            env::get,
            dir,
            "--kubeconfig",
            plane.kubeconfig().toString(),
            "release",
            "cast",
            "-f",
            file,
            "--yes");
    out = run.out();
    err = run.err();
    return run.code();
  }

  private static String head(String namespace) {
    return "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: bad, namespace: "
        + namespace
        + "}\nspec:\n  configMaps:\n";
  }

  private void assertNothingWritten(ControlPlane plane, TestNamespace ns) throws Exception {
    CoreV1Api core = new CoreV1Api(plane.client());
    assertThat(core.listNamespacedSecret(ns.name()).execute().getItems())
        .extracting(s -> Objects.requireNonNull(s.getMetadata()).getName())
        .isEmpty();
    assertThat(core.listNamespacedConfigMap(ns.name()).execute().getItems())
        .extracting(c -> Objects.requireNonNull(c.getMetadata()).getName())
        .containsExactly("kube-root-ca.crt");
    assertThat(
            new CoordinationV1Api(plane.client())
                .listNamespacedLease(ns.name())
                .execute()
                .getItems())
        .isEmpty();
  }

  @Test
  void anOversizedConfigMapAnAliasedValueAndA150kKeyFileWriteNothing(
      ControlPlane plane, TestNamespace ns) throws Exception {
    Files.writeString(
        dir.resolve("big.yaml"),
        head(ns.name()) + "  - name: big\n    data: {blob: " + "x".repeat(2 << 20) + "}\n");
    StringBuilder aliased =
        new StringBuilder(head(ns.name()))
            .append("  - name: aliased\n    data:\n      v00: &v ")
            .append("x".repeat(100 << 10))
            .append('\n');
    for (int i = 1; i < 20; i++) {
      aliased.append(String.format("      v%02d: *v\n", i));
    }
    Files.writeString(dir.resolve("aliased.yaml"), aliased);
    StringBuilder many = new StringBuilder(head(ns.name())).append("  - name: many\n    data:\n");
    for (int i = 0; i < 150_000; i++) {
      many.append(String.format("      k%06d: v\n", i));
    }
    Files.writeString(dir.resolve("many.yaml"), many);

    assertThat(cast(plane, "big.yaml")).as(err).isEqualTo(ExitCode.INVALID);
    // the engine refuses it before its first write, as it checks every release (one check, not
    // the CLI's and then the engine's)
    assertThat(err)
        .isEqualTo(
            CliRun.workingOn(plane.kubeconfig())
                + "capstan: invalid release "
                + ns
                + "/bad (2 problems; nothing was written):\n"
                + "  - ConfigMap "
                + ns
                + "/big: data must total at most 1048576 bytes (1 MiB): 2097152\n"
                + "  - ConfigMap "
                + ns
                + "/big: the object serialized must be at most 1572864 bytes (1.5 MiB, the API"
                + " server's request limit): "
                + (2097254 + ns.name().length() - "shop".length())
                + "\n");
    assertThat(out).as("no plan is shown").isEmpty();
    assertNothingWritten(plane, ns);

    assertThat(cast(plane, "aliased.yaml")).as(err).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith(
            CliRun.workingOn(plane.kubeconfig())
                + "capstan: invalid release "
                + ns
                + "/bad (2 problems; nothing was written):\n")
        .contains(
            "ConfigMap " + ns + "/aliased: data must total at most 1048576 bytes (1 MiB): 2048000");
    assertNothingWritten(plane, ns);

    assertThat(cast(plane, "many.yaml")).as(err).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith(
            CliRun.workingOn(plane.kubeconfig())
                + "capstan: invalid release "
                + ns
                + "/bad (1 problem; nothing was written):\n  - ConfigMap "
                + ns
                + "/many: the object serialized must be at most 1572864 bytes");
    assertNothingWritten(plane, ns);
  }
}
