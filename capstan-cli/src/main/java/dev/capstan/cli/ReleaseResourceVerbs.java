package dev.capstan.cli;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Escapes;
import dev.capstan.controller.ReleaseKey;
import dev.capstan.controller.ReleaseResource;
import dev.capstan.k8s.KubeClients;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code capstan controller reconcile|suspend|resume}: what Flux's {@code flux reconcile}, {@code
 * suspend} and {@code resume} do for a HelmRelease, for a {@code Release} resource. Each is one
 * merge patch of the Release (an annotation, or {@code spec.suspend}); {@code reconcile} then waits
 * for the controller to say it handled the request.
 */
final class ReleaseResourceVerbs {
  private ReleaseResourceVerbs() {}

  /** What the three verbs share: the Release named, and the cluster. */
  abstract static class Verb implements Callable<Integer> {
    @ParentCommand @Nullable ControllerCommand parent;

    @Parameters(paramLabel = "RELEASE", description = "The Release resource's name.")
    String name = "";

    @Option(
        names = {"-n", "--namespace"},
        paramLabel = "NAMESPACE",
        description = "The Release's namespace (default: the kubeconfig context's, else default).")
    @Nullable String namespace;

    @Override
    public Integer call() throws InterruptedException {
      CapstanCommand root = Objects.requireNonNull(parent, "parent").root();
      Command command = getClass().getAnnotation(Command.class);
      KubernetesTarget target =
          root.kubernetes("controller " + (command == null ? "" : command.name()));
      try {
        String ns = namespace != null ? namespace : target.defaultNamespace();
        return run(root.cli, target.clients(), new ReleaseKey(ns, name));
      } finally {
        target.close();
      }
    }

    abstract int run(Cli cli, KubeClients clients, ReleaseKey key) throws InterruptedException;

    /** The Release as the API server has it; refused when it does not exist. */
    static ReleaseResource existing(KubeClients clients, ReleaseKey key) {
      return ReleaseResource.get(clients.apiClient(), key)
          .orElseThrow(
              () ->
                  new ClusterException(
                      "get",
                      ReleaseResource.KIND,
                      key.namespace(),
                      key.name(),
                      404,
                      "Release " + Escapes.escape(key.toString()) + " does not exist",
                      null));
    }

    /** A JSON merge patch of the Release. */
    static void patch(KubeClients clients, ReleaseKey key, String json) {
      ReleaseResource.patch(clients.apiClient(), key, json);
    }

    /** Sets {@code spec.suspend} and says what that does. */
    static int suspend(Cli cli, KubeClients clients, ReleaseKey key, boolean suspend) {
      existing(clients, key);
      patch(clients, key, "{\"spec\":{\"suspend\":" + suspend + "}}");
      cli.out()
          .println(
              suspend
                  ? "Release "
                      + key
                      + " suspended: the controller leaves its release as it is until: capstan"
                      + " controller resume "
                      + key.name()
                      + " -n "
                      + key.namespace()
                  : "Release " + key + " resumed: the controller reconciles it again.");
      return ExitCode.OK;
    }
  }

  /** {@code capstan controller reconcile}. */
  @Command(
      name = "reconcile",
      description = {
        "Ask the controller to reconcile a Release now (the annotation",
        ReleaseResource.RECONCILE_REQUEST + "), and wait until it has."
      })
  static final class Reconcile extends Verb {
    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "How long to wait for the controller (default: 5m).")
    Duration timeout = Duration.ofMinutes(5);

    @Option(names = "--no-wait", description = "Ask, and do not wait.")
    boolean noWait;

    @Override
    int run(Cli cli, KubeClients clients, ReleaseKey key) throws InterruptedException {
      ReleaseResource release = existing(clients, key);
      if (release.spec().get("suspend") instanceof Boolean b && b) {
        throw new IllegalArgumentException(
            "Release "
                + Escapes.escape(key.toString())
                + " is suspended: the controller does not reconcile it; resume it first: capstan"
                + " controller resume "
                + key.name()
                + " -n "
                + key.namespace());
      }
      String at = Instant.now().toString();
      patch(
          clients,
          key,
          "{\"metadata\":{\"annotations\":{\""
              + ReleaseResource.RECONCILE_REQUEST
              + "\":\""
              + at
              + "\"}}}");
      if (noWait) {
        cli.out().println("Release " + key + ": reconcile requested at " + at + ".");
        return ExitCode.OK;
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        ReleaseResource now = existing(clients, key);
        if (at.equals(now.status().get("lastHandledReconcileAt"))) {
          Map<?, ?> ready = now.condition("Ready");
          String status = ready == null ? "Unknown" : String.valueOf(ready.get("status"));
          cli.out()
              .println(
                  "Release "
                      + key
                      + " reconciled: Ready="
                      + status
                      + (ready == null
                          ? ""
                          : " "
                              + ready.get("reason")
                              + ": "
                              + Escapes.escape(String.valueOf(ready.get("message")))));
          return "True".equals(status) ? ExitCode.OK : ExitCode.FAILED;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new ClusterException(
              "the controller did not handle the reconcile request of Release "
                  + key
                  + " within "
                  + dev.capstan.common.Durations.format(timeout)
                  + " (is a controller running for it? its status.lastHandledReconcileAt is "
                  + Escapes.quote(String.valueOf(now.status().get("lastHandledReconcileAt")))
                  + ")");
        }
        Thread.sleep(250);
      }
    }
  }

  /** {@code capstan controller suspend}. */
  @Command(
      name = "suspend",
      description = "Suspend a Release: the controller leaves its release as it is (spec.suspend).")
  static final class Suspend extends Verb {
    @Override
    int run(Cli cli, KubeClients clients, ReleaseKey key) {
      return suspend(cli, clients, key, true);
    }
  }

  /** {@code capstan controller resume}. */
  @Command(
      name = "resume",
      description = "Resume a suspended Release: the controller reconciles it again.")
  static final class Resume extends Verb {
    @Override
    int run(Cli cli, KubeClients clients, ReleaseKey key) {
      return suspend(cli, clients, key, false);
    }
  }
}
