package dev.capstan.benchmarks;

import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.manifest.ManifestComponent;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Planning a platform update: a 200-component catalog (20 namespaces, one Deployment each) over
 * 2,000 ready pods (10 per Deployment). Half the components change tag, a quarter are pinned by
 * digest in the release (so every running digest is computed from the pods), the rest are
 * unchanged.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks-all.jar UpdatePlanBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class UpdatePlanBenchmark {
  private static final int COMPONENTS = 200;
  private static final int PODS_PER_DEPLOYMENT = 10;
  private static final String REGISTRY = "registry.example:5000";

  private final Catalog catalog = catalog();
  private final PlatformRelease release = release();
  private final InventorySnapshot inventory = inventory();

  /**
   * Plans the update.
   *
   * @return the plan (returned so that JMH keeps the work)
   */
  @Benchmark
  public UpdatePlan plan() {
    return UpdatePlanner.plan(inventory, release, catalog, Selection.defaults());
  }

  private static String name(int i) {
    return String.format("c%03d", i);
  }

  private static Workload workload(int i) {
    return Workload.of(String.format("ns%02d", i % 20), name(i));
  }

  private static String digest(int i) {
    return "sha256:" + String.format("%064x", i);
  }

  private static Catalog catalog() {
    Catalog.Builder b =
        Catalog.builder().platformName("Bench").installedCheck("ns00", name(0), "install first");
    for (int i = 0; i < COMPONENTS; i++) {
      Workload w = workload(i);
      b.component(
          CatalogComponent.container(name(i), w.namespace(), w.deployment(), "app")
              .withDefaultRepository("team/" + name(i))
              .withBuilt(true));
    }
    return b.build();
  }

  private static PlatformRelease release() {
    List<ManifestComponent> components = new ArrayList<>();
    for (int i = 0; i < COMPONENTS; i++) {
      ManifestComponent c =
          ManifestComponent.of(name(i), "team/" + name(i), i % 2 == 0 ? "v1.1.0" : "v1.0.0");
      components.add(i % 4 == 1 ? c.withDigest(digest(i)) : c);
    }
    return PlatformRelease.of(Catalog.DEFAULT_MANIFEST_API_VERSION, "v1.1.0", components);
  }

  private static InventorySnapshot inventory() {
    List<DeploymentState> deployments = new ArrayList<>();
    List<PodState> pods = new ArrayList<>();
    for (int i = 0; i < COMPONENTS; i++) {
      Workload w = workload(i);
      String image = REGISTRY + "/team/" + name(i) + ":v1.0.0";
      deployments.add(DeploymentState.of(w, ContainerState.of("app", image)));
      for (int p = 0; p < PODS_PER_DEPLOYMENT; p++) {
        pods.add(
            new PodState(
                w.namespace(),
                w.deployment() + "-" + p,
                Map.of("app", w.deployment()),
                List.of(
                    new ContainerStatus(
                        "app",
                        true,
                        "docker-pullable://" + REGISTRY + "/team/" + name(i) + "@" + digest(i)))));
      }
    }
    return new InventorySnapshot(deployments, pods, List.of());
  }
}
