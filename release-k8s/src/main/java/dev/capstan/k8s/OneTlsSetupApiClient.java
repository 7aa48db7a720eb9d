package dev.capstan.k8s;

import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;

/**
 * An {@link ApiClient} for {@link io.kubernetes.client.util.ClientBuilder#setApiClient} whose TLS
 * is set up once, from the builder's final settings. client-java's own client builds a default HTTP
 * client on construction, which reads the JDK's whole trust store (~140 certificates, parsed in
 * cold code) to trust nothing a kubeconfig names, and its builder then sets TLS up again for each
 * setting it makes: verification, the key managers, the certificate authority. Here the HTTP client
 * starts with TLS that refuses every connection ({@link NotSetUp}), every setting is recorded, and
 * {@link #applyTls} runs client-java's own {@link ApiClient#applySslSettings} once, after the
 * builder: the same trust managers, key managers, hostname verifier and server name as client-java
 * builds, hence the same verification. A client whose {@link #applyTls} was skipped connects
 * nowhere.
 */
final class OneTlsSetupApiClient extends ApiClient {
  private boolean settled;

  @Override
  protected void initHttpClient(List<Interceptor> interceptors) {
    OkHttpClient.Builder builder =
        new OkHttpClient.Builder().sslSocketFactory(new NotSetUp(), NotSetUp.TRUST_NONE);
    interceptors.forEach(builder::addInterceptor);
    httpClient = builder.build();
  }

  /** Recorded until {@link #applyTls}; from then on, as client-java does it. */
  @Override
  protected void applySslSettings() {
    if (settled) {
      super.applySslSettings();
    }
  }

  /**
   * Sets TLS up from the settings made so far, as client-java does ({@code applySslSettings}).
   *
   * @return this client
   */
  ApiClient applyTls() {
    settled = true;
    super.applySslSettings();
    return this;
  }

  /** TLS before it is set up: every connection refused, no certificate trusted. */
  private static final class NotSetUp extends SSLSocketFactory {
    static final X509TrustManager TRUST_NONE =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            throw new CertificateException("TLS is not set up yet");
          }

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            throw new CertificateException("TLS is not set up yet");
          }

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };

    private static IOException refused() {
      return new IOException("TLS is not set up yet (OneTlsSetupApiClient.applyTls)");
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return new String[0];
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return new String[0];
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose)
        throws IOException {
      throw refused();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      throw refused();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
        throws IOException {
      throw refused();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      throw refused();
    }

    @Override
    public Socket createSocket(
        InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
      throw refused();
    }
  }
}
