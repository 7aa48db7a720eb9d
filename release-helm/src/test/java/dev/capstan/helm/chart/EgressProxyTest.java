package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.chart.PrivateNetworks;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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
          "charts.test", "127.0.0.1",
          "localhost.test", "127.0.0.1");

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

  /** The private-address rules trusting {@code repositories}. */
  private static EgressProxy.Rules refusingPrivate(String... repositories) {
    return EgressProxy.Rules.defaults()
        .withPrivateNetworks(PrivateNetworks.onlyAt(List.of(repositories)));
  }

  private static InetAddress[] at(String address) throws UnknownHostException {
    return new InetAddress[] {InetAddress.getByName(address)};
  }

  private static final String PRIVATE_RULE =
      "a chart source may lead to a private address only at a trusted repository's host and port";

  /** The proxy's verdict alone: nothing is resolved or connected to. */
  @Test
  void underPrivateRulesAnAddressOfAPrivateNetworkIsRefusedButAtATrustedHostAndPort()
      throws Exception {
    try (EgressProxy proxy =
        EgressProxy.start(
            this::resolve,
            refusingPrivate("https://Charts.Internal", "oci://[fd00::5]:5000/charts"))) {
      String trusted = " ([fd00:0:0:0:0:0:0:5]:5000, charts.internal:443)";

      assertThat(proxy.refusal("web.team-b.svc.cluster.local", 443, at("10.96.0.12")))
          .isEqualTo(
              "refused by Capstan: 'web.team-b.svc.cluster.local' is 10.96.0.12 (private,"
                  + " 10.0.0.0/8); "
                  + PRIVATE_RULE
                  + trusted);
      assertThat(
              proxy.refusal(
                  "pods.test",
                  80,
                  new InetAddress[] {
                    InetAddress.getByName("93.184.215.14"), InetAddress.getByName("100.64.3.4")
                  }))
          .isEqualTo(
              "refused by Capstan: 'pods.test' is 100.64.3.4 (carrier-grade NAT, 100.64.0.0/10); "
                  + PRIVATE_RULE
                  + trusted);
      assertThat(proxy.refusal("::ffff:7f00:1", 10250, at("::ffff:7f00:1")))
          .isEqualTo(
              "refused by Capstan: '::ffff:7f00:1' is 127.0.0.1 (loopback, 127.0.0.0/8); "
                  + PRIVATE_RULE
                  + trusted);
      assertThat(proxy.refusal("0.0.0.0", 8080, at("0.0.0.0")))
          .startsWith("refused by Capstan: '0.0.0.0' is 0.0.0.0 (this host, 0.0.0.0/8); ");
      assertThat(proxy.refusal("ula.test", 443, at("fd12::1")))
          .startsWith("refused by Capstan: 'ula.test' is fd12:0:0:0:0:0:0:1 (unique local,");
      // a trusted repository's host at another port, or with another name, is no exception
      assertThat(proxy.refusal("charts.internal", 10250, at("10.0.0.5")))
          .startsWith("refused by Capstan: 'charts.internal' is 10.0.0.5 (private, 10.0.0.0/8)");
      assertThat(proxy.refusal("10.0.0.5", 443, at("10.0.0.5"))).isNotNull();
      // the trusted ones, wherever they resolve; public addresses for anyone
      assertThat(proxy.refusal("CHARTS.internal", 443, at("10.0.0.5"))).isNull();
      assertThat(proxy.refusal("fd00:0::5", 5000, at("fd00::5"))).isNull();
      assertThat(proxy.refusal("charts.example.com", 443, at("93.184.215.14"))).isNull();
      // a metadata service, even at a trusted host
      assertThat(proxy.refusal("charts.internal", 443, at("169.254.169.254")))
          .isEqualTo(
              "refused by Capstan: 'charts.internal' is 169.254.169.254 (link-local, where a"
                  + " cloud's metadata service answers); a chart source may not lead there");
    }
    try (EgressProxy open = EgressProxy.start(this::resolve)) {
      assertThat(open.refusal("web.team-b.svc.cluster.local", 443, at("10.96.0.12"))).isNull();
    }
  }

  @Test
  void underPrivateRulesALoopbackNameIsRefusedOnTheWireAndATrustedOneRelayed() throws Exception {
    try (ServerSocket echo = new ServerSocket()) {
      CompletableFuture<String> served =
          serveOnce(
              echo,
              s -> {
                s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
                return "";
              });
      int port = echo.getLocalPort();
      try (EgressProxy proxy =
          EgressProxy.start(this::resolve, refusingPrivate("https://charts.test:" + port))) {
        String local = send(proxy, "CONNECT localhost.test:" + port + " HTTP/1.1\r\n\r\n");
        String otherPort = send(proxy, "CONNECT charts.test:443 HTTP/1.1\r\n\r\n");
        String allowed = send(proxy, "CONNECT charts.test:" + port + " HTTP/1.1\r\n\r\n");

        String rule = "; " + PRIVATE_RULE + " (charts.test:" + port + ")";
        assertThat(local.lines().findFirst().orElseThrow())
            .isEqualTo(
                "HTTP/1.1 403 refused by Capstan: 'localhost.test' is 127.0.0.1 (loopback,"
                    + " 127.0.0.0/8)"
                    + rule);
        assertThat(otherPort)
            .startsWith(
                "HTTP/1.1 403 refused by Capstan: 'charts.test' is 127.0.0.1 (loopback,"
                    + " 127.0.0.0/8)"
                    + rule);
        assertThat(allowed).isEqualTo("HTTP/1.1 200 Connection established\r\n\r\nhello");
        served.get(10, TimeUnit.SECONDS);
        assertThat(proxy.refusals()).hasSize(2);
      }
    }
  }

  @Test
  void aConnectionSilentBothWaysIsClosedAfterTheIdleTime() throws Exception {
    try (ServerSocket silent = new ServerSocket();
        EgressProxy proxy =
            EgressProxy.start(
                this::resolve, EgressProxy.Rules.defaults().withIdle(Duration.ofSeconds(2)))) {
      CompletableFuture<String> served =
          serveOnce(
              silent,
              s -> {
                String head = readHead(s.getInputStream());
                s.getOutputStream()
                    .write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                // then nothing more, until the proxy closes the connection
                return head + (s.getInputStream().read() < 0 ? "closed" : "more");
              });
      String answer =
          send(
              proxy,
              "GET http://charts.test:"
                  + silent.getLocalPort()
                  + "/index.yaml HTTP/1.1\r\nHost: charts.test\r\n\r\n");

      // the host never closes: only the proxy's idle limit ends both connections
      assertThat(answer).isEqualTo("HTTP/1.1 200 OK\r\n");
      assertThat(served.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\nclosed");
    }
  }

  @Test
  void aTrickleThatKeepsSendingIsNotIdle() throws Exception {
    // the host sends a byte every 100 ms for 3 s: longer than the idle time of 2 s, each gap far
    // shorter, so only a proxy that counts the bytes as activity relays all 30
    try (ServerSocket trickle = new ServerSocket();
        EgressProxy proxy =
            EgressProxy.start(
                this::resolve, EgressProxy.Rules.defaults().withIdle(Duration.ofSeconds(2)))) {
      CompletableFuture<String> served =
          serveOnce(
              trickle,
              s -> {
                readHead(s.getInputStream());
                for (int i = 0; i < 30; i++) {
                  s.getOutputStream().write('a' + i % 26);
                  s.getOutputStream().flush();
                  sleep(100);
                }
                return "";
              });

      String answer =
          send(
              proxy,
              "GET http://charts.test:"
                  + trickle.getLocalPort()
                  + "/index.yaml HTTP/1.1\r\nHost: charts.test\r\n\r\n");

      assertThat(answer).isEqualTo("abcdefghijklmnopqrstuvwxyzabcd");
      served.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void onceTheHostsSentTheBudgetEveryConnectionIsClosedAndLaterOnesRefused() throws Exception {
    CountDownLatch firstReceived = new CountDownLatch(1);
    try (ServerSocket big = new ServerSocket();
        EgressProxy proxy =
            EgressProxy.start(this::resolve, EgressProxy.Rules.defaults().withMaxBytes(600))) {
      CompletableFuture<String> served =
          serveOnce(
              big,
              s -> {
                s.getOutputStream().write("a".repeat(600).getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                // the second part is sent once the client has the first: never read together
                await(firstReceived);
                s.getOutputStream().write("b".repeat(600).getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                return "";
              });
      String refusal =
          "refused by Capstan: the chart source sent more than 600 bytes through Helm's proxy in"
              + " one rendering (at most 64 MiB for a chart and 64 MiB for its repository's"
              + " index); a chart source may not send more";

      String established = "HTTP/1.1 200 Connection established\r\n\r\n";
      String first;
      URI url = URI.create(proxy.url());
      try (Socket client = new Socket(url.getHost(), url.getPort())) {
        client.setSoTimeout(10_000);
        client
            .getOutputStream()
            .write(
                ("CONNECT charts.test:" + big.getLocalPort() + " HTTP/1.1\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
        client.getOutputStream().flush();
        byte[] part = client.getInputStream().readNBytes(established.length() + 600);
        firstReceived.countDown();
        first =
            new String(part, StandardCharsets.ISO_8859_1)
                + new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      }
      String later = send(proxy, "CONNECT charts.test:" + big.getLocalPort() + " HTTP/1.1\r\n\r\n");

      assertThat(first).isEqualTo(established + "a".repeat(600));
      assertThat(later.lines().findFirst().orElseThrow()).isEqualTo("HTTP/1.1 403 " + refusal);
      assertThat(proxy.refusals()).containsExactly(refusal);
      served.get(10, TimeUnit.SECONDS);
    }
    assertThat(EgressProxy.MAX_DOWNLOAD).isEqualTo(128L << 20);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the client did not receive the first part");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
