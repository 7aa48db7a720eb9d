package dev.capstan.k8s;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Counts the API requests a {@link KubeClients} sends, by verb and resource: {@code LIST secrets},
 * {@code PATCH deployments}, {@code GET leases}, {@code WATCH pods}, {@code DELETECOLLECTION
 * secrets}. Tests and benchmarks read it to measure the requests an operation costs; the adapters
 * never depend on it. Thread-safe.
 *
 * <p>Verbs follow the API server's own naming: a {@code GET} of a collection is {@code LIST} (or
 * {@code WATCH} with {@code watch=true}), {@code POST} is {@code CREATE}, {@code PUT} is {@code
 * UPDATE}, every {@code PATCH} (server-side apply included) is {@code PATCH}, a {@code DELETE} of a
 * collection is {@code DELETECOLLECTION}. Subresources are named {@code deployments/status}. A
 * server-side dry run ({@code dryRun=All}) persists nothing and is counted as {@code DRYRUN-PATCH},
 * {@code DRYRUN-CREATE}, ..., never as a write.
 *
 * <p>Besides the counts it keeps the last {@value #LOG_CAPACITY} requests in order (verb, resource
 * and object, never a body), so a test can check the order of writes.
 *
 * <p>Background requests are counted apart: those sent while renewing an operation lease (a GET and
 * an UPDATE of the Lease every renewal period of a long operation, see {@link KubernetesStore}),
 * and a cast's reads of a request to yield its lease (a GET at most once a second from one second
 * in). How many there are depends on how long an operation takes, not on what it does, so {@link
 * #counts()}, {@link #total()} and {@link #log()} leave them out and {@link #backgroundCounts()}
 * has them. They are told apart by the thread that sends them: every request a thread sends inside
 * {@link #background(Supplier)} is one.
 */
public final class RequestCounter {
  /** How many requests {@link #log()} keeps. */
  public static final int LOG_CAPACITY = 10_000;

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> background = new ConcurrentHashMap<>();
  private final Deque<String> log = new ArrayDeque<>();
  private final Deque<String> backgroundLog = new ArrayDeque<>();
  private final ThreadLocal<Boolean> inBackground = ThreadLocal.withInitial(() -> false);

  RequestCounter() {}

  /** The interceptor that feeds this counter; add it to an OkHttp client. */
  Interceptor interceptor() {
    return this::intercept;
  }

  private Response intercept(Interceptor.Chain chain) throws IOException {
    record(chain.request());
    return chain.proceed(chain.request());
  }

  void record(Request request) {
    Call call = describe(request.method(), request.url());
    boolean inBack = inBackground.get();
    (inBack ? background : counts).computeIfAbsent(call.key(), k -> new LongAdder()).increment();
    Deque<String> into = inBack ? backgroundLog : log;
    synchronized (into) {
      into.addLast(call.line());
      if (into.size() > LOG_CAPACITY) {
        into.removeFirst();
      }
    }
  }

  /**
   * Runs {@code work} and returns what it returns, counting every request this thread sends
   * meanwhile as a background request ({@link #backgroundCounts()}). Used for lease renewals.
   */
  <T> T background(Supplier<T> work) {
    if (inBackground.get()) {
      return work.get();
    }
    inBackground.set(true);
    try {
      return work.get();
    } finally {
      inBackground.set(false);
    }
  }

  /**
   * The number of requests of each kind since creation or {@link #reset()}, sorted by key, e.g.
   * {@code {"CREATE leases": 1, "LIST secrets": 2}}; background requests are left out.
   */
  public SortedMap<String, Long> counts() {
    return snapshot(counts);
  }

  /**
   * The background requests (lease renewals) since creation or {@link #reset()}, by kind, e.g.
   * {@code {"UPDATE leases": 2}}. How many there are depends on time.
   */
  public SortedMap<String, Long> backgroundCounts() {
    return snapshot(background);
  }

  private static SortedMap<String, Long> snapshot(Map<String, LongAdder> counts) {
    SortedMap<String, Long> copy = new TreeMap<>();
    counts.forEach((k, v) -> copy.put(k, v.sum()));
    copy.values().removeIf(v -> v == 0);
    return Collections.unmodifiableSortedMap(copy);
  }

  /** The number of requests of one kind, e.g. {@code count("LIST secrets")}. */
  public long count(String verbAndResource) {
    LongAdder adder = counts.get(verbAndResource);
    return adder == null ? 0 : adder.sum();
  }

  /** The number of requests of every kind, background requests left out. */
  public long total() {
    return counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /**
   * The requests in order, oldest first, at most {@value #LOG_CAPACITY}: {@code "PATCH deployments
   * shop/web"}, {@code "LIST secrets shop"}, {@code "GET namespaces kube-system"}.
   */
  public List<String> log() {
    synchronized (log) {
      return List.copyOf(new ArrayList<>(log));
    }
  }

  /** The background requests (lease renewals) in order, as {@link #log()} has the others. */
  public List<String> backgroundLog() {
    synchronized (backgroundLog) {
      return List.copyOf(new ArrayList<>(backgroundLog));
    }
  }

  /** Forgets every count, background counts included, and the log. */
  public void reset() {
    counts.clear();
    background.clear();
    synchronized (log) {
      log.clear();
    }
    synchronized (backgroundLog) {
      backgroundLog.clear();
    }
  }

  @Override
  public String toString() {
    return "RequestCounter" + counts() + " background" + backgroundCounts();
  }

  /**
   * The verb and resource of one request, and the object it names.
   *
   * @param verb e.g. {@code LIST}
   * @param resource e.g. {@code secrets} or {@code deployments/status}
   * @param namespace the namespace, empty for cluster-scoped requests
   * @param name the object's name, empty for collections
   */
  record Call(String verb, String resource, String namespace, String name) {
    String key() {
      return verb + " " + resource;
    }

    String line() {
      String object =
          namespace.isEmpty() ? name : name.isEmpty() ? namespace : namespace + "/" + name;
      return object.isEmpty() ? key() : key() + " " + object;
    }
  }

  /** Parses {@code /api/v1/...} and {@code /apis/GROUP/VERSION/...} paths into a call. */
  static Call describe(String method, HttpUrl url) {
    List<String> segments = url.pathSegments();
    int start;
    if (!segments.isEmpty() && segments.get(0).equals("api")) {
      start = 2;
    } else if (!segments.isEmpty() && segments.get(0).equals("apis")) {
      start = 3;
    } else {
      return new Call(method, url.encodedPath(), "", "");
    }
    List<String> rest =
        segments.size() > start ? segments.subList(start, segments.size()) : List.of();
    String namespace = "";
    if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
      namespace = rest.get(1);
      rest = rest.subList(2, rest.size());
    }
    if (rest.isEmpty()) {
      return new Call(method, url.encodedPath(), "", "");
    }
    String resource = rest.get(0);
    String name = rest.size() > 1 ? rest.get(1) : "";
    if (rest.size() > 2) {
      resource = resource + "/" + String.join("/", rest.subList(2, rest.size()));
    }
    boolean collection = name.isEmpty();
    String verb =
        switch (method) {
          case "GET" ->
              "true".equals(url.queryParameter("watch")) ? "WATCH" : collection ? "LIST" : "GET";
          case "POST" -> "CREATE";
          case "PUT" -> "UPDATE";
          case "DELETE" -> collection ? "DELETECOLLECTION" : "DELETE";
          default -> method;
        };
    if (url.queryParameter("dryRun") != null) {
      verb = "DRYRUN-" + verb;
    }
    return new Call(verb, resource, namespace, name);
  }
}
