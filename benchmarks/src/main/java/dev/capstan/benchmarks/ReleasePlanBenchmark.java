package dev.capstan.benchmarks;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.ObservedNames;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.Planner;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Planning a release whose every object is live and recorded: the pure planner alone ({@code
 * pure}), and {@code ReleaseController.plan} on the in-memory cluster, which adds reading the
 * record and observing one batch per kind ({@code controller}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReleasePlanBenchmark {
  /** How many objects the release has. */
  @Param({"1000", "10000"})
  public int size;

  private ReleaseSpec spec;
  private Release latest;
  private LiveState live;
  private ReleaseController controller;

  /** Installs the release, then snapshots its record and live state. */
  @Setup(Level.Trial)
  public void install() {
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace(ReleaseFixtures.NS);
    controller = ReleaseController.builder(cluster, cluster).parallelism(1).build();
    Payloads payloads = ReleaseFixtures.payloads(size, "1");
    spec = ReleaseSpec.of(ReleaseFixtures.NS, "big", payloads);
    controller.cast(new ReleaseInput(spec, payloads));
    latest = controller.get(ReleaseFixtures.NS, "big").orElseThrow();
    LiveState.Builder b = LiveState.builder();
    ObservedNames.of(spec, latest)
        .forEach(
            (scope, names) ->
                b.observed(
                    scope.kind(),
                    scope.namespace(),
                    cluster.observe(scope.kind(), scope.namespace(), names)));
    live = b.build();
  }

  /** The pure planner over prepared inputs. */
  @Benchmark
  public Plan pure() {
    return Planner.plan(spec, latest, live);
  }

  /**
   * The controller's plan from the spec's hashes: record read and decode, batch observation,
   * planning.
   */
  @Benchmark
  public Plan controller() {
    return controller.planFromHashes(spec);
  }
}
