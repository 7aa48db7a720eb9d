package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.release.engine.LeaseKeeper;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An interrupt of an operation's thread stops it before its next write: the lease keeper's check
 * fails (on the writing threads of a parallel rank too), the operation records its failure and
 * gives the lease up, and nothing is written after.
 */
class LeaseInterruptTest {
  private static final String STOPPED =
      "the operation on default/app was interrupted; stopped before the next write";

  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final List<String> written = Collections.synchronizedList(new ArrayList<>());
  private Consumer<ReleaseEvent> hook = e -> {};

  @AfterEach
  void clearTheInterrupt() {
    Thread.interrupted(); // the next test's thread starts uninterrupted
  }

  private LeaseKeeper acquire(Store store) {
    return LeaseKeeper.acquire(
        new LeaseKeeper.Terms(
            store,
            "caster-a",
            Clock.systemUTC(),
            Duration.ofSeconds(30),
            Duration.ofHours(1),
            Duration.ZERO,
            LeaseKeeper.POLL,
            Sleeper.system(),
            false),
        NS,
        "app",
        e -> {});
  }

  /** A write under the lease, as the engine makes one: checked first. */
  private void write(LeaseKeeper lease, String what) {
    lease.checkHeld();
    written.add(what);
  }

  @Test
  void anInterruptedThreadsCheckFailsNamingTheReleaseAndKeepsFailing() {
    LeaseKeeper lease = acquire(cluster);
    write(lease, "first");

    Thread.currentThread().interrupt();

    assertThatThrownBy(() -> write(lease, "second"))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(STOPPED);
    assertThat(Thread.interrupted()).as("the interrupt status is left set").isTrue();
    // the status is clear now; the operation stays stopped
    assertThatThrownBy(() -> write(lease, "third"))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(STOPPED);
    assertThat(written).containsExactly("first");
    assertThat(cluster.lease(NS, "app")).isPresent();

    lease.close();
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void aThreadWritingForTheOperationStopsOnceTheOperationsThreadIsInterrupted() throws Exception {
    LeaseKeeper lease = acquire(cluster);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicReference<@Nullable Throwable> writerFailure = new AtomicReference<>();

    assertThatThrownBy(
            () ->
                lease.run(
                    held -> {
                      Thread writer =
                          new Thread(
                              () -> {
                                try {
                                  interrupted.await();
                                  write(held, "by the writer");
                                } catch (InterruptedException | RuntimeException e) {
                                  writerFailure.set(e);
                                }
                              });
                      writer.start();
                      Thread.currentThread().interrupt(); // the operation's thread
                      interrupted.countDown();
                      while (writer.isAlive()) {
                        Thread.onSpinWait(); // a join would clear the status the writer looks at
                      }
                      write(held, "by the operation");
                      return null;
                    }))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(STOPPED);

    assertThat(writerFailure.get()).isInstanceOf(ReleaseException.class).hasMessage(STOPPED);
    assertThat(written).isEmpty();
    assertThat(cluster.lease(NS, "app")).as("given up as the operation unwound").isEmpty();
  }

  @Test
  void theLeaseIsGivenUpOnAnInterruptedThreadWhoseStoreWouldRefuseIt() {
    Store store =
        new ForwardingStore(cluster) {
          @Override
          public void releaseLease(String namespace, String name, String holder, boolean forget) {
            if (Thread.currentThread().isInterrupted()) {
              // as an HTTP client does on an interrupted thread
              throw new IllegalStateException("interrupted");
            }
            super.releaseLease(namespace, name, holder, forget);
          }
        };
    LeaseKeeper lease = acquire(store);
    Thread.currentThread().interrupt();

    lease.close();

    assertThat(cluster.lease(NS, "app")).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).as("set again after").isTrue();
  }

  private ReleaseController controller(int parallelism) {
    return ReleaseController.builder(cluster, cluster)
        .clock(ManualClock.at(T0))
        .holder("me")
        .parallelism(parallelism)
        .ids(() -> "id-1")
        .listener(e -> hook.accept(e))
        .build();
  }

  private final Payloads all =
      payloads(
          web("web:1"),
          creds("pw"),
          configMap("a", "1"),
          configMap("b", "1"),
          configMap("c", "1"),
          configMap("d", "1"));

  @Test
  void aCastInterruptedAfterItsFirstWriteWritesNothingMoreRecordsItsFailureAndGivesTheLeaseUp() {
    ReleaseController controller = controller(1);
    Thread caster = Thread.currentThread();
    hook =
        e -> {
          if (e instanceof ReleaseEvent.Done d && d.action() == Action.CREATE) {
            caster.interrupt(); // the caster's client went away, say
          }
        };

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class, () -> controller.cast(spec("app", all), all));

    assertThat(Thread.interrupted()).as("the interrupt status is left set").isTrue();
    assertThat(failed.getCause()).isInstanceOf(ReleaseException.class).hasMessage(STOPPED);
    assertThat(cluster.writes()).containsExactly("apply:ConfigMap/default/a");
    Release recorded = controller.get(NS, "app").orElseThrow();
    assertThat(recorded.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(recorded.failure()).isEqualTo(STOPPED);
    assertThat(cluster.lease(NS, "app")).isEmpty();

    hook = e -> {};
    assertThat(controller.cast(spec("app", all), all).release().status())
        .as("the next cast goes on at once")
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void anInterruptDuringAParallelRankLetsTheWritesUnderWayEndAndStartsNoOther() throws Exception {
    ReleaseController controller = controller(2);
    CountDownLatch bothStarted = new CountDownLatch(2);
    CountDownLatch interrupted = new CountDownLatch(1);
    hook =
        e -> {
          if (e instanceof ReleaseEvent.Started s && s.action() == Action.CREATE) {
            bothStarted.countDown();
            try {
              interrupted.await(); // a write under way; the pool's interrupt ends this wait
            } catch (InterruptedException ex) {
              Thread.currentThread().interrupt();
            }
          }
        };
    AtomicReference<@Nullable Throwable> outcome = new AtomicReference<>();
    Thread caster =
        new Thread(
            () -> {
              try {
                controller.cast(spec("app", all), all);
              } catch (RuntimeException e) {
                outcome.set(e);
              }
            },
            "caster");
    caster.start();
    bothStarted.await();

    caster.interrupt();
    caster.join(SECONDS.toMillis(30));
    interrupted.countDown();

    assertThat(caster.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(CastFailedException.class).cause().hasMessage(STOPPED);
    // the two writes under way, of the first rank's four ConfigMaps, and no other
    assertThat(cluster.writes()).hasSize(2).allMatch(w -> w.startsWith("apply:ConfigMap/"));
    assertThat(Set.copyOf(cluster.objects()))
        .hasSize(2)
        .allMatch(ref -> ref.kind().equals(dev.capstan.release.model.Kind.CONFIG_MAP));
    Release recorded = controller.get(NS, "app").orElseThrow();
    assertThat(recorded.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(recorded.failure()).isEqualTo(STOPPED);
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }
}
