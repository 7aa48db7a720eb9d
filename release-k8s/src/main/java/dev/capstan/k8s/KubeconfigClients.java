package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.common.Escapes;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.credentials.ClientCertificateAuthentication;
import io.kubernetes.client.util.credentials.KubeconfigAuthentication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.KeyManager;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ApiClient} of a kubeconfig context, its client certificate and unencrypted key (the
 * kubeconfig user's, or its exec credential plugin's) read by the JDK ({@link PemKeys}):
 * client-java would load BouncyCastle for them, most of a second of a CLI's start-up. TLS is set up
 * once, from the kubeconfig's certificate authority ({@link OneTlsSetupApiClient}).
 */
final class KubeconfigClients {
  private KubeconfigClients() {}

  /** A client for {@code config}'s current context, named {@code file} in errors. */
  static ApiClient build(KubeConfig config, String file, Duration readTimeout) {
    try {
      OneTlsSetupApiClient client = new OneTlsSetupApiClient();
      ClientBuilder builder =
          ClientBuilder.kubeconfig(config).setReadTimeout(readTimeout).setApiClient(client);
      KeyManager[] keys = jdkKeyManagers(builder, config, file);
      if (keys != null) {
        builder.setAuthentication(c -> c.setKeyManagers(keys));
      }
      builder.build();
      return client.applyTls();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build a client from kubeconfig " + file, e);
    }
  }

  /**
   * Key managers for the client certificate client-java would authenticate with — the kubeconfig
   * user's, or the one its exec credential plugin returned — read by the JDK ({@link PemKeys});
   * null when there is none. A key the JDK cannot read is left to client-java when BouncyCastle is
   * on the class path (Capstan does not bring it), and refused otherwise.
   */
  private static KeyManager @Nullable [] jdkKeyManagers(
      ClientBuilder builder, KubeConfig config, String file) throws IOException {
    if (!(builder.getAuthentication() instanceof KubeconfigAuthentication auth)
        || !(auth.getDelegateAuthentication() instanceof ClientCertificateAuthentication)) {
      return null;
    }
    byte[] cert =
        config.getDataOrFileRelative(
            config.getClientCertificateData(), config.getClientCertificateFile());
    byte[] key = config.getDataOrFileRelative(config.getClientKeyData(), config.getClientKeyFile());
    boolean fromExec = cert == null || key == null;
    if (fromExec) {
      // the certificate came from the exec plugin: client-java keeps no copy, so ask it again
      Map<String, String> credentials = config.getCredentials();
      @Nullable String execCert =
          credentials == null ? null : credentials.get("clientCertificateData");
      @Nullable String execKey = credentials == null ? null : credentials.get("clientKeyData");
      if (execCert == null || execKey == null) {
        return null;
      }
      cert = execCert.getBytes(UTF_8);
      key = execKey.getBytes(UTF_8);
    }
    KeyManager[] managers = PemKeys.keyManagers(cert, key);
    if (managers == null && !bouncyCastlePresent()) {
      throw new IllegalArgumentException(
          "kubeconfig "
              + file
              + ", context "
              + Escapes.quote(String.valueOf(config.getCurrentContext()))
              + ": the client key"
              + (fromExec ? " the exec credential plugin returned" : "")
              + " is not an unencrypted PEM key of a kind the JDK reads (PRIVATE KEY, RSA PRIVATE"
              + " KEY, or EC PRIVATE KEY naming its curve)"
              + (fromExec
                  ? ""
                  : "; convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8' and"
                      + " name that file in client-key"));
    }
    return managers;
  }

  private static boolean bouncyCastlePresent() {
    try {
      Class.forName(
          "org.bouncycastle.openssl.PEMParser", false, KubeconfigClients.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
