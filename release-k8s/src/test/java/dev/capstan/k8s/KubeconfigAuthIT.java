package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a kubeconfig signs in that Capstan's adapters use, on the real control plane, with no
 * BouncyCastle on the class path: client certificates with a PKCS#8 RSA key (the plane's own
 * kubeconfig), a PKCS#1 RSA key and a SEC1 EC key, a bearer token, and an exec credential plugin
 * returning a token or a client certificate. Each is checked with a request the API server
 * authorises only for that identity.
 */
@ControlPlaneTest
class KubeconfigAuthIT {
  @TempDir Path dir;

  @Test
  void everyKubeconfigCredentialSignsInWithoutBouncyCastle(ControlPlane plane, TestNamespace ns)
      throws Exception {
    Path pki =
        java.util.Objects.requireNonNull(plane.kubeconfig().toAbsolutePath().getParent())
            .resolve("pki");
    assertThat(pki.resolve("ca.key")).as("the plane's CA, beside its kubeconfig").exists();
    String kubeconfig = Files.readString(plane.kubeconfig());
    String caData = field(kubeconfig, "certificate-authority-data");
    String server = field(kubeconfig, "server");
    String adminCert = field(kubeconfig, "client-certificate-data");
    String adminKey = field(kubeconfig, "client-key-data");
    new CoreV1Api(plane.client())
        .createNamespacedConfigMap(
            ns.name(), new V1ConfigMap().metadata(new V1ObjectMeta().name("probe")))
        .execute();

    // the plane's kubeconfig: a PKCS#8 RSA key, as openssl writes one
    assertThat(pem(adminKey)).startsWith("-----BEGIN PRIVATE KEY-----");
    signsIn(kubeconfigFile("pkcs8", server, caData, certUser(adminCert, adminKey)), ns);

    // a PKCS#1 RSA key of the same certificate
    Files.writeString(dir.resolve("admin.key"), pem(adminKey));
    openssl("pkey", "-in", "admin.key", "-traditional", "-out", "admin-rsa.key");
    String rsaKey = Files.readString(dir.resolve("admin-rsa.key"));
    assertThat(rsaKey).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    signsIn(kubeconfigFile("pkcs1", server, caData, certUser(adminCert, base64(rsaKey))), ns);

    // a SEC1 EC key (with its named curve), on a certificate the plane's CA signs
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.key");
    openssl(
        "req",
        "-new",
        "-key",
        "ec.key",
        "-subj",
        "/O=system:masters/CN=capstan-ec",
        "-out",
        "ec.csr");
    openssl(
        "x509",
        "-req",
        "-in",
        "ec.csr",
        "-CA",
        pki.resolve("ca.crt").toString(),
        "-CAkey",
        pki.resolve("ca.key").toString(),
        "-CAcreateserial",
        "-CAserial",
        "ca.srl",
        "-days",
        "1",
        "-out",
        "ec.crt");
    String ecKey = Files.readString(dir.resolve("ec.key"));
    assertThat(ecKey).startsWith("-----BEGIN EC PRIVATE KEY-----");
    String ecCert = Files.readString(dir.resolve("ec.crt"));
    signsIn(kubeconfigFile("sec1", server, caData, certUser(base64(ecCert), base64(ecKey))), ns);

    // a bearer token of a service account allowed to read config maps in the namespace only
    String token = serviceAccountToken(plane, ns);
    signsInAsServiceAccount(kubeconfigFile("token", server, caData, "token: " + token), ns);

    // an exec credential plugin returning that token, and one returning the EC certificate
    Path tokenPlugin = plugin("token-plugin.sh", "{\"token\":\"" + token + "\"}");
    signsInAsServiceAccount(
        kubeconfigFile("exec-token", server, caData, execUser(tokenPlugin)), ns);
    Path certPlugin =
        plugin(
            "cert-plugin.sh",
            "{\"clientCertificateData\":\""
                + json(ecCert)
                + "\",\"clientKeyData\":\""
                + json(ecKey)
                + "\"}");
    signsIn(kubeconfigFile("exec-cert", server, caData, execUser(certPlugin)), ns);

    assertThat(Security.getProvider("BC")).isNull();
    try {
      Class.forName("org.bouncycastle.jce.provider.BouncyCastleProvider");
      throw new AssertionError("BouncyCastle is on the test class path");
    } catch (ClassNotFoundException expected) {
      // as the build leaves it out
    }
  }

