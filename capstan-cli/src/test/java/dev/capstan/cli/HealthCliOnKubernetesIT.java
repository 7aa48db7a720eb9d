package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code capstan release cast} says while it waits for health, on a real control plane: a
 * LoadBalancer Service that never gets an address (no load balancer controller runs here) is
 * reported pending with why, the time-out names it with the duration as people write it, and {@code
 * --no-wait-for-load-balancer} casts it.
 */
@ControlPlaneTest
class HealthCliOnKubernetesIT {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  private int run(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of();
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void aLoadBalancerWithoutAnAddressIsReportedPendingAndTimesOutUnlessNotWaitedFor(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Files.writeString(
        dir.resolve("edge.yaml"),
        """
        apiVersion: v1
        kind: Service
        metadata: {name: edge}
        spec: {type: LoadBalancer, selector: {app: edge}, ports: [{name: http, port: 80}]}
        """);

    assertThat(
            run(plane, "release", "cast", "edge", "-n", ns, "-f", "edge.yaml", "--timeout", "7s"))
        .as(err)
        .isEqualTo(ExitCode.FAILED);
    String pending =
        "Service "
            + ns
            + "/edge: type LoadBalancer has no address yet (status.loadBalancer.ingress)";
    assertThat(err)
        .contains("capstan: " + ns + "/edge: waiting up to 7s for 1 object(s) to be healthy\n")
        .containsPattern(
            "capstan: "
                + ns
                + "/edge: still waiting after [0-9.]+s for 1 of 1 object\\(s\\): "
                + java.util.regex.Pattern.quote(pending)
                + "\n")
        .contains("verify failed: not ready after 7s: " + pending)
        .doesNotContainPattern("PT[0-9]");

    assertThat(
            run(
                plane,
                "release",
                "cast",
                "edge",
                "-n",
                ns,
                "-f",
                "edge.yaml",
                "--no-wait-for-load-balancer"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release " + ns + "/edge revision 2 deployed.\n");
  }
}
