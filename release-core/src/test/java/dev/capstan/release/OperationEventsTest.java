package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.Outcome;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.DetachedCast;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Every operation is one bracket of events, {@code OperationStarted} first and one {@code Finished}
 * last, carrying the operation, outcome, revision, counts and duration; listeners are several,
 * isolated from each other's failures, and may keep state per operation.
 */
class OperationEventsTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private List<ReleaseEvent.Finished> finished() {
    return h.events.stream()
        .filter(ReleaseEvent.Finished.class::isInstance)
        .map(ReleaseEvent.Finished.class::cast)
        .toList();
  }

  /** {@code f} with its duration replaced by zero, for exact comparison. */
  private static ReleaseEvent.Finished timeless(ReleaseEvent.Finished f) {
    return new ReleaseEvent.Finished(
        f.release(),
        f.operation(),
        f.outcome(),
        f.revision(),
        f.status(),
        f.changes(),
        f.writes(),
        Duration.ZERO,
        f.reason());
  }

  @Test
  void aCastIsBracketedByOperationStartedAndFinishedWithItsRevisionCountsAndDuration() {
    Payloads p = payloads(web("web:1"), creds("pw"));

    long before = System.nanoTime();
    h.cast("app", p);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - before);

    assertThat(h.events.get(0))
        .isEqualTo(new ReleaseEvent.OperationStarted(NS + "/app", Operation.CAST));
    ReleaseEvent.Finished last = (ReleaseEvent.Finished) h.events.get(h.events.size() - 1);
    assertThat(timeless(last))
        .isEqualTo(
            new ReleaseEvent.Finished(
                NS + "/app",
                Operation.CAST,
                Outcome.SUCCEEDED,
                1,
                ReleaseStatus.DEPLOYED,
                Map.of(Action.CREATE, 3, Action.REFERENCE, 1),
                3,
                Duration.ZERO,
                null));
    assertThat(last.duration()).isPositive().isLessThanOrEqualTo(elapsed);
    assertThat(h.events).filteredOn(ReleaseEvent.OperationStarted.class::isInstance).hasSize(1);
    assertThat(last.describe())
        .matches(
            "cast finished in \\S+: revision 1 deployed \\(3 create, 1 reference; 3 writes\\)");
  }

  @Test
  void aSecondCastCountsOnlyWhatItWroteAndUnchangedObjects() {
    Payloads p = payloads(web("web:1"), creds("pw"));
    h.cast("app", p);
    Payloads changed = p.with(web("web:2"));

    h.cast("app", changed);

    assertThat(timeless(finished().get(1)))
        .isEqualTo(
            new ReleaseEvent.Finished(
                NS + "/app",
                Operation.CAST,
                Outcome.SUCCEEDED,
                2,
                ReleaseStatus.DEPLOYED,
                Map.of(Action.UPDATE, 1, Action.UNCHANGED, 2, Action.REFERENCE, 1),
                1,
                Duration.ZERO,
                null));
  }

  @Test
  void aFailedCastFinishesFailedWithTheRecordedReasonAndTheWritesThatCompleted() {
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    Payloads p = payloads(web("web:bad"), creds("pw"));

    CastFailedException e = (CastFailedException) catchThrowable(() -> h.cast("app", p));

    ReleaseEvent.Finished f = finished().get(0);
    assertThat(timeless(f))
        .isEqualTo(
            new ReleaseEvent.Finished(
                NS + "/app",
                Operation.CAST,
                Outcome.FAILED,
                1,
                ReleaseStatus.FAILED,
                Map.of(Action.CREATE, 3, Action.REFERENCE, 1),
                3,
                Duration.ZERO,
                e.result().release().failure()));
    assertThat(f.reason()).startsWith("verify failed: ");
    assertThat(h.events.get(h.events.size() - 1)).isEqualTo(f);
  }

  @Test
  void refusalsFinishWithTheirOutcomeAndNoWrite() {
    h.cluster.put(configMap("taken", "theirs"));
    Payloads conflicting = payloads(configMap("taken", "mine"));
    Throwable conflict = catchThrowable(() -> h.cast("app", conflicting));
    Throwable invalid =
        catchThrowable(() -> h.controller.cast(spec("app", conflicting), payloads()));
    Throwable notFound = catchThrowable(() -> h.controller.rollback(NS, "nothing", 1));
    h.cluster.putLease(
        NS,
        "held",
        new dev.capstan.release.model.Lease(
            "someone", Fixtures.T0, Fixtures.T0.plus(Duration.ofHours(1))));
    Payloads p = payloads(configMap("a", "1"));
    Throwable locked = catchThrowable(() -> h.cast("held", p));

    assertThat(finished())
        .extracting(
            ReleaseEvent.Finished::outcome,
            ReleaseEvent.Finished::writes,
            ReleaseEvent.Finished::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Outcome.CONFLICT, 0, conflict.getMessage()),
            org.assertj.core.groups.Tuple.tuple(Outcome.INVALID, 0, invalid.getMessage()),
            org.assertj.core.groups.Tuple.tuple(Outcome.NOT_FOUND, 0, notFound.getMessage()),
            org.assertj.core.groups.Tuple.tuple(Outcome.LOCKED, 0, locked.getMessage()));
    assertThat(finished().get(0).changes())
        .isEqualTo(Map.of(Action.CONFLICT, 1, Action.REFERENCE, 1));
    assertThat(finished().get(0).revision()).isEqualTo(1);
    assertThat(finished()).extracting(ReleaseEvent.Finished::status).containsOnlyNulls();
    assertThat(finished().get(0).describe())
        .matches(
            "cast refused in \\S+ \\(conflict\\): "
                + java.util.regex.Pattern.quote(conflict.getMessage()));
    assertThat(finished())
        .extracting(ReleaseEvent.Finished::operation)
        .containsExactly(Operation.CAST, Operation.CAST, Operation.ROLLBACK, Operation.CAST);
  }

  @Test
  void uninstallCountsWhatItDeletedAndRetained() {
    h.cast(
        "app",
        payloads(
            configMap("a", "1"),
            Fixtures.volume("data", dev.capstan.release.model.VolumeSpec.ReclaimPolicy.RETAIN)));

    h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(timeless(finished().get(1)))
        .isEqualTo(
            new ReleaseEvent.Finished(
                NS + "/app",
                Operation.UNINSTALL,
                Outcome.SUCCEEDED,
                1,
                ReleaseStatus.UNINSTALLED,
                Map.of(Action.PRUNE, 1, Action.RETAIN, 1),
                2,
                Duration.ZERO,
                null));
  }

  @Test
  void aRollbackAndARollbackPlanAreOneOperationEachNotANestedCastOrPlan() {
    Payloads v1 = payloads(configMap("a", "1"));
    h.cast("app", v1);
    h.cast("app", payloads(configMap("a", "2")));
    h.events.clear();

    h.controller.planRollback(NS, "app", 1);
    h.controller.planRollbackWithDiff(NS, "app", 1);
    h.controller.rollback(NS, "app", 1);

    assertThat(h.events)
        .filteredOn(e -> e instanceof ReleaseEvent.OperationStarted)
        .extracting(e -> ((ReleaseEvent.OperationStarted) e).operation())
        .containsExactly(Operation.PLAN, Operation.PLAN, Operation.ROLLBACK);
    assertThat(finished())
        .extracting(ReleaseEvent.Finished::operation, ReleaseEvent.Finished::revision)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Operation.PLAN, 3),
            org.assertj.core.groups.Tuple.tuple(Operation.PLAN, 3),
            org.assertj.core.groups.Tuple.tuple(Operation.ROLLBACK, 3));
  }

  @Test
  void eachWaveIsBracketedAroundItsWritesAndItsHealthWait() {
    Payloads p =
        payloads(
            yaml(
                "{apiVersion: v1, kind: ConfigMap, metadata: {name: first, annotations:"
                    + " {capstan.dev/wave: \"-1\"}}}"),
            configMap("second", "x"),
            creds("pw"));

    h.cast("app", p);

    assertThat(h.events)
        .filteredOn(
            e ->
                e instanceof ReleaseEvent.WaveStarted
                    || e instanceof ReleaseEvent.WaveFinished
                    || e instanceof ReleaseEvent.Done
                    || e instanceof ReleaseEvent.Verified)
        .extracting(OperationEventsTest::brief)
        .containsExactly(
            "wave -1: 1 to write",
            "create ConfigMap/default/first done",
            "1 object(s) healthy",
            "wave -1 done",
            "wave 0: 2 to write",
            "create ConfigMap/default/second done",
            "create Secret/default/creds done",
            "2 object(s) healthy",
            "wave 0 done");
  }

  private static String brief(ReleaseEvent e) {
    return e instanceof ReleaseEvent.WaveFinished w ? "wave " + w.wave() + " done" : e.describe();
  }

  @Test
  void everyListenerReceivesEveryEventInOrderAndOneThatThrowsIsLoggedOncePerOperation() {
    List<ReleaseEvent> second = new CopyOnWriteArrayList<>();
    InMemoryCluster cluster = InMemoryCluster.create();
    ReleaseController controller =
        ReleaseController.builder(cluster, cluster)
            .listener(new Exploding())
            .listener(second::add)
            .build();
    Payloads p = payloads(configMap("a", "1"));

    try (LogCapture logs = LogCapture.open()) {
      CastResult result = controller.cast(spec("app", p), p);

      assertThat(result.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      assertThat(second).first().isInstanceOf(ReleaseEvent.OperationStarted.class);
      assertThat(second).last().isInstanceOf(ReleaseEvent.Finished.class);
      List<LogCapture.Line> warnings =
          logs.lines().stream().filter(l -> l.level() == Level.WARN).toList();
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0).message())
          .isEqualTo(
              "listener dev.capstan.release.OperationEventsTest$Exploding threw on event"
                  + " OperationStarted; the operation goes on without it (its further failures in"
                  + " this operation are logged at DEBUG)");
      assertThat(warnings.get(0).logger()).isEqualTo("dev.capstan.release.ReleaseController");
      assertThat(warnings.get(0).error()).hasMessage("listener bug");
      List<LogCapture.Line> again =
          logs.lines().stream()
              .filter(l -> l.level() == Level.DEBUG && l.message().contains("threw again"))
              .toList();
      assertThat(again).hasSize(second.size() - 1).allMatch(l -> l.error() == null);
      assertThat(again)
          .extracting(LogCapture.Line::message)
          .contains(
              "listener dev.capstan.release.OperationEventsTest$Exploding threw again on event"
                  + " Done: java.lang.IllegalStateException: listener bug");

      logs.clear();
      controller.plan(spec("app", p), p);

      assertThat(logs.lines().stream().filter(l -> l.level() == Level.WARN))
          .singleElement()
          .satisfies(l -> assertThat(l.error()).hasMessage("listener bug"));
    }
  }

  static final class Exploding implements ReleaseListener {
    @Override
    public void on(ReleaseEvent event) {
      throw new IllegalStateException("listener bug");
    }
  }

  /** A listener keeping each operation's events apart, as a tracer would. */
  static final class PerOperation implements ReleaseListener {
    final List<List<ReleaseEvent>> operations = new CopyOnWriteArrayList<>();

    @Override
    public void on(ReleaseEvent event) {
      throw new AssertionError("every event belongs to an operation: " + event);
    }

    @Override
    public ReleaseListener begin(ReleaseEvent.OperationStarted started) {
      List<ReleaseEvent> mine = new CopyOnWriteArrayList<>();
      operations.add(mine);
      return mine::add;
    }
  }

  @Test
  void aListenerMayKeepEachOperationsEventsApartAcrossThreadsAndConcurrentCasts() throws Exception {
    PerOperation tracer = new PerOperation();
    InMemoryCluster cluster = InMemoryCluster.create();
    cluster.faults().failOn(dev.capstan.release.memory.Operation.LEASE_RENEW, 1);
    CountDownLatch renewalFailed = new CountDownLatch(1);
    ReleaseController controller =
        ReleaseController.builder(cluster, cluster)
            .parallelism(4)
            .leaseRenewal(Duration.ofMillis(5))
            .listener(tracer)
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Retrying) {
                    renewalFailed.countDown();
                  }
                })
            .listener(
                e -> {
                  // hold the first release's first write until its lease renewal has failed once
                  if (e instanceof ReleaseEvent.Done d && d.release().equals(NS + "/r0")) {
                    try {
                      renewalFailed.await();
                    } catch (InterruptedException x) {
                      Thread.currentThread().interrupt();
                    }
                  }
                })
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<CastResult>> casts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String name = "r" + i;
        Payloads p =
            payloads(configMap("a" + i, "1"), configMap("b" + i, "1"), configMap("c" + i, "1"));
        casts.add(pool.submit(() -> controller.cast(spec(name, p), p)));
      }
      for (Future<CastResult> c : casts) {
        assertThat(c.get().release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(tracer.operations).hasSize(3);
    for (List<ReleaseEvent> op : tracer.operations) {
      String release = op.get(0).release();
      assertThat(op).allMatch(e -> e.release().equals(release), "events of " + release + " only");
      assertThat(op.get(0)).isInstanceOf(ReleaseEvent.OperationStarted.class);
      assertThat(op.get(op.size() - 1)).isInstanceOf(ReleaseEvent.Finished.class);
      assertThat(op).filteredOn(ReleaseEvent.Done.class::isInstance).hasSize(3);
    }
    // the one failed renewal (of whichever lease renewed first) is in its own operation only
    assertThat(tracer.operations)
        .filteredOn(op -> op.stream().anyMatch(ReleaseEvent.Retrying.class::isInstance))
        .hasSize(1);
  }

  @Test
  void aDetachedCastFinishesWhenItCompletesOnTheExecutorThread() throws Exception {
    PerOperation tracer = new PerOperation();
    InMemoryCluster cluster = InMemoryCluster.create();
    ReleaseController controller =
        ReleaseController.builder(cluster, cluster).listener(tracer).build();
    Payloads p = payloads(configMap("a", "1"), SecretSpec.of(NS, "s", Map.of("k", "v")));
    List<Runnable> queued = new ArrayList<>();

    DetachedCast detached = controller.castDetached(spec("app", p), p, queued::add);

    assertThat(tracer.operations)
        .singleElement()
        .satisfies(
            op ->
                assertThat(op)
                    .noneMatch(
                        e -> e instanceof ReleaseEvent.Finished || e instanceof ReleaseEvent.Done));
    Thread executor = new Thread(() -> queued.forEach(Runnable::run));
    executor.start();
    executor.join();

    assertThat(detached.completion().get().release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    List<ReleaseEvent> op = tracer.operations.get(0);
    assertThat(op).filteredOn(ReleaseEvent.Done.class::isInstance).hasSize(2);
    assertThat(op.get(op.size() - 1))
        .isInstanceOfSatisfying(
            ReleaseEvent.Finished.class,
            f -> {
              assertThat(f.outcome()).isEqualTo(Outcome.SUCCEEDED);
              assertThat(f.writes()).isEqualTo(2);
            });
  }
}
