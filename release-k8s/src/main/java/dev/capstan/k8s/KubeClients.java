package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.capstan.common.Backoff;
import dev.capstan.common.ClusterException;
import dev.capstan.common.Sleeper;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.VersionInfo;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Kubernetes clients Capstan's adapters share: an {@link ApiClient} for requests, one without a
 * read timeout for watches (built on first use), a {@link RequestCounter} on both, and what
 * identifies the cluster. A kubeconfig's client certificate and unencrypted key are read with the
 * JDK (client-java would load BouncyCastle for them, most of a second of a CLI's start-up).
 * Thread-safe; create one per cluster and hand it to {@link KubernetesOrchestrator}, {@link
 * KubernetesStore} and {@link KubernetesPlatformCluster}.
 *
 * <pre>{@code
 * KubeClients kube = KubeClients.fromKubeconfig(Path.of(System.getenv("KUBECONFIG")), "prod");
 * ReleaseController c =
 *     ReleaseController.builder(new KubernetesOrchestrator(kube), new KubernetesStore(kube)).build();
 * }</pre>
 */
public final class KubeClients {
  private static final String IN_CLUSTER_NAMESPACE =
      "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

  /** The read timeout of request clients this class builds. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(60);

  private final ApiClient api;
  private final Supplier<ApiClient> watchFactory;
  private final RequestCounter counter;
  private final Retries retries;
  private final String context;
  private final @Nullable String namespace;
  private volatile @Nullable ApiClient watchApi;
  private volatile @Nullable String clusterId;

  private KubeClients(
      ApiClient api,
      Supplier<ApiClient> watchFactory,
      RequestCounter counter,
      Retries retries,
      String context,
      @Nullable String namespace) {
    this.api = api;
    this.watchFactory = watchFactory;
    this.counter = counter;
    this.retries = retries;
    this.context = context;
    this.namespace = namespace == null || namespace.isEmpty() ? null : namespace;
  }

  /**
   * Clients for the current context of a kubeconfig file.
   *
   * @throws IllegalArgumentException if the file cannot be read or is not a kubeconfig
   */
  public static KubeClients fromKubeconfig(Path kubeconfig) {
    return fromKubeconfig(kubeconfig, null);
  }

  /**
   * Clients for a context of a kubeconfig file. Relative certificate and key paths resolve against
   * the file's folder, as kubectl does.
   *
   * @param kubeconfig the kubeconfig file
   * @param context the context to use, or {@code null} for the file's current context
   * @throws IllegalArgumentException if the file cannot be read, or has no such context (the
   *     message lists the contexts it has)
   */
  public static KubeClients fromKubeconfig(Path kubeconfig, @Nullable String context) {
    return fromKubeconfig(List.of(requireNonNull(kubeconfig, "kubeconfig")), context);
  }

  /**
   * Clients for a context of the kubeconfig files of a {@code $KUBECONFIG} list, merged as kubectl
   * merges them: a cluster, user or context is the first file's that names it, and the current
   * context is the first file's that sets one. Relative certificate, key, token file and exec
   * command paths resolve against the folder of the file that holds them. One file reads as {@link
   * #fromKubeconfig(Path, String)} reads it.
   *
   * @param kubeconfigs the kubeconfig files, in {@code $KUBECONFIG}'s order; at least one
   * @param context the context to use, or {@code null} for the merged current context
   * @throws IllegalArgumentException if a file cannot be read, or the files have no such context
   *     (the message lists the contexts they have)
   */
  public static KubeClients fromKubeconfig(List<Path> kubeconfigs, @Nullable String context) {
    List<Path> files = List.copyOf(requireNonNull(kubeconfigs, "kubeconfigs"));
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no kubeconfig file given");
    }
    String name = Kubeconfigs.describe(files);
    Kubeconfigs.Parsed parsed = Kubeconfigs.read(files);
    KubeConfig config = parsed.config();
    if (context != null && !config.setContext(context)) {
      throw new IllegalArgumentException(
          "kubeconfig "
              + name
              + " has no context "
              + quote(context)
              + "; its contexts are "
              + Kubeconfigs.contexts(config));
    }
    String current = config.getCurrentContext();
    if (current == null || current.isEmpty()) {
      throw new IllegalArgumentException(
          "kubeconfig "
              + name
              + " names no current context; pass one of "
              + Kubeconfigs.contexts(config));
    }
    // Each client gets a configuration of its own: building one may refresh its credentials. The
    // files are read once, now; the watch client is built from its copy when first needed.
    ApiClient api = KubeconfigClients.build(parsed.config(current), name, DEFAULT_READ_TIMEOUT);
    KubeConfig watchConfig = parsed.config(current);
    return wrap(
        api,
        () -> KubeconfigClients.build(watchConfig, name, Duration.ZERO),
        current,
        config.getNamespace());
  }

  /**
   * The context names of kubeconfig files (one, or a {@code $KUBECONFIG} list, merged as {@link
   * #fromKubeconfig(List, String)} merges them), in the order the files give them.
   *
   * @throws IllegalArgumentException if a file cannot be read
   */
  public static List<String> contextNames(List<Path> kubeconfigs) {
    List<Path> files = List.copyOf(requireNonNull(kubeconfigs, "kubeconfigs"));
    if (files.isEmpty()) {
      return List.of();
    }
    return Kubeconfigs.contexts(Kubeconfigs.load(files));
  }

  /**
   * Clients from the service account of the pod this code runs in.
   *
   * @throws IllegalStateException if this is not running in a pod (no service host in the
   *     environment, no service account files)
   */
  public static KubeClients inCluster() {
    String host = System.getenv("KUBERNETES_SERVICE_HOST");
    String port = System.getenv("KUBERNETES_SERVICE_PORT");
    if (host == null || host.isEmpty() || port == null || port.isEmpty()) {
      throw new IllegalStateException(
          "not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
    }
    try {
      ApiClient api = ClientBuilder.cluster().setReadTimeout(DEFAULT_READ_TIMEOUT).build();
      return wrap(api, KubeClients::inClusterWatchClient, "in-cluster", podNamespace());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot read the in-cluster service account configuration: " + e.getMessage(), e);
    }
  }

  /**
   * Clients around a caller's {@link ApiClient}, used for requests and watches alike. Capstan adds
   * its request counter to the client's HTTP client (so the caller's own requests on it are counted
   * too) and does not change anything else. Watches restart when the client's read timeout cuts
   * them, so a client without a read timeout costs fewer requests.
   *
   * @param client the client
   * @param context a name for the context ({@link #context()}); may be empty
   */
  public static KubeClients fromApiClient(ApiClient client, String context) {
    requireNonNull(client, "client");
    requireNonNull(context, "context");
    RequestCounter counter = new RequestCounter();
    Retries retries = defaultRetries();
    count(client, counter, retries);
    return new KubeClients(client, () -> client, counter, retries, context, null);
  }

  private static ApiClient inClusterWatchClient() {
    try {
      return ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the in-cluster watch client", e);
    }
  }

  /** The namespace of the pod's service account, or null when it cannot be read. */
  private static @Nullable String podNamespace() {
    try {
      return Files.readString(Path.of(IN_CLUSTER_NAMESPACE), UTF_8).strip();
    } catch (IOException e) {
      return null;
    }
  }

  private static KubeClients wrap(
      ApiClient api, Supplier<ApiClient> watch, String context, @Nullable String namespace) {
    RequestCounter counter = new RequestCounter();
    Retries retries = defaultRetries();
    count(api, counter, retries);
    return new KubeClients(
        api,
        () -> {
          ApiClient w = watch.get();
          count(w, counter, retries);
          return w;
        },
        counter,
        retries,
        context,
        namespace);
  }

  /** Retries outside the counter: every attempt is counted. */
  private static void count(ApiClient client, RequestCounter counter, Retries retries) {
    client.setHttpClient(
        client
            .getHttpClient()
            .newBuilder()
            .addInterceptor(retries)
            .addInterceptor(counter.interceptor())
            .build());
  }

  private static Retries defaultRetries() {
    return new Retries(Backoff.defaults(), Sleeper.system(), (r, a, d, why) -> {});
  }

  /**
   * Hears of every retried request. Requests that fail for a reason that passes (connection refused
   * or reset, timeouts, 429, 502/503/504, etcd leader changes) are retried with capped exponential
   * backoff and jitter (200 ms doubling to 5 s, at most 10 tries within 30 s of pauses); see
   * ARCHITECTURE.md, "Leases and retries".
   */
  @FunctionalInterface
  public interface RetryListener {
    /**
     * A request is about to be retried.
     *
     * @param request e.g. {@code PUT secrets shop/sh.capstan.release.v1.web.v2}
     * @param attempt the number of the coming attempt (2 for the first retry)
     * @param delay the pause before it
     * @param reason why the last attempt failed, e.g. {@code connection refused (...)}
     */
    void retrying(String request, int attempt, Duration delay, String reason);
  }

  /** Sets who hears of retried requests (default: nobody); returns this. */
  public KubeClients onRetry(RetryListener listener) {
    requireNonNull(listener, "listener");
    retries.listener(listener::retrying);
    return this;
  }

  /**
   * Clients that act as a service account: every request these clients send carries {@code
   * Impersonate-User: system:serviceaccount:NAMESPACE:NAME}, so the API server authorizes it with
   * that account's rights and nothing more (the user of these clients needs only {@code
   * impersonate} on {@code serviceaccounts}; the API server adds the account's groups itself, so no
   * right to impersonate groups is needed). They share this object's connections, request counter
   * and retries; the watch client is built on first use, as here.
   *
   * @param namespace the account's namespace
   * @param name the account's name
   * @throws IllegalArgumentException when either is not a DNS-1123 name of at most 253 characters
   */
  public KubeClients asServiceAccount(String namespace, String name) {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    for (String part : List.of(namespace, name)) {
      if (!DNS_NAME.matcher(part).matches() || part.length() > 253) {
        throw new IllegalArgumentException(
            "a service account's namespace and name must be DNS-1123 names of at most 253"
                + " characters: "
                + quote(part));
      }
    }
    String user = "system:serviceaccount:" + namespace + ":" + name;
    okhttp3.Interceptor as =
        chain -> chain.proceed(chain.request().newBuilder().header(IMPERSONATE_USER, user).build());
    return new KubeClients(
        impersonating(api, as),
        () -> impersonating(watchClient(), as),
        counter,
        retries,
        context,
        this.namespace);
  }

  /** The header of an impersonated request's user. */
  static final String IMPERSONATE_USER = "Impersonate-User";

  private static final java.util.regex.Pattern DNS_NAME =
      java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /**
   * A client like {@code original} (its HTTP client, so its connections, TLS settings, counter and
   * retries; its base path, JSON and token) whose every request also passes {@code as}.
   */
  private static ApiClient impersonating(ApiClient original, okhttp3.Interceptor as) {
    ApiClient copy =
        new ApiClient(original.getHttpClient().newBuilder().addInterceptor(as).build());
    copy.setBasePath(original.getBasePath());
    copy.setJSON(original.getJSON());
    original
        .getAuthentications()
        .forEach(
            (key, auth) -> {
              io.kubernetes.client.openapi.auth.Authentication to = copy.getAuthentication(key);
              if (auth instanceof io.kubernetes.client.openapi.auth.ApiKeyAuth from
                  && to instanceof io.kubernetes.client.openapi.auth.ApiKeyAuth into) {
                into.setApiKey(from.getApiKey());
                into.setApiKeyPrefix(from.getApiKeyPrefix());
              }
            });
    return copy;
  }

  /** The client for requests; share it, but do not change its settings. */
  public ApiClient apiClient() {
    return api;
  }

  /** The counter of every request these clients sent. */
  public RequestCounter requests() {
    return counter;
  }

  /**
   * The client for watches and informers: no read timeout when this class built it (a watch may
   * stay quiet for minutes), counted and retried as {@link #apiClient()} is; built on first use.
   * Share it, but do not change its settings.
   */
  public ApiClient watchClient() {
    ApiClient w = watchApi;
    if (w == null) {
      synchronized (this) {
        w = watchApi;
        if (w == null) {
          w = watchFactory.get();
          watchApi = w;
        }
      }
    }
    return w;
  }

  /**
   * Closes the connections of the clients this class built (and of a caller's client it wraps):
   * idle pooled connections, and the dispatcher's threads. For a process about to exit: the JVM's
   * exit waits up to 300 ms while a thread sits in native code, as an HTTP/2 connection's reader
   * does in its socket read until the connection closes. Requests after this open new connections.
   */
  public void closeConnections() {
    java.util.Set<okhttp3.OkHttpClient> clients = new java.util.LinkedHashSet<>();
    clients.add(api.getHttpClient());
    ApiClient w = watchApi;
    if (w != null) {
      clients.add(w.getHttpClient());
    }
    for (okhttp3.OkHttpClient c : clients) {
      c.dispatcher().cancelAll();
      c.connectionPool().evictAll();
    }
  }

  /** The kubeconfig context these clients use ({@code in-cluster} inside a pod). */
  public String context() {
    return context;
  }

  /**
   * The namespace the kubeconfig context names ({@code namespace:}), which kubectl and helm use
   * when a command names none; inside a pod, the pod's namespace. Empty when there is none, or for
   * {@link #fromApiClient clients around a caller's client}.
   */
  public Optional<String> namespace() {
    return Optional.ofNullable(namespace);
  }

  /** The API server's URL. */
  public String server() {
    return api.getBasePath();
  }

  /**
   * The API server's version ({@code GET /version}, which any authenticated client may read, e.g.
   * {@code v1.37.2}), asked once and never retried: for a health check, which must answer at once
   * and asks again later.
   *
   * @throws ClusterException if the API server did not answer, or refused (its HTTP status)
   */
  public String serverVersion() {
    try {
      okhttp3.Call call = new VersionApi(api).getCode().buildCall(null);
      okhttp3.Call once =
          api.getHttpClient()
              .newCall(call.request().newBuilder().tag(Retries.Once.class, Retries.ONCE).build());
      VersionInfo version = api.<VersionInfo>execute(once, VersionInfo.class).getData();
      return version.getGitVersion();
    } catch (ApiException e) {
      throw KubeFailure.of(e).toException("get", "version", null, null);
    }
  }

  /**
   * The cluster's id: the UID of the {@code kube-system} namespace, read once (one {@code GET
   * namespaces}); empty when that namespace cannot be read (for example when RBAC forbids it), and
   * read again next time. {@code KubernetesPlatformCluster.info()} is the context, server and id
   * together, as the update engine takes them.
   */
  public String clusterId() {
    String id = clusterId;
    if (id == null) {
      id = readClusterId();
      if (!id.isEmpty()) {
        clusterId = id;
      }
    }
    return id;
  }

  private String readClusterId() {
    try {
      V1Namespace ns = new CoreV1Api(api).readNamespace("kube-system").execute();
      String uid = ns.getMetadata() == null ? null : ns.getMetadata().getUid();
      return uid == null ? "" : uid;
    } catch (ApiException e) {
      if (e.getCause() instanceof InterruptedIOException
          && !(e.getCause() instanceof SocketTimeoutException)) {
        Thread.currentThread().interrupt();
      }
      return "";
    }
  }

  private static String quote(String s) {
    return dev.capstan.common.Escapes.quote(s);
  }
}
