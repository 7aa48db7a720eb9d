package dev.capstan.cli;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Escapes;
import dev.capstan.k8s.KubeClients;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Before a command's first request, checks that the API server takes connections, as kubectl's
 * first request tells at once: a refused connection, a host that does not resolve or a port that
 * does not answer within {@link #TIMEOUT} ends the command with one line naming the server and the
 * context ({@link Unreachable}), instead of the library's retries (up to 30 s of pauses, meant for
 * an API server that restarts under a running cast). The check is one TCP connection to the
 * server's address (its proxy's, when the JVM has one for it), closed at once: no request, nothing
 * in the audit log. It runs in front of the clients' own interceptors, once per command: a command
 * {@linkplain #arm arms} it for itself and the threads it starts; clients a daemon keeps across
 * commands check again for each command. Requests after the first are retried as the library
 * retries them.
 */
final class ApiServerProbe implements Interceptor {
  /** How long the server's port has to take the connection. */
  static final Duration TIMEOUT = Duration.ofMillis(1500);

  /** Whether the command the thread works for has checked its server yet. */
  private static final InheritableThreadLocal<@Nullable AtomicBoolean> CHECKED =
      new InheritableThreadLocal<>();

  private final String context;

  private ApiServerProbe(String context) {
    this.context = context;
  }

  /**
   * Puts the check in front of {@code clients}' request client (once: clients a daemon keeps are
   * given it by their first command).
   */
  static void install(KubeClients clients) {
    ApiClient api = clients.apiClient();
    synchronized (api) {
      OkHttpClient http = api.getHttpClient();
      if (http.interceptors().stream().anyMatch(ApiServerProbe.class::isInstance)) {
        return;
      }
      OkHttpClient.Builder builder = http.newBuilder();
      builder.interceptors().add(0, new ApiServerProbe(clients.context()));
      api.setHttpClient(builder.build());
    }
  }

  /** The calling thread's command, and the threads it starts, check before their first request. */
  static void arm() {
    CHECKED.set(new AtomicBoolean());
  }

  /** The calling thread works for no command any more. */
  static void disarm() {
    CHECKED.remove();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    AtomicBoolean checked = CHECKED.get();
    if (checked != null && checked.compareAndSet(false, true)) {
      check(chain.request().url());
    }
    return chain.proceed(chain.request());
  }

  private void check(HttpUrl url) {
    String server = url.scheme() + "://" + url.host() + ":" + url.port();
    InetSocketAddress target = InetSocketAddress.createUnresolved(url.host(), url.port());
    String via = "";
    List<Proxy> proxies = ProxySelector.getDefault().select(URI.create(server));
    if (!proxies.isEmpty()
        && proxies.get(0).type() != Proxy.Type.DIRECT
        && proxies.get(0).address() instanceof InetSocketAddress proxy) {
      target = proxy;
      via = " through the proxy " + proxy.getHostString() + ":" + proxy.getPort();
    }
    try (Socket socket = new Socket()) {
      InetSocketAddress resolved =
          target.isUnresolved()
              ? new InetSocketAddress(target.getHostString(), target.getPort())
              : target;
      if (resolved.isUnresolved()) {
        throw new UnknownHostException(target.getHostString());
      }
      socket.connect(resolved, (int) TIMEOUT.toMillis());
    } catch (ConnectException e) {
      throw new Unreachable(server, context, via, "the connection was refused");
    } catch (SocketTimeoutException e) {
      throw new Unreachable(
          server, context, via, "no answer within " + TIMEOUT.toMillis() / 1000.0 + " s");
    } catch (UnknownHostException e) {
      throw new Unreachable(
          server,
          context,
          via,
          "the host " + Escapes.quote(target.getHostString()) + " is unknown");
    } catch (IOException e) {
      throw new Unreachable(server, context, via, Escapes.escape(String.valueOf(e.getMessage())));
    }
  }

  /** The API server does not take connections; nothing was sent to it. */
  static final class Unreachable extends ClusterException {
    private static final long serialVersionUID = 1L;

    Unreachable(String server, String context, String via, String why) {
      super(
          "cannot reach the API server "
              + Escapes.escape(server)
              + " of context "
              + Escapes.quote(context)
              + via
              + ": "
              + why
              + "; nothing was sent");
    }
  }
}
