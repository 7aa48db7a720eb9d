package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.KubeConfig;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The controller as the shipped manifests make it, for the ITs that run it so ({@code TenancyIT},
 * {@code ChartReleaseIT}): {@code deploy/} cast with Capstan, a token of its service account in a
 * kubeconfig of its own; the tenants' accounts and roles; the requests it sent.
 */
final class ShippedController {
  private ShippedController() {}

  /**
   * Casts {@code deploy/} (a no-op when it is cast) and returns clients with a token of the
   * controller's service account, after checking the Deployment's tenancy flags.
   */
  static KubeClients castAndLogIn(ControlPlane plane) throws Exception {
    KubeClients admin = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController engine =
        ReleaseController.builder(new KubernetesOrchestrator(admin), new KubernetesStore(admin))
            .holder("it-installer")
            .build();
    ReleaseFile deploy =
        ReleaseFiles.manifests(
            Path.of("deploy"), "deploy", new Overrides("capstan-system", "capstan-controller"));
    engine.cast(
        deploy.toSpec().withOptions(deploy.options().withCreateNamespace(true)), deploy.payloads());

    // the Deployment's own tenancy flags are the ones this controller runs with
    String deployment = Files.readString(Path.of("deploy", "deployment.yaml"));
    assertThat(deployment).contains("- --require-service-account", "- --no-cross-namespace-refs");

    Path kubeconfig = tokenKubeconfig(plane, "capstan-system", "capstan-controller");
    KubeClients asController = KubeClients.fromKubeconfig(kubeconfig);
    // what `capstan controller run` checks first: the CRD is readable under the shipped role
    assertThat(ReleaseResource.installed(asController.apiClient())).isTrue();
    return asController;
  }

  /** A kubeconfig of the API server with a token of a service account (a TokenRequest, 1 h). */
  static Path tokenKubeconfig(ControlPlane plane, String namespace, String account)
      throws Exception {
    AuthenticationV1TokenRequest request =
        new CoreV1Api(plane.client())
            .createNamespacedServiceAccountToken(
                account,
                namespace,
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute();
    String token = java.util.Objects.requireNonNull(request.getStatus()).getToken();
    KubeConfig admin;
    try (Reader r = Files.newBufferedReader(plane.kubeconfig())) {
      admin = KubeConfig.loadKubeConfig(r);
    }
    String ca = admin.getCertificateAuthorityData();
    Path file = Files.createTempFile(Path.of("target"), "token-", ".kubeconfig");
    Files.writeString(
        file,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: it",
            "  cluster:",
            "    server: " + admin.getServer(),
            "    certificate-authority-data: " + ca,
            "users:",
            "- name: " + account,
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: it",
            "  context: {cluster: it, user: " + account + "}",
            "current-context: it",
            ""));
    return file;
  }

  /** A service account of the tenant, bound to capstan-tenant and to {@code clusterRoles}. */
  static String tenant(ControlPlane plane, String ns, String name, String... clusterRoles)
      throws ApiException {
    new CoreV1Api(plane.client())
        .createNamespacedServiceAccount(
            ns, new V1ServiceAccount().metadata(new V1ObjectMeta().name(name)))
        .execute();
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(plane.client());
    List<String> roles = new java.util.ArrayList<>(List.of("capstan-tenant"));
    roles.addAll(List.of(clusterRoles));
    for (String role : roles) {
      rbac.createNamespacedRoleBinding(
              ns,
              new V1RoleBinding()
                  .metadata(new V1ObjectMeta().name(name + "-" + role))
                  .roleRef(
                      new V1RoleRef()
                          .apiGroup("rbac.authorization.k8s.io")
                          .kind("ClusterRole")
                          .name(role))
                  .subjects(
                      List.of(new RbacV1Subject().kind("ServiceAccount").name(name).namespace(ns))))
          .execute();
    }
    return "system:serviceaccount:" + ns + ":" + name;
  }

  /** The requests {@code clients} counted since the last reset, background ones too. */
  static Map<String, Long> requests(KubeClients clients) {
    Map<String, Long> all = new TreeMap<>(clients.requests().counts());
    clients.requests().backgroundCounts().forEach((k, v) -> all.merge(k, v, Long::sum));
    return all;
  }

  /**
   * The writes among {@code requests} that are not to the Release itself, its Events or reviews.
   */
  static Map<String, Long> objectWrites(Map<String, Long> requests) {
    Set<String> bookkeeping =
        Set.of(
            "PATCH releases",
            "PATCH releases/status",
            "CREATE events",
            "PATCH events",
            "CREATE selfsubjectaccessreviews");
    Map<String, Long> out = new TreeMap<>();
    requests.forEach(
        (k, v) -> {
          if (ItReleases.writes(Map.of(k, v)) > 0 && !bookkeeping.contains(k)) {
            out.put(k, v);
          }
        });
    return out;
  }

  /**
   * The object writes {@code clients} sent since the last reset ({@link #objectWrites}) for {@code
   * namespace} (and namespaces named after it) or for no namespace: those for other tests'
   * namespaces ({@code it-...}), whose teardown Releases there may react to, are left out.
   */
  static Map<String, Long> objectWritesIn(KubeClients clients, String namespace) {
    Map<String, Long> counts = new TreeMap<>();
    List<String> lines = new java.util.ArrayList<>(clients.requests().log());
    lines.addAll(clients.requests().backgroundLog());
    for (String line : lines) {
      String[] parts = line.split(" ", 3);
      String object = parts.length > 2 ? parts[2] : "";
      if (object.startsWith("it-") && !object.startsWith(namespace)) {
        continue;
      }
      counts.merge(parts[0] + " " + parts[1], 1L, Long::sum);
    }
    return objectWrites(counts);
  }
}
