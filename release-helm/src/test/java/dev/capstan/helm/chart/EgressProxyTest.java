package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Helm's proxy refuses a metadata service's addresses, however a host names them, before it
 * connects anywhere, and relays what it allows. Every host here resolves without DNS (the test's
 * resolver), and only loopback is ever connected to.
 */
class EgressProxyTest {
  /** Names resolved by the test alone; any other name is unknown (no DNS is asked). */
  private static final Map<String, String> NAMES =
      Map.of(
          "metadata.google.internal", "169.254.169.254",
          "aws.test", "fd00:ec2::254",
          "aliyun.test", "100.100.100.200",
          "charts.test", "127.0.0.1");

  /** The hosts the proxy asked the resolver for, in order. */
  private final List<String> resolved = new CopyOnWriteArrayList<>();

  private InetAddress[] resolve(String host) throws UnknownHostException {
    resolved.add(host);
    String address = NAMES.get(host);
    if (address == null && !host.matches("[0-9.]+|[0-9a-fA-F:]+")) {
      throw new UnknownHostException(host);
    }
    return new InetAddress[] {InetAddress.getByName(address == null ? host : address)};
  }

  /** Sends {@code request} to the proxy and reads everything it answers until it closes. */
  private static String send(EgressProxy proxy, String request) throws IOException {
    URI url = URI.create(proxy.url());
    try (Socket s = new Socket(url.getHost(), url.getPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void aMetadataServiceIsRefusedBeforeAnyConnectionWhateverNameLeadsThere() throws Exception {
    try (EgressProxy proxy = EgressProxy.start(this::resolve)) {
      String google = send(proxy, "CONNECT metadata.google.internal:443 HTTP/1.1\r\n\r\n");
      String literal =
          send(
              proxy,
              "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n");
      String aws = send(proxy, "CONNECT [fd00:ec2::254]:443 HTTP/1.1\r\n\r\n");
      String named = send(proxy, "CONNECT aws.test:443 HTTP/1.1\r\n\r\n");
      String aliyun = send(proxy, "CONNECT aliyun.test:80 HTTP/1.1\r\n\r\n");

      assertThat(google.lines().findFirst().orElseThrow())
          .isEqualTo(
              "HTTP/1.1 403 refused by Capstan: 'metadata.google.internal' is 169.254.169.254"
                  + " (link-local, where a cloud's metadata service answers); a chart source may"
                  + " not lead there");
      assertThat(literal).startsWith("HTTP/1.1 403 refused by Capstan: '169.254.169.254' is");
      assertThat(aws).contains("is fd00:ec2:0:0:0:0:0:254 (AWS's metadata service)");
      assertThat(named).contains("'aws.test' is fd00:ec2:0:0:0:0:0:254 (AWS's metadata service)");
      assertThat(aliyun).contains("'aliyun.test' is 100.100.100.200 (Alibaba Cloud's");
      assertThat(proxy.refusals()).hasSize(5);
      assertThat(resolved)
          .containsExactly(
              "metadata.google.internal",
              "169.254.169.254",
              "fd00:ec2::254",
              "aws.test",
              "aliyun.test");
    }
  }

  @Test
  void aTunnelToAnAllowedHostCarriesBytesBothWays() throws Exception {
    try (ServerSocket echo = new ServerSocket();
        EgressProxy proxy = EgressProxy.start(this::resolve)) {
      CompletableFuture<String> served =
          serveOnce(
              echo,
              s -> {
                byte[] ping = s.getInputStream().readNBytes(4);
                s.getOutputStream().write(ping);
                s.getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
                return "";
              });
      URI url = URI.create(proxy.url());
      try (Socket s = new Socket(url.getHost(), url.getPort())) {
        s.setSoTimeout(10_000);
        s.getOutputStream()
            .write(
                ("CONNECT charts.test:" + echo.getLocalPort() + " HTTP/1.1\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
        InputStream in = s.getInputStream();
        assertThat(readHead(in)).isEqualTo("HTTP/1.1 200 Connection established\r\n\r\n");
        s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("pingpong");
      }
      served.get(10, TimeUnit.SECONDS);
      assertThat(proxy.refusals()).isEmpty();
    }
  }

  @Test
  void aPlainRequestReachesItsHostWithItsPathAloneAndNoProxyHeader() throws Exception {
    try (ServerSocket host = new ServerSocket();
        EgressProxy proxy = EgressProxy.start(this::resolve)) {
      CompletableFuture<String> seen =
          serveOnce(
              host,
              s -> {
                String head = readHead(s.getInputStream());
                s.getOutputStream()
                    .write(
                        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                            .getBytes(StandardCharsets.US_ASCII));
                return head;
              });
      int port = host.getLocalPort();

      String answer =
          send(
              proxy,
              "GET http://charts.test:"
                  + port
                  + "/charts/index.yaml?v=1 HTTP/1.1\r\nHost: charts.test:"
                  + port
                  + "\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n"
                  + "User-Agent: Helm/3.22.0\r\n\r\n");

      assertThat(seen.get(10, TimeUnit.SECONDS))
          .isEqualTo(
              "GET /charts/index.yaml?v=1 HTTP/1.1\r\nHost: charts.test:"
                  + port
                  + "\r\nUser-Agent: Helm/3.22.0\r\nConnection: close\r\n\r\n");
      assertThat(answer).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    }
  }

  @Test
  void anUnknownHostOrARequestWithoutOneIsAnsweredAndNotReached() throws Exception {
    try (EgressProxy proxy = EgressProxy.start(this::resolve)) {
      assertThat(send(proxy, "CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n"))
          .startsWith("HTTP/1.1 502 Bad Gateway")
          .endsWith("unknown host 'nowhere.test'\n");
      assertThat(send(proxy, "GET /index.yaml HTTP/1.1\r\n\r\n"))
          .startsWith("HTTP/1.1 400 Bad Request")
          .endsWith("no host to reach in '/index.yaml'\n");
    }
  }

  @Test
  void helmsFetchesGoThroughTheProxyWhateverProxyTheCallerSet() {
    Map<String, String> env =
        HelmChartRenderer.proxied(
            Map.of(
                "HOME", "/w/home",
                "HTTPS_PROXY", "http://corp:3128",
                "no_proxy", "169.254.169.254",
                "ALL_PROXY", "socks5://corp:1080"),
            "http://127.0.0.1:4711");

    assertThat(env)
        .isEqualTo(
            Map.of(
                "HOME", "/w/home",
                "HTTPS_PROXY", "http://127.0.0.1:4711",
                "https_proxy", "http://127.0.0.1:4711",
                "HTTP_PROXY", "http://127.0.0.1:4711",
                "http_proxy", "http://127.0.0.1:4711"));
  }

  /** What a test's server does with its one connection. */
  @FunctionalInterface
  private interface Serve {
    String on(Socket s) throws IOException;
  }

  /** Binds {@code server} to loopback and serves its first connection on another thread. */
  private static CompletableFuture<String> serveOnce(ServerSocket server, Serve serve)
      throws IOException {
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return CompletableFuture.supplyAsync(
        () -> {
          try (Socket s = server.accept()) {
            return serve.on(s);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }
}
