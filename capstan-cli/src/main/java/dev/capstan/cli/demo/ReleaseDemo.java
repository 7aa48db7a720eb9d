package dev.capstan.cli.demo;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.io.PrintStream;
import java.util.Map;

/**
 * The release engine, end to end, on the in-memory cluster: install, upgrade with a prune, repair
 * of an out-of-band edit, a conflict refused before any write, uninstall keeping a volume, a
 * reinstall that takes the volume back, and the history.
 */
public final class ReleaseDemo {
  private static final String NS = "shop";

  private ReleaseDemo() {}

  /** Runs the demo, printing to {@code out}. */
  public static void run(PrintStream out) {
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace(NS);
    ReleaseController releases = ReleaseController.builder(cluster, cluster).holder("demo").build();

    step(out, "1. Install revision 1");
    Payloads v1 = payloads("ghcr.io/acme/web:1.0.0", "info", true);
    show(out, releases.plan(ReleaseInput.of(NS, "web", v1)));
    CastResult r1 = releases.cast(ReleaseInput.of(NS, "web", v1).withVersion("1.0.0"));
    out.println("cast: revision " + r1.release().revision() + " " + r1.release().status().id());
    out.println("cluster writes: " + cluster.writes());

    step(out, "2. Upgrade: new image, new setting, the legacy configmap is dropped");
    Payloads v2 = payloads("ghcr.io/acme/web:1.1.0", "debug", false);
    cluster.clearOperations();
    CastResult r2 = releases.cast(ReleaseInput.of(NS, "web", v2).withVersion("1.1.0"));
    show(out, r2.plan());
    out.println("cluster writes (prune runs last): " + cluster.writes());

    step(out, "3. Someone edits the configmap by hand; the next plan repairs it");
    ResourceRef settings = ResourceRef.of(Kind.CONFIG_MAP, NS, "web-settings");
    cluster.edit(settings, m -> m.with("data.log-level", "edited-by-hand"));
    show(out, releases.plan(ReleaseInput.of(NS, "web", v2)));
    cluster.clearOperations();
    releases.cast(ReleaseInput.of(NS, "web", v2).withVersion("1.1.0"));
    out.println(
        "after the cast: "
            + settings.key()
            + " data="
            + cluster.object(settings).orElseThrow().get("data"));

    step(out, "4. A configmap someone else created is a conflict: refused before any write");
    cluster.put(ConfigMapSpec.of(NS, "feature-flags", Map.of("beta", "on")));
    Payloads v3 = v2.with(ConfigMapSpec.of(NS, "feature-flags", Map.of("beta", "off")));
    cluster.clearOperations();
    try {
      releases.cast(ReleaseInput.of(NS, "web", v3));
    } catch (ReleaseConflictException e) {
      show(out, e.plan());
      out.println("refused; object writes: " + cluster.writes().size());
    }

    step(out, "5. Uninstall: the data volume has reclaim policy RETAIN, so it is kept");
    cluster.clearOperations();
    UninstallResult u = releases.uninstall(NS, "web", UninstallOptions.defaults());
    out.println("deleted in order: " + u.deleted());
    out.println("kept (un-stamped): " + u.retained());
    out.println("status: " + u.release().status().id());
    out.println("list without tombstones: " + releases.list(NS, false).size() + " release(s)");

    step(out, "6. Reinstall: the retained volume is taken back without --adopt");
    CastResult again = releases.cast(ReleaseInput.of(NS, "web", v2).withVersion("1.1.0"));
    show(out, again.plan());

    step(out, "7. History, newest first");
    for (Release r : releases.history(NS, "web")) {
      out.printf(
          "  revision %d  %-11s %-6s %s%n",
          r.revision(),
          r.status().id(),
          r.version() == null ? "-" : r.version(),
          r.owns().size() + " object(s)");
    }
  }

  private static Payloads payloads(String image, String logLevel, boolean legacy) {
    Payloads.Builder b =
        Payloads.builder()
            .service(
                ServiceSpec.builder(NS, "web")
                    .image(image)
                    .replicas(2)
                    .port("http", 8080)
                    .envFromSecret("web-db")
                    .envFromConfigMap("web-settings")
                    .mount("web-data", "/var/lib/web")
                    .readinessProbe(ServiceSpec.Probe.http("/healthz", 8080))
                    .build())
            .secret(SecretSpec.of(NS, "web-db", Map.of("password", "correct-horse-battery")))
            .configMap(ConfigMapSpec.of(NS, "web-settings", Map.of("log-level", logLevel)))
            .volume(
                VolumeSpec.of(NS, "web-data", "5Gi")
                    .withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN));
    if (legacy) {
      b.configMap(ConfigMapSpec.of(NS, "web-legacy", Map.of("enabled", "true")));
    }
    return b.build();
  }

  private static void step(PrintStream out, String title) {
    out.println();
    out.println("== " + title);
  }

  private static void show(PrintStream out, Plan plan) {
    out.print(PlanRenderer.text(plan));
  }
}
