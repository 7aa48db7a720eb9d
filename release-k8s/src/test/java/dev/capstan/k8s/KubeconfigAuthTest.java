package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.util.Base64;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubeconfig paths of {@link KubeClients} that read credentials, without BouncyCastle (which
 * the build leaves out): the context's namespace, a client certificate an exec plugin returns, and
 * a key the JDK cannot read, refused with advice that works. {@code KubeconfigAuthIT} signs in with
 * each kind of credential on the real control plane.
 */
class KubeconfigAuthTest {
  @TempDir Path dir;

  @Test
  void bouncyCastleIsNotOnTheClassPath() {
    assertThat(classPresent("org.bouncycastle.jce.provider.BouncyCastleProvider")).isFalse();
    assertThat(classPresent("org.bouncycastle.openssl.PEMParser")).isFalse();
    assertThat(classPresent("com.google.protobuf.Message")).isFalse();
  }

  @Test
  void theContextsNamespaceIsTheNamespaceOfCommandsThatNameNone() throws Exception {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=u",
        "-days",
        "1",
        "-keyout",
        "k.pem",
        "-out",
        "c.pem");
    Path kubeconfig =
        kubeconfig(
            "client-certificate: c.pem\n    client-key: k.pem",
            """
            - name: team
              context: {cluster: c, user: u, namespace: team-a}
            - name: plain
              context: {cluster: c, user: u}
            """,
            "team");

    assertThat(KubeClients.fromKubeconfig(kubeconfig).namespace()).contains("team-a");
    assertThat(KubeClients.fromKubeconfig(kubeconfig, "plain").namespace()).isEmpty();
    assertThat(KubeClients.fromKubeconfig(kubeconfig, "team").context()).isEqualTo("team");
  }

  @Test
  void aClientCertificateFromAnExecPluginIsReadByTheJdk() throws Exception {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=u",
        "-days",
        "1",
        "-keyout",
        "k.pem",
        "-out",
        "c.pem");
    openssl("pkey", "-in", "k.pem", "-traditional", "-out", "k1.pem"); // PKCS#1
    Path plugin = dir.resolve("credential-plugin.sh");
    Files.writeString(
        plugin,
        """
        #!/bin/sh
        cd "$(dirname "$0")"
        printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
        printf '"status":{"clientCertificateData":"%s","clientKeyData":"%s"}}' \\
          "$(awk '{printf "%s\\\\n", $0}' c.pem)" "$(awk '{printf "%s\\\\n", $0}' k1.pem)"
        """);
    assertThat(plugin.toFile().setExecutable(true)).isTrue();
    Path kubeconfig =
        kubeconfig(
            """
            exec:
                  apiVersion: client.authentication.k8s.io/v1
                  command: %s
                  interactiveMode: Never"""
                .formatted(plugin),
            "- name: ctx\n  context: {cluster: c, user: u}\n",
            "ctx");

    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig);

    X509KeyManager keys = (X509KeyManager) clients.apiClient().getKeyManagers()[0];
    assertThat(keys.getCertificateChain("client")[0].getSubjectX500Principal().getName())
        .isEqualTo("CN=u");
    assertThat(keys.getPrivateKey("client").getAlgorithm()).isEqualTo("RSA");
    assertThat(Security.getProvider("BC")).isNull();
  }

  @Test
  void aKeyTheJdkCannotReadIsRefusedWithAdviceThatWorks() throws Exception {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=u",
        "-days",
        "1",
        "-keyout",
        "k.pem",
        "-out",
        "c.pem");
    openssl(
        "pkcs8",
        "-topk8",
        "-v2",
        "aes-256-cbc",
        "-in",
        "k.pem",
        "-passout",
        "pass:pw",
        "-out",
        "KEY");
    Path kubeconfig =
        kubeconfig(
            "client-certificate: c.pem\n    client-key: KEY",
            "- name: ctx\n  context: {cluster: c, user: u}\n",
            "ctx");

    IllegalArgumentException e =
        catchThrowableOfType(
            IllegalArgumentException.class, () -> KubeClients.fromKubeconfig(kubeconfig));

    assertThat(e)
        .hasMessage(
            "kubeconfig "
                + kubeconfig
                + ", context 'ctx': the client key is not an unencrypted PEM key of a kind the JDK"
                + " reads (PRIVATE KEY, RSA PRIVATE KEY, or EC PRIVATE KEY naming its curve);"
                + " convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8' and name"
                + " that file in client-key");
    // the advice, followed (openssl asks for the passphrase; here it is given on the command line)
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", "KEY", "-out", "KEY.pk8", "-passin", "pass:pw");
    Files.writeString(
        kubeconfig, Files.readString(kubeconfig).replace("client-key: KEY", "client-key: KEY.pk8"));
    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig);
    assertThat(clients.apiClient().getKeyManagers()).hasSize(1);
  }

  private Path kubeconfig(String user, String contexts, String current) throws Exception {
    Files.writeString(dir.resolve("ca.pem"), Files.readString(dir.resolve("c.pem")));
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "%s"}
        users:
        - name: u
          user:
            %s
        contexts:
        %scurrent-context: %s
        """
            .formatted(
                Base64.getEncoder().encodeToString(Files.readAllBytes(dir.resolve("ca.pem"))),
                user,
                contexts,
                current),
        UTF_8);
    return file;
  }

  private void openssl(String... args) throws Exception {
    Openssl.run(dir, args);
  }

  private static boolean classPresent(String name) {
    try {
      Class.forName(name, false, KubeconfigAuthTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
