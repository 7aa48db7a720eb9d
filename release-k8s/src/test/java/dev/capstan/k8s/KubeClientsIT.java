package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.ClusterException;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.Workload;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class KubeClientsIT {

  @Test
  void aKubeconfigContextGivesClientsAndTheClusterIdentity(ControlPlane plane) throws Exception {
    String context = currentContext(plane.kubeconfig());
    KubeClients kube = KubeClients.fromKubeconfig(plane.kubeconfig(), context);

    ClusterInfo info = new KubernetesPlatformCluster(kube).info();

    String kubeSystemUid =
        new CoreV1Api(plane.client()).readNamespace("kube-system").execute().getMetadata().getUid();
    assertThat(info)
        .isEqualTo(new ClusterInfo(context, plane.client().getBasePath(), kubeSystemUid));
    assertThat(info.server()).startsWith("https://127.0.0.1:");
    assertThat(kube.clusterId()).isEqualTo(kubeSystemUid); // the id is read once
    assertThat(kube.requests().log()).containsExactly("GET namespaces kube-system");
    assertThat(new KubernetesPlatformCluster(kube).info()).isEqualTo(info);
  }

  @Test
  void anUnknownContextIsRefusedNamingTheKnownOnes(ControlPlane plane) throws Exception {
    String context = currentContext(plane.kubeconfig());

    IllegalArgumentException e =
        catchThrowableOfType(
            IllegalArgumentException.class,
            () -> KubeClients.fromKubeconfig(plane.kubeconfig(), "prod"));

    assertThat(e)
        .hasMessage(
            "kubeconfig "
                + plane.kubeconfig()
                + " has no context 'prod'; its contexts are ["
                + context
                + "]");
    IllegalArgumentException missing =
        catchThrowableOfType(
            IllegalArgumentException.class,
            () -> KubeClients.fromKubeconfig(Path.of("/nonexistent/kubeconfig")));
    assertThat(missing).hasMessageStartingWith("cannot read kubeconfig /nonexistent/kubeconfig");
  }

  @Test
  void aCallersClientIsCountedToo(ControlPlane plane) throws ApiException {
    ApiClient mine = plane.newClient(Duration.ofSeconds(30));
    KubeClients kube = KubeClients.fromApiClient(mine, "mine");

    new CoreV1Api(mine).listNamespace().execute();
    new KubernetesOrchestrator(kube).observe(Kind.NAMESPACE, "", Set.of("default"));

    // the caller's LIST and the orchestrator's GET of the one namespace (a built-in kind: no
    // discovery round)
    assertThat(kube.requests().counts())
        .containsExactly(Map.entry("GET namespaces", 1L), Map.entry("LIST namespaces", 1L));
    assertThat(kube.context()).isEqualTo("mine");
  }

  @Test
  void failuresNameTheObjectAndStatusButNeverASecretsValue(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    byte[] huge = new byte[1_100_000];
    java.util.Arrays.fill(huge, (byte) 'x');
    String marker = "do-not-print-" + "s3cret".repeat(3);
    System.arraycopy(
        marker.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, huge, 0, marker.length());
    SecretSpec secret =
        new SecretSpec(
            ns,
            "too-big",
            "Opaque",
            new TreeMap<>(Map.of("blob", SecretValue.ofBytes(huge))),
            new TreeMap<>(),
            new TreeMap<>());

    ClusterException e =
        catchThrowableOfType(
            ClusterException.class, () -> cluster.orchestrator.apply(secret.render().get(0), null));

    assertThat(e.operation()).isEqualTo("apply");
    assertThat(e.kind()).isEqualTo("Secret");
    assertThat(e.namespace()).isEqualTo(ns);
    assertThat(e.name()).isEqualTo("too-big");
    assertThat(e.status()).isEqualTo(422);
    assertThat(e).hasMessageStartingWith("apply Secret " + ns + "/too-big failed (HTTP 422): ");
    assertThat(String.valueOf(e.getMessage()) + e.getCause())
        .doesNotContain("s3cret")
        .doesNotContain("xxxx");

    dev.capstan.common.ClusterException missing =
        catchThrowableOfType(
            dev.capstan.common.ClusterException.class,
            () ->
                new KubernetesPlatformCluster(cluster.kube)
                    .patch(
                        new DeploymentPatch(
                            Workload.of(ns, "missing"), List.of(), Map.of("a", "b"), Map.of())));
    assertThat(missing)
        .hasMessage(
            "patch Deployment "
                + ns
                + "/missing failed (HTTP 404): deployments.apps \"missing\" not found");
  }

  @Test
  void anInterruptedWaitRestoresTheInterruptFlag(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ServiceSpec web = ServiceSpec.builder(ns, "web").image("registry.example/web:1").build();
    Manifest deployment = web.render().get(0);
    cluster.orchestrator.apply(
        deployment,
        OwnershipStamp.of(new ReleaseIdentity(ns, "app", "id"), 1, ContentHash.of(deployment)));
    // Paused with a new image: the rollout neither progresses nor fails.
    cluster.mergePatchDeployment(
        ns,
        "web",
        "{\"spec\":{\"paused\":true,\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"registry.example/web:2\"}]}}}}");
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean flag = new AtomicBoolean();
    Thread waiter =
        new Thread(
            () -> {
              try {
                cluster.orchestrator.awaitReady(
                    List.of(ResourceRef.of(Kind.DEPLOYMENT, ns, "web")), Duration.ofMinutes(5));
              } catch (RuntimeException e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
              }
            });
    waiter.start();
    // Let it reach the watch, then interrupt it.
    CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS))
        .get();
    waiter.interrupt();
    waiter.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(waiter.isAlive()).isFalse();
    assertThat(thrown.get())
        .isInstanceOf(ClusterException.class)
        .hasMessageMatching("(list|watch) Deployment in namespace " + ns + " failed: interrupted");
    assertThat(flag.get()).isTrue();
  }

  private static String currentContext(Path kubeconfig) throws java.io.IOException {
    return Files.readAllLines(kubeconfig).stream()
        .filter(l -> l.startsWith("current-context:"))
        .map(l -> l.substring("current-context:".length()).trim())
        .findFirst()
        .orElseThrow();
  }
}
