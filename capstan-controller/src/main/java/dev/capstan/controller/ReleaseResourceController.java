package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.model.DeleteGate;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
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
 * the finalizer {@value ReleaseResource#FINALIZER}). A manual reconcile request (the annotation
 * {@value ReleaseResource#RECONCILE_REQUEST}, or Flux's) puts a Release on the queue at once.
 *
 * <p>Each Release is cast with the rights its {@link Tenancy} gives it: as the service account it
 * names, by impersonation, for everything the engine does for it; the controller's own rights serve
 * the Release resource itself (its status, finalizer and Events) and the informers. A failing
 * Release is tried again after as long as it has been failing ({@link RetrySchedule}), at most its
 * interval, and that survives a restart. Each Release may take three quarters of the heap over the
 * workers while it is read and cast ({@link #heapPerRelease()}): a tenant's Release estimated to
 * need more is refused alone, before anything is written, rather than running the heap out for
 * every tenant.
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

  private final Settings settings;
  private final ExecutorService informerThreads;
  private final Informers informers;
  private final KubernetesReleaseObjects objects;
  private final ReconcileLoop loop;
  private final KubernetesEngines engines;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final java.util.concurrent.CountDownLatch terminated =
      new java.util.concurrent.CountDownLatch(1);
  private final AtomicBoolean started = new AtomicBoolean();
  private final @Nullable LeaderElection election;
  private volatile @Nullable ControllerEndpoints endpoints;
  private final ReleaseHeap heap;

  private record Settings(
      KubeClients clients,
      int workers,
      int workersPerNamespace,
      @Nullable String selector,
      String identity,
      @Nullable String leaseNamespace,
      String leaseName,
      Duration leaseDuration,
      ControllerListener listener,
      Consumer<ReleaseControllerBuilder> engine,
      Clock clock,
      Tenancy tenancy,
      DeleteGate deletePolicy,
      ControllerObserver observer,
      @Nullable InetSocketAddress endpoints,
      @Nullable Supplier<String> metrics,
      ChartRenderer charts) {}

  private ReleaseResourceController(Settings settings) {
    this.settings = settings;
    this.heap = ReleaseHeap.of(settings.workers());
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
    this.engines =
        new KubernetesEngines(
            settings.clients(),
            settings.identity(),
            settings.engine(),
            settings.charts(),
            heap.recordLimits());
    this.loop =
        new ReconcileLoop(
            new ReleaseReconciler(
                objects,
                engines,
                settings.tenancy(),
                settings.clock(),
                settings.listener(),
                settings.deletePolicy(),
                heap),
            objects,
            settings.listener(),
            settings.observer(),
            settings.clock(),
            settings.workers(),
            settings.workersPerNamespace());
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
            loop.add(r.key());
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
                || before.deleting() != after.deleting()
                || !Objects.equals(before.reconcileRequest(), after.reconcileRequest())) {
              loop.add(after.key());
            }
            if (before.ready() != after.ready()) {
              dependentsOf(after.key());
            }
          }

          @Override
          public void onDelete(DynamicKubernetesObject obj, boolean deletedFinalStateUnknown) {
            ReleaseKey key = KubernetesReleaseObjects.resource(obj).key();
            loop.add(key);
            dependentsOf(key);
          }
        });
    informers.onSource(change -> informers.readers(change).forEach(loop::add));
  }

  private void dependentsOf(ReleaseKey key) {
    informers.dependents(key).forEach(loop::add);
  }

  /**
   * Starts watching, and reconciling once the caches hold their first lists (and, with leader
   * election, once this replica leads); serves the endpoints at once, when an address was given.
   * Returns at once.
   *
   * @throws java.io.UncheckedIOException when the endpoints' address cannot be bound
   */
  public void start() {
    InetSocketAddress address = settings.endpoints();
    if (address != null) {
      endpoints =
          new ControllerEndpoints(address, () -> !closed.get(), this::ready, settings.metrics());
    }
    informers.start();
    started.set(true);
    settings.observer().started(loop.state());
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
              loop.start();
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
                        loop.follow();
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
    LOG.info("{} reconciles", settings.identity());
    loop.lead();
  }

  /**
   * The heap each Release may take while it is read and cast: three quarters of this JVM's heap
   * ({@link Runtime#maxMemory()}) over the workers. A Release whose manifests (or rendered chart)
   * would take more, estimated from their characters and nodes, is refused with the reason {@code
   * TooLarge} before anything is written.
   *
   * @return the bytes
   */
  public long heapPerRelease() {
    return heap.perRelease();
  }

  /**
   * Whether this controller is ready: started, not closed, and its caches hold their first lists (a
   * replica waiting for the leader's Lease is ready: it takes over at once).
   */
  public boolean ready() {
    return started.get() && !closed.get() && informers.synced();
  }

  /** The address the endpoints are served on, once started with one. */
  public java.util.Optional<InetSocketAddress> endpointsAddress() {
    ControllerEndpoints e = endpoints;
    return e == null ? java.util.Optional.empty() : java.util.Optional.of(e.address());
  }

  /** Whether this replica reconciles now (always, without leader election). */
  public boolean leading() {
    return loop.leading();
  }

  /** How many reconciles this controller ran. */
  public int reconciles() {
    return loop.reconciles();
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
      loop.stop(Duration.ofSeconds(30));
      LeaderElection e = election;
      if (e != null) {
        e.close();
      }
      informers.stop();
      informerThreads.shutdownNow();
      engines.close();
      ControllerEndpoints e2 = endpoints;
      if (e2 != null) {
        e2.close();
      }
    } finally {
      terminated.countDown();
    }
  }

  /** How a {@link ReleaseResourceController} is set up. */
  public static final class Builder {
    private final KubeClients clients;
    private int workers = 4;
    private @Nullable Integer workersPerNamespace;
    private @Nullable String selector;
    private @Nullable String identity;
    private @Nullable String leaseNamespace;
    private String leaseName = "capstan-controller";
    private Duration leaseDuration = Duration.ofSeconds(15);
    private ControllerListener listener =
        (release, outcome) -> LOG.info("Release {}: {}", release, outcome);
    private Consumer<ReleaseControllerBuilder> engine = b -> {};
    private Clock clock = Clock.systemUTC();
    private Tenancy tenancy = Tenancy.open();
    private DeleteGate deletePolicy = DeleteGate.defaults();
    private ControllerObserver observer = new ControllerObserver() {};
    private @Nullable InetSocketAddress endpoints;
    private @Nullable Supplier<String> metrics;
    private @Nullable ChartRenderer charts;

    private Builder(KubeClients clients) {
      this.clients = requireNonNull(clients, "clients");
    }

    /**
     * How many Releases are reconciled at once (default 4); each may take three quarters of the
     * heap over them ({@link ReleaseResourceController#heapPerRelease()}).
     */
    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1: " + workers);
      }
      this.workers = workers;
      return this;
    }

    /**
     * How many Releases of one namespace are reconciled at once (default: one fewer than {@link
     * #workers}, at least 1), so that one tenant's casts waiting long for health never take every
     * worker from the others.
     */
    public Builder workersPerNamespace(int workersPerNamespace) {
      if (workersPerNamespace < 1) {
        throw new IllegalArgumentException(
            "workersPerNamespace must be at least 1: " + workersPerNamespace);
      }
      this.workersPerNamespace = workersPerNamespace;
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

    /**
     * The destructive-change gate of every Release's casts: its protected kinds and delete budget
     * (default {@link DeleteGate#defaults()}); a Release approves objects by name in {@code
     * spec.options.approveDeletes}, and a plan the gate refuses is reported {@code Stalled} ({@code
     * DestructiveChangeRefused}) with nothing written.
     */
    public Builder deletePolicy(DeleteGate deletePolicy) {
      this.deletePolicy = requireNonNull(deletePolicy, "deletePolicy");
      return this;
    }

    /**
     * Whose rights each Release is cast with, and which references it may make (default: {@link
     * Tenancy#open()}, the controller's own rights for a Release that names no service account).
     */
    public Builder tenancy(Tenancy tenancy) {
      this.tenancy = requireNonNull(tenancy, "tenancy");
      return this;
    }

    /** Hears of each reconcile and reads the controller's state (metrics). */
    public Builder observer(ControllerObserver observer) {
      this.observer = requireNonNull(observer, "observer");
      return this;
    }

    /**
     * Serves {@code /healthz}, {@code /readyz} and {@code /metrics} on {@code address} from {@link
     * #start()} on (port 0: a free port, see {@link #endpointsAddress()}); without it, nothing is
     * served.
     */
    public Builder endpoints(InetSocketAddress address) {
      this.endpoints = requireNonNull(address, "address");
      return this;
    }

    /**
     * What {@code /metrics} answers: the metrics in Prometheus' text format (version 0.0.4), for
     * example a Micrometer {@code PrometheusMeterRegistry::scrape}; without it {@code /metrics} is
     * 404.
     */
    public Builder metrics(Supplier<String> prometheusText) {
      this.metrics = requireNonNull(prometheusText, "prometheusText");
      return this;
    }

    /**
     * What renders the charts of Releases with {@code spec.chart} (default: the Helm binary that
     * {@code $CAPSTAN_HELM} names, else {@code helm} on {@code PATH}, found at the first chart; a
     * chart without one is refused, {@code Stalled}, saying how to add one). Whatever renders is
     * given each Release's capabilities and a lookup access that reads as its account only.
     */
    public Builder charts(ChartRenderer renderer) {
      this.charts = requireNonNull(renderer, "renderer");
      return this;
    }

    /** The controller; {@link #start()} it. */
    public ReleaseResourceController build() {
      String id = identity != null ? identity : LeaseHolders.onThisHost().get();
      return new ReleaseResourceController(
          new Settings(
              clients,
              workers,
              workersPerNamespace != null ? workersPerNamespace : Math.max(1, workers - 1),
              selector,
              Objects.requireNonNull(id),
              leaseNamespace,
              leaseName,
              leaseDuration,
              listener,
              engine,
              clock,
              tenancy,
              deletePolicy,
              observer,
              endpoints,
              metrics,
              charts != null ? charts : new HelmFromEnvironment(System::getenv)));
    }
  }
}
