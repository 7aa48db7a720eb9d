package dev.capstan.cli;

import dev.capstan.controller.ReleaseResource;
import dev.capstan.controller.ReleaseResourceController;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code capstan controller}: runs the controller of {@code Release} resources against a cluster
 * (for development, or as the process of its in-cluster Deployment), or prints the Release CRD.
 */
@Command(
    name = "controller",
    mixinStandardHelpOptions = true,
    description = {
      "Keep Release resources (releases.capstan.dev) cast: plan on every change and interval,",
      "repair drift, report status conditions, uninstall through a finalizer (docs/controller.md)."
    })
final class ControllerCommand implements Runnable {
  @ParentCommand @Nullable CapstanCommand root;

  @Override
  public void run() {
    CapstanCommand r = java.util.Objects.requireNonNull(root, "root");
    r.cli.out().print(new picocli.CommandLine(this).getUsageMessage());
  }

  CapstanCommand root() {
    return java.util.Objects.requireNonNull(root, "no parent command");
  }

  /** {@code capstan controller crd}: the CustomResourceDefinition of Release, as YAML. */
  @Command(name = "crd", description = "Print the CustomResourceDefinition of Release (YAML).")
  static final class Crd implements Runnable {
    @ParentCommand @Nullable ControllerCommand parent;

    @Override
    public void run() {
      java.util.Objects.requireNonNull(parent, "parent")
          .root()
          .cli
          .out()
          .print(ReleaseResource.crdYaml());
    }
  }

  /** {@code capstan controller run}: the controller, until interrupted (Ctrl-C, SIGTERM). */
  @Command(
      name = "run",
      description = {
        "Run the controller on the cluster of --kubeconfig (or, with --in-cluster, of this pod's",
        "service account) until interrupted; one line per outcome on standard error."
      })
  static final class Run implements Callable<Integer> {
    @ParentCommand @Nullable ControllerCommand parent;

    @Option(
        names = "--workers",
        paramLabel = "N",
        description =
            "How many Releases are reconciled at once (default: 4). Each may take three quarters"
                + " of the heap over them while it is read and cast; a Release estimated to need"
                + " more is refused (TooLarge).")
    int workers = 4;

    @Option(
        names = "--workers-per-namespace",
        paramLabel = "N",
        description =
            "How many Releases of one namespace are reconciled at once (default: one fewer than"
                + " --workers, at least 1), so that one tenant's long casts never take every"
                + " worker.")
    @Nullable Integer workersPerNamespace;

    @Option(
        names = "--selector",
        paramLabel = "LABELS",
        description =
            "Reconcile only the Releases whose labels match (e.g. shard=a), so that several"
                + " controllers split a fleet.")
    @Nullable String selector;

    @Option(
        names = "--leader-elect",
        description =
            "Run as one of several replicas: only the holder of the Lease --lease-name in"
                + " --lease-namespace reconciles.")
    boolean leaderElect;

    @Option(
        names = "--lease-namespace",
        paramLabel = "NAMESPACE",
        description =
            "The leader election's namespace (default: the kubeconfig context's, else default).")
    @Nullable String leaseNamespace;

    @Option(
        names = "--lease-name",
        paramLabel = "NAME",
        description = "The leader election's Lease (default: capstan-controller).")
    String leaseName = "capstan-controller";

    @Option(
        names = "--lease-duration",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "How long the leader's Lease lasts without renewal (whole seconds; default: 15s).")
    Duration leaseDuration = Duration.ofSeconds(15);

    @Option(
        names = "--identity",
        paramLabel = "NAME",
        description = "Who this replica is in leases and Events (default: host and process).")
    @Nullable String identity;

    @Option(
        names = "--in-cluster",
        description = "Use this pod's service account instead of a kubeconfig.")
    boolean inCluster;

    @picocli.CommandLine.Mixin ControllerRunOptions tenancy = new ControllerRunOptions();

    @Override
    public Integer call() throws InterruptedException {
      CapstanCommand root = java.util.Objects.requireNonNull(parent, "parent").root();
      if (workers < 1) {
        throw new IllegalArgumentException("--workers must be at least 1: " + workers);
      }
      if (workersPerNamespace != null && workersPerNamespace < 1) {
        throw new IllegalArgumentException(
            "--workers-per-namespace must be at least 1: " + workersPerNamespace);
      }
      tenancy.tenancy(); // refuses a bad option before connecting
      dev.capstan.k8s.KubeClients clients;
      String namespace;
      KubernetesTarget target = null;
      if (inCluster) {
        clients = dev.capstan.k8s.KubeClients.inCluster();
        namespace = clients.namespace().orElse("default");
      } else {
        target = root.kubernetes("controller run");
        clients = target.clients();
        namespace = target.defaultNamespace();
      }
      try {
        if (!ReleaseResource.installed(clients.apiClient())) {
          throw new dev.capstan.common.ClusterException(
              "the Release CRD ("
                  + ReleaseResource.CRD_NAME
                  + ") is not installed in "
                  + clients.server()
                  + "; install it with: capstan controller crd > releases.capstan.dev.yaml &&"
                  + " capstan release cast capstan-crd -n default -f releases.capstan.dev.yaml"
                  + " --yes (with the same --kubeconfig)");
        }
        ReleaseResourceController.Builder builder =
            ReleaseResourceController.builder(clients)
                .workers(workers)
                .workersPerNamespace(
                    workersPerNamespace != null ? workersPerNamespace : Math.max(1, workers - 1))
                .listener(
                    (release, outcome) ->
                        root.cli.err().println("capstan: Release " + release + ": " + outcome));
        if (selector != null) {
          builder.selector(selector);
        }
        if (identity != null) {
          builder.identity(identity);
        }
        if (leaderElect) {
          builder
              .leaderElection(leaseNamespace != null ? leaseNamespace : namespace)
              .leaseName(leaseName)
              .leaseDuration(leaseDuration);
        }
        String more = tenancy.apply(builder);
        ReleaseResourceController controller = builder.build();
        Thread stop = new Thread(controller::close, "capstan-controller-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        controller.start();
        root.cli
            .err()
            .println(
                "capstan: controller running on "
                    + clients.server()
                    + " ("
                    + workers
                    + " workers, "
                    + (workersPerNamespace != null ? workersPerNamespace : Math.max(1, workers - 1))
                    + " per namespace, "
                    + String.format(
                        java.util.Locale.ROOT,
                        "%.1f MiB of heap per Release",
                        controller.heapPerRelease() / (double) (1 << 20))
                    + (selector != null ? ", Releases matching " + selector : "")
                    + (leaderElect ? ", leader election on Lease " + leaseName : "")
                    + more
                    + "); Ctrl-C stops it");
        controller.awaitTermination();
        return ExitCode.OK;
      } finally {
        if (target != null) {
          target.close();
        }
      }
    }
  }
}
