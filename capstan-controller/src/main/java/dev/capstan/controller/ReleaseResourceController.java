package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller of {@code Release} resources ({@code releases.capstan.dev}): keeps every Release
 * it sees cast. It watches Releases, and the ConfigMaps and Secrets they read manifests from,
 * through client-java's informers; a change of a Release's spec or of one of its sources, and every
 * {@code spec.interval}, puts the Release on a work queue; each of {@code workers} threads takes
 * one Release at a time (never one Release on two threads) and plans it, casts the plan when it
 * changes something, and reports the outcome in the Release's status. An unchanged release costs
 * reads only: no write, no status update. Deleting a Release uninstalls its release first (through
 * the finalizer {@value ReleaseResource#FINALIZER}).
 *
 * <p>With leader election, only the replica that holds the {@code coordination.k8s.io} Lease
 * reconciles; the others keep their caches warm and take over when the leader stops renewing.
 * Whoever reconciles, each cast holds its release's own lease, so no release is ever cast by two
 * replicas at once.
 *
 * <pre>{@code
 * try (ReleaseResourceController c =
 *     ReleaseResourceController.builder(KubeClients.inCluster()).workers(4).build()) {
 *   c.start();
 *   c.awaitTermination();
 * }
 * }</pre>
 */
public final class ReleaseResourceController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReleaseResourceController.class);

  /**
   * Backoff of a Release whose reconcile failed: 1 s doubling up to its interval (at most 5 min).
   */
  static final Duration BASE_BACKOFF = Duration.ofSeconds(1);

  static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  private final Settings settings;
  private final ExecutorService informerThreads;
  private final Informers informers;
  private final KubernetesReleaseObjects objects;
  private final ReleaseReconciler reconciler;
  private final WorkQueue<ReleaseKey> queue = WorkQueue.create(BASE_BACKOFF, MAX_BACKOFF);
  private final List<Thread> workers = new ArrayList<>();
  private final AtomicBoolean leading = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final java.util.concurrent.CountDownLatch terminated =
      new java.util.concurrent.CountDownLatch(1);
  private final AtomicInteger reconciles = new AtomicInteger();
  private final @Nullable LeaderElection election;

  private record Settings(
      KubeClients clients,
      int workers,
      @Nullable String selector,
      String identity,
      @Nullable String leaseNamespace,
      String leaseName,
      Duration leaseDuration,
      ControllerListener listener,
      Consumer<ReleaseControllerBuilder> engine,
      Clock clock) {}

  private ReleaseResourceController(Settings settings) {
    this.settings = settings;
    this.informerThreads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "capstan-controller-informer");
              t.setDaemon(true);
              return t;
            });
    this.informers =
        new Informers(settings.clients().watchClient(), settings.selector(), informerThreads);
    this.objects =
        new KubernetesReleaseObjects(
            informers.releases(),
            settings.clients().apiClient(),
            settings.clock(),
            settings.identity());
    KubernetesOrchestrator orchestrator = new KubernetesOrchestrator(settings.clients());
    KubernetesStore store = new KubernetesStore(settings.clients());
    Map<Integer, ReleaseController> engines = new ConcurrentHashMap<>();
    this.reconciler =
        new ReleaseReconciler(
            objects,
            informers,
            history ->
                engines.computeIfAbsent(
                    history,
                    h -> {
                      ReleaseControllerBuilder b =
                          ReleaseController.builder(orchestrator, store)
                              .holder(settings.identity())
                              .maxHistory(h);
                      settings.engine().accept(b);
                      return b.build();
                    }),
            settings.clock(),
            settings.listener());
    String leaseNamespace = settings.leaseNamespace();
    this.election =
        leaseNamespace == null
            ? null
            : new LeaderElection(
                settings.clients().apiClient(),
                leaseNamespace,
                settings.leaseName(),
                settings.identity(),
                new LeaderElection.Timing(
                    settings.leaseDuration(),
                    settings.leaseDuration().dividedBy(3),
                    settings.leaseDuration().dividedBy(6)));
    wire();
  }

  /** A builder of a controller on {@code clients}. */
  public static Builder builder(KubeClients clients) {
    return new Builder(clients);
  }

  /** Puts Releases on the queue when they, what they depend on or their sources change. */
  private void wire() {
    informers.onRelease(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(DynamicKubernetesObject obj) {
            ReleaseResource r = KubernetesReleaseObjects.resource(obj);
            queue.add(r.key());
            dependentsOf(r.key());
          }

          @Override
          public void onUpdate(DynamicKubernetesObject oldObj, DynamicKubernetesObject newObj) {
            ReleaseResource before = KubernetesReleaseObjects.resource(oldObj);
            ReleaseResource after = KubernetesReleaseObjects.resource(newObj);
            if (before.resourceVersion().equals(after.resourceVersion())) {
              return;
            }
            // its own writes (the status, the finalizer) do not make a Release reconcile again: a
            // finalizer removed by hand comes back at the next interval
            if (before.generation() != after.generation()
                || before.deleting() != after.deleting()) {
              queue.add(after.key());
            }
            if (before.ready() != after.ready()) {
              dependentsOf(after.key());
            }
          }

          @Override
          public void onDelete(DynamicKubernetesObject obj, boolean deletedFinalStateUnknown) {
            ReleaseKey key = KubernetesReleaseObjects.resource(obj).key();
            queue.add(key);
            dependentsOf(key);
          }
        });
    informers.onSource(change -> informers.readers(change).forEach(queue::add));
  }

  private void dependentsOf(ReleaseKey key) {
    informers.dependents(key).forEach(queue::add);
  }

  /**
   * Starts watching, and reconciling once the caches hold their first lists (and, with leader
   * election, once this replica leads). Returns at once.
   */
  public void start() {
    informers.start();
    for (int i = 0; i < settings.workers(); i++) {
      Thread t = new Thread(this::work, "capstan-controller-worker-" + i);
      t.setDaemon(true);
      workers.add(t);
    }
    Thread starter =
        new Thread(
            () -> {
              try {
                while (!closed.get() && !informers.awaitSynced(Duration.ofSeconds(1))) {
                  // keeps waiting: the API server may be slow to answer the first lists
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
              if (closed.get()) {
                return;
              }
              workers.forEach(Thread::start);
              LeaderElection e = election;
              if (e == null) {
                startLeading();
              } else {
                e.start(
                    new LeaderElection.Listener() {
                      @Override
                      public void startedLeading() {
                        startLeading();
                      }

                      @Override
                      public void stoppedLeading() {
                        leading.set(false);
                        LOG.info("{} stopped leading", settings.identity());
                      }
                    });
              }
            },
            "capstan-controller-start");
    starter.setDaemon(true);
    starter.start();
  }

  private void startLeading() {
    leading.set(true);
    LOG.info("{} reconciles", settings.identity());
    for (ReleaseResource r : objects.list()) {
      queue.add(r.key());
    }
  }

  /** One worker: takes a Release, reconciles it, schedules what comes next. */
  private void work() {
    while (!closed.get()) {
      ReleaseKey key;
      try {
        if (!leading.get()) {
          Thread.sleep(100);
          continue;
        }
        key = queue.take(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        return;
      }
      if (key == null) {
        continue;
      }
      try {
        if (!leading.get()) {
          queue.add(key); // after done(): kept for the next leader's turn
          continue;
        }
        ReleaseReconciler.Next next = reconciler.reconcile(key);
        reconciles.incrementAndGet();
        schedule(key, next);
      } catch (RuntimeException e) {
        settings
            .listener()
            .outcome(key, "failed: " + StatusReport.oneLine(String.valueOf(e.getMessage())));
        schedule(key, ReleaseReconciler.Next.retry(MAX_BACKOFF));
      } finally {
        queue.done(key);
      }
    }
  }

  private void schedule(ReleaseKey key, ReleaseReconciler.Next next) {
    Duration after = next.after();
    if (next.retry()) {
      Duration backoff = queue.addRateLimited(key);
      if (after != null && backoff.compareTo(after) > 0) {
        queue.addAfter(key, after);
      }
      return;
    }
    queue.forget(key);
    if (after != null) {
      queue.addAfter(key, after);
    }
  }

  /** Whether this replica reconciles now (always, without leader election). */
  public boolean leading() {
    return leading.get();
  }

  /** How many reconciles this controller ran. */
  public int reconciles() {
    return reconciles.get();
  }

  /**
   * Blocks until {@link #close()} (called from another thread or a shutdown hook) has finished: the
   * workers stopped, the Lease given up, the watches closed.
   */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Stops: no new reconcile starts, the one under way on each worker finishes (up to 30 s), the
   * leader's Lease is given up so another replica takes over at once, and the watches close.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      queue.shutDown();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      for (Thread t : workers) {
        try {
          t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      leading.set(false);
      LeaderElection e = election;
      if (e != null) {
        e.close();
      }
      informers.stop();
      informerThreads.shutdownNow();
    } finally {
      terminated.countDown();
    }
  }

  /** How a {@link ReleaseResourceController} is set up. */
  public static final class Builder {
    private final KubeClients clients;
    private int workers = 4;
    private @Nullable String selector;
    private @Nullable String identity;
    private @Nullable String leaseNamespace;
    private String leaseName = "capstan-controller";
    private Duration leaseDuration = Duration.ofSeconds(15);
    private ControllerListener listener =
        (release, outcome) -> LOG.info("Release {}: {}", release, outcome);
    private Consumer<ReleaseControllerBuilder> engine = b -> {};
    private Clock clock = Clock.systemUTC();

    private Builder(KubeClients clients) {
      this.clients = requireNonNull(clients, "clients");
    }

    /** How many Releases are reconciled at once (default 4). */
    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1: " + workers);
      }
      this.workers = workers;
      return this;
    }

    /**
     * Reconciles only the Releases whose labels match {@code selector} (a Kubernetes label selector
     * such as {@code shard=a}), so that several controllers split a fleet.
     */
    public Builder selector(String selector) {
      this.selector = requireNonNull(selector, "selector");
      return this;
    }

    /**
     * Who this controller is in leases and Events (default: this host and process, as {@link
     * LeaseHolders#onThisHost()} names it).
     */
    public Builder identity(String identity) {
      this.identity = requireNonNull(identity, "identity");
      return this;
    }

    /**
     * Elects one leader among the replicas through a Lease in {@code namespace} (named {@code
     * capstan-controller} unless {@link #leaseName} says otherwise); without it every replica
     * reconciles.
     */
    public Builder leaderElection(String namespace) {
      this.leaseNamespace = requireNonNull(namespace, "namespace");
      return this;
    }

    /** The name of the leader election's Lease. */
    public Builder leaseName(String leaseName) {
      this.leaseName = requireNonNull(leaseName, "leaseName");
      return this;
    }

    /** How long the leader's Lease lasts without renewal (default 15 s). */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = requireNonNull(leaseDuration, "leaseDuration");
      return this;
    }

    /** Hears of every outcome (default: a log line through SLF4J at INFO). */
    public Builder listener(ControllerListener listener) {
      this.listener = requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets up each release engine further (listeners for metrics or traces, lease timings); the
     * controller sets the holder and the number of revisions kept.
     */
    public Builder engine(Consumer<ReleaseControllerBuilder> engine) {
      this.engine = requireNonNull(engine, "engine");
      return this;
    }

    /** The clock of condition transitions and Events (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = requireNonNull(clock, "clock");
      return this;
    }

    /** The controller; {@link #start()} it. */
    public ReleaseResourceController build() {
      String id = identity != null ? identity : LeaseHolders.onThisHost().get();
      return new ReleaseResourceController(
          new Settings(
              clients,
              workers,
              selector,
              Objects.requireNonNull(id),
              leaseNamespace,
              leaseName,
              leaseDuration,
              listener,
              engine,
              clock));
    }
  }
}
