package dev.capstan.benchmarks;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.result.CastResult;
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
 * Casting a release on the in-memory cluster: a first install, a no-op re-cast, and an upgrade that
 * changes every object. Each invocation starts from a fresh cluster (install) or a fresh installed
 * cluster (noop, upgrade).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 20)
@Fork(1)
public class ReleaseCastBenchmark {
  /** How many objects the release has. */
  @Param({"1000"})
  public int size;

  private Payloads v1;
  private Payloads v2;
  private ReleaseController fresh;
  private ReleaseController installed;

  /** Builds the payloads once. */
  @Setup(Level.Trial)
  public void payloads() {
    v1 = ReleaseFixtures.payloads(size, "1");
    v2 = ReleaseFixtures.payloads(size, "2");
  }

  /** A fresh empty cluster and one with v1 installed, for every invocation. */
  @Setup(Level.Invocation)
  public void clusters() {
    InMemoryCluster empty = InMemoryCluster.create().addNamespace(ReleaseFixtures.NS);
    fresh = ReleaseController.builder(empty, empty).build();
    InMemoryCluster full = InMemoryCluster.create().addNamespace(ReleaseFixtures.NS);
    installed = ReleaseController.builder(full, full).build();
    installed.cast(new ReleaseInput(spec(v1), v1));
  }

  private static ReleaseSpec spec(Payloads p) {
    return ReleaseSpec.of(ReleaseFixtures.NS, "big", p);
  }

  /** First install of every object. */
  @Benchmark
  public CastResult install() {
    return fresh.cast(new ReleaseInput(spec(v1), v1));
  }

  /** A re-cast that changes nothing (only the record is written). */
  @Benchmark
  public CastResult noop() {
    return installed.cast(new ReleaseInput(spec(v1), v1));
  }

  /** An upgrade that updates every object. */
  @Benchmark
  public CastResult upgrade() {
    return installed.cast(new ReleaseInput(spec(v2), v2));
  }
}
