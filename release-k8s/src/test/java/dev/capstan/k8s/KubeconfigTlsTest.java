package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.capstan.common.ClusterException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS of clients built from a kubeconfig, set up once from its certificate authority ({@code
 * OneTlsSetupApiClient}), verifies the API server as client-java does: an HTTPS server on loopback
 * whose certificate a CA signed, for 127.0.0.1.
 */
class KubeconfigTlsTest {
  @TempDir Path dir;
  private HttpsServer server;

  @BeforeEach
  void serverSignedByItsCa() throws Exception {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=ca",
        "-days",
        "1",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=other",
        "-days",
        "1",
        "-keyout",
        "other.key",
        "-out",
        "other.pem");
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=api",
        "-keyout",
        "api.key",
        "-out",
        "api.csr");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n", UTF_8);
    openssl(
        "x509",
        "-req",
        "-in",
        "api.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "san.ext",
        "-out",
        "api.pem");
    openssl(
        "pkcs12",
        "-export",
        "-inkey",
        "api.key",
        "-in",
        "api.pem",
        "-passout",
        "pass:p",
        "-out",
        "api.p12");
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve("api.p12"))) {
      keys.load(in, "p".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, "p".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext(
        "/version",
        exchange -> {
          byte[] body =
              ("{\"major\":\"1\",\"minor\":\"37\",\"gitVersion\":\"v1.37.2\","
                      + "\"gitCommit\":\"c\",\"gitTreeState\":\"clean\",\"buildDate\":\"d\","
                      + "\"goVersion\":\"go\",\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}")
                  .getBytes(UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theKubeconfigsCertificateAuthorityIsTheOnlyOneTrusted() throws Exception {
    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig("ca.pem", ""));

    assertThat(clients.serverVersion()).isEqualTo("v1.37.2");
    assertThat(clients.watchClient().getHttpClient().x509TrustManager().getAcceptedIssuers())
        .containsExactly(certificate("ca.pem"));
    assertThat(clients.apiClient().getHttpClient().x509TrustManager().getAcceptedIssuers())
        .containsExactly(certificate("ca.pem"));
  }

  @Test
  void aServerThatAnotherAuthoritySignedIsRefused() throws Exception {
    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig("other.pem", ""));

    assertThatThrownBy(clients::serverVersion)
        .isInstanceOf(ClusterException.class)
        .hasMessageContaining("PKIX path building failed");
  }

  @Test
  void theServerNameIsVerifiedAsTheKubeconfigNamesIt() throws Exception {
    KubeClients named =
        KubeClients.fromKubeconfig(kubeconfig("ca.pem", "tls-server-name: elsewhere"));

    // the certificate is good for 127.0.0.1, not for the name the kubeconfig says to expect
    assertThatThrownBy(named::serverVersion)
        .isInstanceOf(ClusterException.class)
        .hasMessageContaining("not verified");
  }

  @Test
  void skippingVerificationIsWhatTheKubeconfigAsksAndNothingElse() throws Exception {
    KubeClients insecure =
        KubeClients.fromKubeconfig(kubeconfig(null, "insecure-skip-tls-verify: true"));

    assertThat(insecure.serverVersion()).isEqualTo("v1.37.2");
  }

  private Path kubeconfig(@Nullable String ca, String clusterField) throws Exception {
    Path file = dir.resolve("kubeconfig-" + ca + clusterField.hashCode());
    String caLine =
        ca == null
            ? ""
            : "certificate-authority-data: "
                + Base64.getEncoder().encodeToString(Files.readAllBytes(dir.resolve(ca)));
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster:
            server: https://127.0.0.1:%d
            %s
            %s
        users:
        - name: u
          user: {token: t}
        contexts:
        - name: ctx
          context: {cluster: c, user: u}
        current-context: ctx
        """
            .formatted(server.getAddress().getPort(), caLine, clusterField),
        UTF_8);
    return file;
  }

  private X509Certificate certificate(String name) throws Exception {
    try (InputStream in = Files.newInputStream(dir.resolve(name))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private void openssl(String... args) throws Exception {
    Openssl.run(dir, args);
  }
}
