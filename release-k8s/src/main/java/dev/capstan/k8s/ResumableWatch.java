package dev.capstan.k8s;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One WATCH of one resource (in one namespace, with its selectors) kept going until it is stopped
 * or its deadline passes, missing nothing: it opens from the {@code resourceVersion} it is given
 * (the LIST's that came before it, so the events between that LIST and the WATCH arrive), reopens
 * from the version of the last event it handed on when the server ends it at its timeout, and LISTs
 * again and resumes from that list's version when a resume is impossible: a {@code 410 Gone} (the
 * version is older than the server keeps), a watch that ends before its timeout or breaks (a
 * dropped connection, an API server restart), or one that ended before any event gave it a version.
 * The objects a new LIST returned are handed on first, as {@link Update.Relisted}, so the consumer
 * can tell what disappeared meanwhile. Watches without a starting version begin with the current
 * objects as {@code ADDED} events (the API server's "current state, then changes").
 *
 * <p>Runs on its own daemon thread ({@link #start}); the consumer is called on that thread. A
 * failure it cannot recover from (a refused request, {@value #FAILURES} broken watches in a row) is
 * handed on as {@link Update.Failed}, and the watch ends.
 */
final class ResumableWatch<T extends KubernetesObject> {
  /** The longest WATCH asked for; a longer wait reopens it. */
  static final int MAX_WATCH_SECONDS = 300;

  /** Broken watches or ERROR events in a row before giving up. */
  static final int FAILURES = 5;

  /** How much earlier than its timeout a WATCH may end and still count as ended by the timeout. */
  static final long EARLY_SLACK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The pause before reopening a broken or early-ended watch. */
  static final long PAUSE_MILLIS = 200;

  /** Where the objects come from. */
  interface Source<T> {
    /** One LIST (all its pages): the objects and the list's resourceVersion. */
    ResourceApi.Listing<T> list();

    /**
     * Opens a WATCH.
     *
     * @param resourceVersion where to start; {@code null}: the current objects first
     * @param timeoutSeconds when the server is to end it
     */
    Watchable<T> watch(@Nullable String resourceVersion, int timeoutSeconds);

    /** The port's exception for a failure of this source that the watch gives up on. */
    RuntimeException failure(RuntimeException e);

    /**
     * The source of {@code api}'s objects in {@code namespace} with the selectors: {@code list}
     * makes the LIST, a WATCH goes to {@code api} with the same selectors, and failures are
     * translated as {@code api} translates its own.
     */
    static <T extends KubernetesObject> Source<T> of(
        ResourceApi<T, ?> api,
        @Nullable String namespace,
        @Nullable String labelSelector,
        @Nullable String fieldSelector,
        java.util.function.Supplier<ResourceApi.Listing<T>> list) {
      return new Source<>() {
        @Override
        public ResourceApi.Listing<T> list() {
          return list.get();
        }

        @Override
        public Watchable<T> watch(@Nullable String resourceVersion, int timeoutSeconds) {
          ListOptions options = new ListOptions().timeoutSeconds(timeoutSeconds);
          if (resourceVersion != null) {
            options.setResourceVersion(resourceVersion);
          }
          if (fieldSelector != null) {
            options.setFieldSelector(fieldSelector);
          }
          if (labelSelector != null) {
            options.setLabelSelector(labelSelector);
          }
          return api.watch(namespace, options);
        }

        /** A watch's own I/O errors arrive untranslated. */
        @Override
        public RuntimeException failure(RuntimeException e) {
          if (e instanceof dev.capstan.common.ClusterException) {
            return e;
          }
          KubeFailure f = KubeFailure.ofWrapped(e);
          return api.failure(
              "watch",
              namespace,
              null,
              f != null
                  ? f
                  : new KubeFailure(
                      0, "", e.getClass().getSimpleName() + ": " + e.getMessage(), null));
        }
      };
    }
  }

  /** What the watch hands on, in the order it happened. */
  sealed interface Update<T> permits Update.Relisted, Update.Changed, Update.Failed {
    /** The objects a new LIST returned: all there are now, replacing what was known. */
    record Relisted<T>(List<T> items) implements Update<T> {
      public Relisted {
        items = List.copyOf(items);
      }
    }

    /** One event: {@code ADDED}, {@code MODIFIED} or {@code DELETED} (with its last state). */
    record Changed<T>(String type, T object) implements Update<T> {}

    /** The watch gave up. */
    record Failed<T>(RuntimeException failure) implements Update<T> {}
  }

  /** Pauses the watch's thread. */
  @FunctionalInterface
  interface Pause {
    /** Sleeps {@code millis}; {@code false} when interrupted (the watch then ends). */
    boolean sleep(long millis);
  }

  private final Source<T> source;
  private final long deadline;
  private final Consumer<Update<T>> sink;
  private final LongSupplier nanos;
  private final Pause pause;
  private final Thread thread;
  private volatile @Nullable String version;
  private volatile boolean stopped;
  private volatile @Nullable Watchable<T> current;

  /**
   * A watch on the system clock.
   *
   * @param name names the thread
   * @param from the resourceVersion to start from (a LIST's), or {@code null} for the current
   *     objects first
   * @param deadline {@link System#nanoTime} after which it stops
   */
  ResumableWatch(
      String name,
      Source<T> source,
      @Nullable String from,
      long deadline,
      Consumer<Update<T>> sink) {
    this(name, source, from, deadline, sink, System::nanoTime, ResumableWatch::sleep);
  }

  /** A watch on a given clock and pause (for tests, which call {@link #run} themselves). */
  ResumableWatch(
      String name,
      Source<T> source,
      @Nullable String from,
      long deadline,
      Consumer<Update<T>> sink,
      LongSupplier nanos,
      Pause pause) {
    this.source = source;
    this.version = from;
    this.deadline = deadline;
    this.sink = sink;
    this.nanos = nanos;
    this.pause = pause;
    this.thread = new Thread(this::run, "capstan-watch-" + name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  void stop() {
    stopped = true;
    close(current);
    thread.interrupt();
  }

  /** The resourceVersion the next WATCH would start from. */
  @Nullable String version() {
    return version;
  }

  /** Watches until stopped, past the deadline, or given up. */
  void run() {
    boolean relist = false;
    int failures = 0;
    while (!stopped) {
      long left = deadline - nanos.getAsLong();
      if (left <= 0) {
        return;
      }
      Watchable<T> watch = null;
      try {
        if (relist) {
          ResourceApi.Listing<T> listed = source.list();
          if (stopped) {
            return;
          }
          sink.accept(new Update.Relisted<>(listed.items()));
          version = listed.resourceVersion();
          relist = false;
        }
        int seconds = (int) Math.min(MAX_WATCH_SECONDS, TimeUnit.NANOSECONDS.toSeconds(left) + 1);
        long opened = nanos.getAsLong();
        watch = source.watch(version, seconds);
        current = watch;
        if (stopped) {
          return;
        }
        boolean error = false;
        boolean gone = false;
        boolean events = false;
        for (Watch.Response<T> r : watch) {
          if ("ERROR".equals(r.type)) {
            error = true;
            gone = code(r.status) == 410;
            break;
          }
          if (r.object == null) {
            continue;
          }
          V1ObjectMeta meta = r.object.getMetadata();
          String rv = meta == null ? null : meta.getResourceVersion();
          if (rv != null && !rv.isEmpty()) {
            version = rv;
          }
          events = true;
          failures = 0;
          if (!"BOOKMARK".equals(r.type)) {
            sink.accept(new Update.Changed<>(r.type, r.object));
          }
        }
        if (stopped) {
          return;
        }
        if (error) {
          if (!gone && ++failures >= FAILURES) {
            sink.accept(
                new Update.Failed<>(
                    source.failure(
                        new IllegalStateException(
                            "the watch sent " + FAILURES + " ERROR events in a row"))));
            return;
          }
          relist = true;
          continue;
        }
        long ran = nanos.getAsLong() - opened;
        boolean early = ran < TimeUnit.SECONDS.toNanos(seconds) - EARLY_SLACK_NANOS;
        if (early && nanos.getAsLong() < deadline) {
          relist = true;
          if (!events && !pause.sleep(PAUSE_MILLIS)) {
            return;
          }
        } else if (version == null) {
          relist = true;
        }
      } catch (RuntimeException e) {
        if (stopped) {
          return;
        }
        if (status(e) == 410) {
          relist = true;
          continue;
        }
        if (!(e.getCause() instanceof IOException) || ++failures >= FAILURES) {
          sink.accept(new Update.Failed<>(source.failure(e)));
          return;
        }
        relist = true;
        if (!pause.sleep(PAUSE_MILLIS)) {
          return;
        }
      } finally {
        close(watch);
      }
    }
  }

  private static int code(@Nullable V1Status status) {
    Integer code = status == null ? null : status.getCode();
    return code == null ? 0 : code;
  }

  /** The HTTP status of a translated failure, 0 when it has none. */
  private static int status(RuntimeException e) {
    if (e instanceof dev.capstan.common.ClusterException c) {
      return c.status();
    }
    if (e instanceof dev.capstan.common.ClusterException c) {
      return c.status();
    }
    return 0;
  }

  /** {@link Thread#sleep}, {@code false} (the interrupt flag kept) when interrupted. */
  static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void close(@Nullable Watchable<?> watch) {
    if (watch != null) {
      try {
        watch.close();
      } catch (IOException | RuntimeException ignored) {
        // closing a dead connection
      }
    }
  }
}
