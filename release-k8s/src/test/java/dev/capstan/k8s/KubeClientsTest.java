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

  private static String base64(String pem) throws Exception {
    return Base64.getEncoder().encodeToString(PemKeysTest.pem(pem));
  }
}
