package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeClientsTest {

  @Test
  void inClusterOutsideAPodSaysWhy() {
    assumeTrue(System.getenv("KUBERNETES_SERVICE_HOST") == null, "this runs in a pod");
    assertThatThrownBy(KubeClients::inCluster)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }

  @Test
  void clientCertificateAndKeyAreReadWithoutBouncyCastle(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "%s"}
        users:
        - name: u
          user: {client-certificate-data: "%s", client-key-data: "%s"}
        contexts:
        - name: ctx
          context: {cluster: c, user: u}
        current-context: ctx
        """
            .formatted(base64("ec.crt"), base64("ec.crt"), base64("ec-sec1.key")),
        US_ASCII);

    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig);

    KeyManager[] managers = clients.apiClient().getKeyManagers();
    assertThat(managers).hasSize(1);
    assertThat(((X509KeyManager) managers[0]).getPrivateKey("client").getEncoded())
        .isEqualTo(PemKeysTest.key("ec-sec1.key").getEncoded());
    // client-java's SSLUtils registers the BouncyCastle provider when it reads a key.
    assertThat(Security.getProvider("BC")).isNull();
    assertThat(clients.watchClient().getKeyManagers()).hasSize(1);
    assertThat(clients.watchClient()).isSameAs(clients.watchClient());
  }

  @Test
  void clientsAsAServiceAccountSendItsImpersonationHeaderWithTheSameTokenAndCounter()
      throws Exception {
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(
                java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0),
            0);
    server.createContext(
        "/",
        x -> {
          seen.add(
              x.getRequestURI().getPath()
                  + " user="
                  + x.getRequestHeaders().getFirst("Impersonate-User")
                  + " group="
                  + x.getRequestHeaders().getFirst("Impersonate-Group")
                  + " auth="
                  + x.getRequestHeaders().getFirst("Authorization"));
          byte[] body =
              "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"shop\"}}"
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          x.getResponseHeaders().set("Content-Type", "application/json");
          x.sendResponseHeaders(200, body.length);
          try (var out = x.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try {
      io.kubernetes.client.openapi.ApiClient api =
          new io.kubernetes.client.openapi.ApiClient()
              .setBasePath("http://127.0.0.1:" + server.getAddress().getPort());
      api.setApiKeyPrefix("Bearer");
      api.setApiKey("controller-token");
      KubeClients clients = KubeClients.fromApiClient(api, "test");

      KubeClients asDeployer = clients.asServiceAccount("shop", "deployer");
      new io.kubernetes.client.openapi.apis.CoreV1Api(asDeployer.apiClient())
          .readNamespace("shop")
          .execute();
      new io.kubernetes.client.openapi.apis.CoreV1Api(clients.apiClient())
          .readNamespace("shop")
          .execute();

      // the account's own groups are the API server's to add: none is sent (no right to
      // impersonate groups is needed), and the controller's own requests stay its own
      assertThat(seen)
          .containsExactly(
              "/api/v1/namespaces/shop user=system:serviceaccount:shop:deployer group=null"
                  + " auth=Bearer controller-token",
              "/api/v1/namespaces/shop user=null group=null auth=Bearer controller-token");
      assertThat(clients.requests().counts())
          .containsExactly(java.util.Map.entry("GET namespaces", 2L));
      assertThat(asDeployer.requests()).isSameAs(clients.requests());
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aServiceAccountMustBeNamedAsKubernetesNamesIt() {
    KubeClients clients =
        KubeClients.fromApiClient(
            new io.kubernetes.client.openapi.ApiClient().setBasePath("http://127.0.0.1:1"), "t");

    assertThatThrownBy(() -> clients.asServiceAccount("shop", "Deployer:admin"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a service account's namespace and name must be DNS-1123 names of at most 253"
                + " characters: 'Deployer:admin'");
  }

  private static String base64(String pem) throws Exception {
    return Base64.getEncoder().encodeToString(PemKeysTest.pem(pem));
  }
}
