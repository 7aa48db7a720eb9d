package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.PrivateNetworks;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP proxy a Helm process is given ({@code HTTPS_PROXY}, {@code HTTP_PROXY}) for one
 * rendering's fetch, on loopback. It resolves each host Helm asks for itself and refuses, before
 * any connection, a host with an address of a cloud's metadata service ({@link MetadataServices}),
 * and, when its {@link Rules} refuse private addresses, one with an address of {@link
 * PrivateAddresses} unless the host and port are a trusted repository's: whatever name, redirect,
 * chart URL in an index or registry a chart source leads Helm to, Helm reaches none of them through
 * it. Tunnels ({@code CONNECT}, for {@code https}) and plain requests (an absolute {@code http://}
 * URL) are relayed as they are, with two bounds: a connection silent both ways for {@link
 * Rules#idle()} is closed, and once the hosts have sent {@link Rules#maxBytes()} in all (the most a
 * chart and its repository's index may take, {@link #MAX_DOWNLOAD}) every connection is closed and
 * every later request refused, so a trickling or endless chart source neither holds Helm nor fills
 * its memory (Helm holds a download whole before it writes it) or its disk. Helm's Go client sends
 * requests for {@code localhost} and literal loopback addresses directly, never to a proxy ({@code
 * http.ProxyFromEnvironment}, whatever {@code NO_PROXY} says), so those reach this machine's
 * loopback past it.
 */
final class EgressProxy implements Closeable {
  /** Resolves a host to its addresses, as {@link InetAddress#getAllByName} does. */
  @FunctionalInterface
  interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** The most bytes of a request's head read before it is refused. */
  static final int MAX_HEAD = 16 * 1024;

  /** How long a connection to an allowed host may take. */
  static final int CONNECT_TIMEOUT_MS = 30_000;

  /** The most a repository's {@code index.yaml} may take of {@link #MAX_DOWNLOAD}. */
  static final long MAX_INDEX = 64L << 20;

  /**
   * The most the hosts may send through one proxy, TLS included: a chart at its largest ({@link
   * ChartFiles#MAX_ARCHIVE}) and its repository's index ({@link #MAX_INDEX}).
   */
  static final long MAX_DOWNLOAD = ChartFiles.MAX_ARCHIVE + MAX_INDEX;

  /** How long a relayed connection may be silent both ways before it is closed. */
  static final Duration IDLE = Duration.ofSeconds(60);

  /**
   * What the proxy allows.
   *
   * @param privateRefused whether an address of {@link PrivateAddresses} is refused
   * @param trusted the {@code host:port}s reached wherever they resolve (hosts canonical: {@link
   *     PrivateAddresses#canonical}, an IPv6 address in brackets)
   * @param idle how long a relayed connection may be silent both ways
   * @param maxBytes the most the hosts may send through the proxy in all
   */
  record Rules(boolean privateRefused, Set<String> trusted, Duration idle, long maxBytes) {
    Rules {
      trusted = Set.copyOf(trusted);
    }

    /** Private addresses reachable, {@link #IDLE} and {@link #MAX_DOWNLOAD}. */
    static Rules defaults() {
      return new Rules(false, Set.of(), IDLE, MAX_DOWNLOAD);
    }

    /** These rules with private addresses refused or reachable as {@code networks} says. */
    Rules withPrivateNetworks(PrivateNetworks networks) {
      Set<String> hosts = new java.util.LinkedHashSet<>();
      for (String hostAndPort : networks.trustedHostsAndPorts()) {
        int colon = hostAndPort.lastIndexOf(':');
        hosts.add(
            key(
                strip(hostAndPort.substring(0, colon)),
                Integer.parseInt(hostAndPort.substring(colon + 1))));
      }
      return new Rules(networks.refused(), hosts, idle, maxBytes);
    }

    /** These rules with a relayed connection closed after {@code idle} of silence. */
    Rules withIdle(Duration idle) {
      return new Rules(privateRefused, trusted, idle, maxBytes);
    }

    /** These rules with at most {@code maxBytes} sent by the hosts. */
    Rules withMaxBytes(long maxBytes) {
      return new Rules(privateRefused, trusted, idle, maxBytes);
    }
  }

  private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};

  private final ServerSocket server;
  private final Resolver resolver;
  private final Rules rules;
  private final ExecutorService threads;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final List<String> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicLong received = new AtomicLong();
  private volatile @Nullable String overBudget;

  private EgressProxy(ServerSocket server, Resolver resolver, Rules rules) {
    this.server = server;
    this.resolver = resolver;
    this.rules = rules;
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "capstan-helm-proxy-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** A proxy on a free loopback port that resolves hosts with the system's resolver. */
  static EgressProxy start() {
    return start(InetAddress::getAllByName, Rules.defaults());
  }

  /** A proxy on a free loopback port that resolves hosts with {@code resolver}, by the defaults. */
  static EgressProxy start(Resolver resolver) {
    return start(resolver, Rules.defaults());
  }

  /**
   * A proxy on a free loopback port that resolves hosts with {@code resolver}, by {@code rules}.
   */
  static EgressProxy start(Resolver resolver, Rules rules) {
    ServerSocket server;
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } catch (IOException e) {
      throw new IllegalStateException("cannot open Helm's proxy on loopback: " + e, e);
    }
    EgressProxy proxy = new EgressProxy(server, resolver, rules);
    proxy.threads.execute(proxy::accept);
    return proxy;
  }

  /** The proxy's URL: {@code http://127.0.0.1:PORT}. */
  String url() {
    return "http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
  }

  /** Why each refused request was refused, in order (for messages and tests). */
  List<String> refusals() {
    return List.copyOf(refusals);
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      open.add(client);
      try {
        threads.execute(() -> serve(client));
      } catch (RuntimeException e) { // closing
        closeQuietly(client);
      }
    }
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try {
      client.setSoTimeout(millis(rules.idle()));
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      byte[][] headAndRest = readHead(in);
      if (headAndRest == null) {
        respond(
            out, "400 Bad Request", "the request has no head of at most " + MAX_HEAD + " bytes");
        return;
      }
      String head = new String(headAndRest[0], StandardCharsets.ISO_8859_1);
      String[] requestLine = head.substring(0, head.indexOf("\r\n")).split(" ", 3);
      if (requestLine.length != 3) {
        respond(out, "400 Bad Request", "a request line is METHOD TARGET VERSION");
        return;
      }
      String method = requestLine[0];
      boolean tunnel = method.equals("CONNECT");
      Target target = tunnel ? authority(requestLine[1], 443) : absolute(requestLine[1]);
      if (target == null) {
        respond(out, "400 Bad Request", "no host to reach in " + Escapes.quote(requestLine[1]));
        return;
      }
      InetAddress[] addresses;
      try {
        addresses = resolver.resolve(target.host());
      } catch (UnknownHostException e) {
        respond(out, "502 Bad Gateway", "unknown host " + Escapes.quote(target.host()));
        return;
      }
      String refusal = refusal(target.host(), target.port(), addresses);
      if (refusal != null) {
        refusals.add(refusal);
        respond(out, "403 " + refusal, refusal);
        return;
      }
      String spent = overBudget;
      if (spent != null) {
        respond(out, "403 " + spent, spent);
        return;
      }
      upstream = connect(addresses, target.port());
      if (upstream == null) {
        respond(
            out,
            "502 Bad Gateway",
            "cannot connect to " + Escapes.quote(target.host()) + " port " + target.port());
        return;
      }
      open.add(upstream);
      int slice = Math.max(1, millis(rules.idle()) / 4);
      upstream.setSoTimeout(slice);
      client.setSoTimeout(slice);
      OutputStream up = upstream.getOutputStream();
      if (tunnel) {
        out.write(
            "HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      } else {
        up.write(originForm(head, method, target, requestLine[2]));
      }
      up.write(headAndRest[1]);
      up.flush();
      Socket from = upstream;
      AtomicLong lastActive = new AtomicLong(System.nanoTime());
      threads.execute(() -> pipe(from, client, lastActive, true));
      pipe(client, upstream, lastActive, false);
    } catch (IOException | RuntimeException e) {
      // the client or the host went away: both connections are closed below
    } finally {
      if (upstream == null) {
        closeQuietly(client);
        open.remove(client);
      }
    }
  }

  /** A host and port to reach. */
  private record Target(String host, int port, String path) {}

  /** {@code host:port} (IPv6 in brackets), or {@code null}. */
  private static @Nullable Target authority(String text, int defaultPort) {
    try {
      URI uri = new URI("http://" + text + "/");
      return uri.getHost() == null
          ? null
          : new Target(strip(uri.getHost()), uri.getPort() < 0 ? defaultPort : uri.getPort(), "/");
    } catch (URISyntaxException e) {
      return null;
    }
  }

  /** An absolute {@code http://} URL, or {@code null}. */
  private static @Nullable Target absolute(String text) {
    try {
      URI uri = new URI(text);
      if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        return null;
      }
      String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
      if (uri.getRawQuery() != null) {
        path += "?" + uri.getRawQuery();
      }
      return new Target(strip(uri.getHost()), uri.getPort() < 0 ? 80 : uri.getPort(), path);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static String strip(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** A plain request's head for the host itself: its path alone, and one request per connection. */
  private static byte[] originForm(String head, String method, Target target, String version) {
    StringBuilder out =
        new StringBuilder(method).append(' ').append(target.path()).append(' ').append(version);
    String[] lines = head.split("\r\n", -1);
    for (int i = 1; i < lines.length; i++) {
      String name = lines[i].split(":", 2)[0].trim().toLowerCase(Locale.ROOT);
      if (!name.isEmpty()
          && !name.startsWith("proxy-")
          && !name.equals("connection")
          && !name.equals("keep-alive")) {
        out.append("\r\n").append(lines[i]);
      }
    }
    out.append("\r\nConnection: close\r\n\r\n");
    return out.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The head (up to and with its empty line) and the bytes read after it, or {@code null}. */
  private static byte @Nullable [][] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    while (read.size() <= MAX_HEAD) {
      int n = in.read(buffer);
      if (n < 0) {
        return null;
      }
      read.write(buffer, 0, n);
      byte[] bytes = read.toByteArray();
      int end = indexOf(bytes, END_OF_HEAD);
      if (end >= 0) {
        int split = end + END_OF_HEAD.length;
        return new byte[][] {
          java.util.Arrays.copyOf(bytes, split),
          java.util.Arrays.copyOfRange(bytes, split, bytes.length)
        };
      }
    }
    return null;
  }

  private static int indexOf(byte[] bytes, byte[] part) {
    outer:
    for (int i = 0; i + part.length <= bytes.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (bytes[i + j] != part[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static @Nullable Socket connect(InetAddress[] addresses, int port) {
    for (InetAddress a : addresses) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(a, port), CONNECT_TIMEOUT_MS);
        return s;
      } catch (IOException e) {
        closeQuietly(s);
      }
    }
    return null;
  }

  /**
   * Copies {@code from} to {@code to} until either ends, the pair has been silent both ways for
   * {@link Rules#idle()}, or (what the host sends, {@code fromHost}) the hosts have sent more than
   * {@link Rules#maxBytes()} in all; then closes both.
   */
  private void pipe(Socket from, Socket to, AtomicLong lastActive, boolean fromHost) {
    long idle = rules.idle().toNanos();
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        int n;
        try {
          n = in.read(buffer);
        } catch (SocketTimeoutException e) {
          if (System.nanoTime() - lastActive.get() >= idle) {
            return; // silent both ways
          }
          continue;
        }
        if (n < 0) {
          return;
        }
        if (fromHost && received.addAndGet(n) > rules.maxBytes()) {
          spent();
          return;
        }
        out.write(buffer, 0, n);
        out.flush();
        lastActive.set(System.nanoTime());
      }
    } catch (IOException e) {
      // one side went away
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      open.remove(from);
      open.remove(to);
    }
  }

  /** The hosts sent more than the rules allow: says so once, and closes every connection. */
  private synchronized void spent() {
    if (overBudget == null) {
      String refusal =
          "refused by Capstan: the chart source sent more than "
              + mib(rules.maxBytes())
              + " through Helm's proxy in one rendering (at most "
              + mib(ChartFiles.MAX_ARCHIVE)
              + " for a chart and "
              + mib(MAX_INDEX)
              + " for its repository's index); a chart source may not send more";
      refusals.add(refusal);
      overBudget = refusal;
    }
    for (Socket s : new ArrayList<>(open)) {
      closeQuietly(s);
    }
  }

  private static String mib(long bytes) {
    return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
  }

  /**
   * Why the proxy refuses to lead to {@code host} (without brackets) and {@code port}, the host
   * having resolved to {@code addresses}, or {@code null} when it may: a metadata service's address
   * always; a private one when the rules refuse them and the host and port are no trusted
   * repository's. Nothing is looked up or connected to.
   */
  @Nullable String refusal(String host, int port, InetAddress[] addresses) {
    for (InetAddress a : addresses) {
      String why = MetadataServices.at(a);
      if (why != null) {
        return refused(host, a, why, "a chart source may not lead there");
      }
    }
    if (!rules.privateRefused() || rules.trusted().contains(key(host, port))) {
      return null;
    }
    for (InetAddress a : addresses) {
      String why = PrivateAddresses.at(a);
      if (why != null) {
        return refused(
            host,
            a,
            why,
            "a chart source may lead to a private address only at a trusted repository's host and"
                + " port ("
                + (rules.trusted().isEmpty()
                    ? "none"
                    : String.join(", ", new java.util.TreeSet<>(rules.trusted())))
                + ")");
      }
    }
    return null;
  }

  private static String refused(String host, InetAddress a, String why, String rule) {
    return "refused by Capstan: "
        + Escapes.quote(host)
        + " is "
        + a.getHostAddress()
        + " ("
        + why
        + "); "
        + rule;
  }

  /** {@code host:port} as the rules compare it: the host canonical, an IPv6 one in brackets. */
  private static String key(String host, int port) {
    String canonical = PrivateAddresses.canonical(host);
    return (canonical.contains(":") ? "[" + canonical + "]" : canonical) + ":" + port;
  }

  private static int millis(Duration d) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
  }

  private static void respond(OutputStream out, String status, String body) throws IOException {
    byte[] text = (body + "\n").getBytes(StandardCharsets.UTF_8);
    out.write(
        ("HTTP/1.1 "
                + status
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + text.length
                + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    out.write(text);
    out.flush();
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }

  /** Stops accepting and closes every connection still open. */
  @Override
  public void close() {
    closeQuietly(server);
    for (Socket s : new ArrayList<>(open)) {
      closeQuietly(s);
    }
    threads.shutdownNow();
  }
}