  /** A system:masters identity: reads the cluster's identity and the namespace's config map. */
  private static void signsIn(Path kubeconfig, TestNamespace ns) throws Exception {
    KubeClients kube = KubeClients.fromKubeconfig(kubeconfig);
    assertThat(kube.clusterId()).as("%s", kubeconfig.getFileName()).isNotEmpty();
    assertThat(
            new CoreV1Api(kube.apiClient())
                .readNamespacedConfigMap("probe", ns.name())
                .execute()
                .getMetadata()
                .getName())
        .isEqualTo("probe");
    kube.closeConnections();
  }

  /** The service account: may read the namespace's config maps, nothing cluster-wide. */
  private static void signsInAsServiceAccount(Path kubeconfig, TestNamespace ns) throws Exception {
    KubeClients kube = KubeClients.fromKubeconfig(kubeconfig);
    assertThat(
            new CoreV1Api(kube.apiClient()).listNamespacedConfigMap(ns.name()).execute().getItems())
        .extracting(c -> c.getMetadata().getName())
        .contains("probe");
    assertThat(kube.clusterId()).as("cannot read kube-system: 403").isEmpty();
    kube.closeConnections();
  }

  private static String serviceAccountToken(ControlPlane plane, TestNamespace ns) throws Exception {
    CoreV1Api core = new CoreV1Api(plane.client());
    core.createNamespacedServiceAccount(
            ns.name(), new V1ServiceAccount().metadata(new V1ObjectMeta().name("reader")))
        .execute();
    new RbacAuthorizationV1Api(plane.client())
        .createNamespacedRoleBinding(
            ns.name(),
            new V1RoleBinding()
                .metadata(new V1ObjectMeta().name("reader-view"))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name("view"))
                .subjects(
                    List.of(
                        new RbacV1Subject()
                            .kind("ServiceAccount")
                            .name("reader")
                            .namespace(ns.name()))))
        .execute();
    return core.createNamespacedServiceAccountToken(
            "reader",
            ns.name(),
            new AuthenticationV1TokenRequest()
                .spec(new V1TokenRequestSpec().expirationSeconds(600L)))
        .execute()
        .getStatus()
        .getToken();
  }

  private Path plugin(String name, String status) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(
        file,
        "#!/bin/sh\ncat <<'EOF'\n{\"apiVersion\":\"client.authentication.k8s.io/v1\","
            + "\"kind\":\"ExecCredential\",\"status\":"
            + status
            + "}\nEOF\n");
    assertThat(file.toFile().setExecutable(true)).isTrue();
    return file;
  }

  private static String certUser(String certData, String keyData) {
    return "client-certificate-data: " + certData + "\n    client-key-data: " + keyData;
  }

  private static String execUser(Path plugin) {
    return "exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "
        + plugin
        + "\n      interactiveMode: Never";
  }

  private Path kubeconfigFile(String name, String server, String caData, String user)
      throws Exception {
    Path file = dir.resolve("kubeconfig-" + name);
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: plane
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: u
          user:
            %s
        contexts:
        - name: ctx
          context: {cluster: plane, user: u}
        current-context: ctx
        """
            .formatted(server, caData, user),
        UTF_8);
    return file;
  }

  private static String field(String kubeconfig, String name) {
    return kubeconfig
        .lines()
        .map(String::strip)
        .filter(l -> l.startsWith(name + ":"))
        .map(l -> l.substring(name.length() + 1).strip())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in the plane's kubeconfig"));
  }

  private static String pem(String base64) {
    return new String(java.util.Base64.getDecoder().decode(base64), UTF_8);
  }

  private static String base64(String text) {
    return java.util.Base64.getEncoder().encodeToString(text.getBytes(UTF_8));
  }

  private static String json(String text) {
    return text.replace("\n", "\\n");
  }

  private void openssl(String... args) throws Exception {
    Openssl.run(dir, args);
  }
}
