package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/controller.md's complete example and tenant example, as the page gives them: their YAML
 * files are taken from the page and their kubectl command lines run as written, in a folder that
 * holds those files, on the control plane, with a controller started as {@code capstan controller
 * run --kubeconfig} starts one (no tenancy flag). Both must become Ready.
 */
@ControlPlaneTest
class ControllerDocsIT {
  private static final Path PAGE = Path.of("..", "docs", "controller.md");
  private static final Pattern BLOCK = Pattern.compile("(?ms)^```(\\w*)\\n(.*?)^```\\n");

  /** The code blocks of the page, in order: their language and text. */
  private static List<String[]> blocks() throws IOException {
    String page = Files.readString(PAGE);
    List<String[]> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(page);
    while (m.find()) {
      out.add(new String[] {m.group(1), m.group(2)});
    }
    return out;
  }

  /** The YAML block whose first line is {@code # NAME}. */
  private static String file(String name) throws IOException {
    return blocks().stream()
        .filter(b -> b[0].equals("yaml") && b[1].startsWith("# " + name + "\n"))
        .map(b -> b[1])
        .findFirst()
        .orElseThrow(() -> new AssertionError(PAGE + " has no yaml block '# " + name + "'"));
  }

  /** The kubectl command lines of the sh block that has {@code marker}, in order. */
  private static List<String> kubectlLines(String marker) throws IOException {
    String block =
        blocks().stream()
            .filter(b -> b[0].equals("sh") && b[1].contains(marker))
            .map(b -> b[1])
            .findFirst()
            .orElseThrow(() -> new AssertionError(PAGE + " has no sh block with " + marker));
    return block.lines().filter(l -> l.startsWith("kubectl ")).toList();
  }

  /** Runs a kubectl command line of the page in {@code dir}; returns its output. */
  private static String run(ControlPlane plane, Path dir, String line) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ItReleases.kubectl(plane).toString());
    command.add("--kubeconfig=" + plane.kubeconfig().toAbsolutePath());
    command.addAll(
        Pattern.compile(" +").splitAsStream(line.substring("kubectl ".length())).toList());
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(6, TimeUnit.MINUTES)).as(line).isTrue();
    assertThat(p.exitValue()).as(line + "\n" + out).isZero();
    return out;
  }

  @Test
  void theCompleteExampleAndTheTenantExampleApplyAsWrittenAndBecomeReady(ControlPlane plane)
      throws Exception {
    ItReleases.installCrd(plane);
    Path dir = Files.createTempDirectory(Path.of("target"), "docs-");
    Files.writeString(dir.resolve("shop.yaml"), file("shop.yaml"));
    Files.writeString(dir.resolve("team-a.yaml"), file("team-a.yaml"));
    Files.writeString(dir.resolve("api.yaml"), file("api.yaml"));
    Path deploy = Files.createDirectories(dir.resolve("capstan-controller/deploy"));
    Files.copy(Path.of("deploy", "tenant-role.yaml"), deploy.resolve("tenant-role.yaml"));
    boolean tenantRoleExisted = clusterRoleExists(plane, "capstan-tenant");
    List<String> shop = kubectlLines("kubectl apply -f shop.yaml");
    List<String> tenant = kubectlLines("team-a.yaml -f api.yaml");
    assertThat(shop)
        .containsExactly(
            "kubectl apply -f shop.yaml",
            "kubectl wait --for=condition=Ready release.capstan.dev/web -n shop --timeout=5m",
            "kubectl get releases -n shop");
    assertThat(tenant).hasSize(2);

    try (ReleaseResourceController controller =
        ReleaseResourceController.builder(KubeClients.fromKubeconfig(plane.kubeconfig()))
            .identity("it-docs")
            .build()) {
      controller.start();
      try {
        run(plane, dir, shop.get(0));
        assertThat(run(plane, dir, shop.get(1)).strip())
            .isEqualTo("release.capstan.dev/web condition met");
        List<String> table = run(plane, dir, shop.get(2)).lines().toList();
        assertThat(table.get(0)).matches("NAME +READY +REVISION +SUSPENDED +STATUS +AGE");
        assertThat(table.subList(1, table.size()))
            .satisfiesExactly(
                db -> assertThat(db).matches("db +True +1 +revision 1: 2 created +\\S+"),
                web -> assertThat(web).matches("web +True +1 +revision 1: 4 created +\\S+"));

        for (String line : tenant) {
          run(plane, dir, line);
        }
        ReleaseResource api = ItReleases.read(plane, "team-a", "api");
        assertThat(api).isNotNull();
        assertThat(ItReleases.message(api)).isEqualTo("revision 1: 2 created");
      } finally {
        for (String[] release :
            new String[][] {{"shop", "web"}, {"shop", "db"}, {"team-a", "api"}}) {
          try {
            ItReleases.delete(plane, release[0], release[1]);
          } catch (ApiException e) {
            // not created
          }
        }
        for (String[] release :
            new String[][] {{"shop", "web"}, {"shop", "db"}, {"team-a", "api"}}) {
          Await.until(
              "Release " + release[0] + "/" + release[1] + " uninstalled",
              ItReleases.SOON,
              () -> ItReleases.read(plane, release[0], release[1]) == null ? Boolean.TRUE : null);
        }
      }
    } finally {
      CoreV1Api core = new CoreV1Api(plane.client());
      for (String ns : List.of("shop", "team-a")) {
        try {
          core.deleteNamespace(ns).execute();
        } catch (ApiException e) {
          // not created
        }
      }
      if (!tenantRoleExisted) {
        new RbacAuthorizationV1Api(plane.client()).deleteClusterRole("capstan-tenant").execute();
      }
    }
  }

  private static boolean clusterRoleExists(ControlPlane plane, String name) throws ApiException {
    try {
      new RbacAuthorizationV1Api(plane.client()).readClusterRole(name).execute();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }
}
