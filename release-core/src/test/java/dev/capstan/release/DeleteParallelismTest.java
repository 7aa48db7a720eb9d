package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Deletes of one rank (uninstall and prune) go out at the delete parallelism, apart from the write
 * parallelism: the most deletes in flight at once is measured with a gate that holds the first ones
 * until that many have started (so the figure is reached, never exceeded, whatever the scheduling).
 */
class DeleteParallelismTest {
  private static final List<String> NAMES = List.of("a", "b", "c", "d", "e", "f");

  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final Payloads six =
      payloads(NAMES.stream().map(n -> configMap(n, "1")).toArray(ConfigMapSpec[]::new));

  /** Counts deletes in flight (Started to Done of a prune); the first {@code gate} wait for all. */
  private static final class InFlight {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final List<String> started = new CopyOnWriteArrayList<>();
    volatile CountDownLatch gate = new CountDownLatch(0);

    void hold(int first) {
      gate = new CountDownLatch(first);
    }

    void on(ReleaseEvent e) {
      if (e instanceof ReleaseEvent.Started s && s.action() == Action.PRUNE) {
        started.add(s.ref().name());
        most.accumulateAndGet(now.incrementAndGet(), Math::max);
        CountDownLatch g = gate;
        g.countDown();
        try {
          // only a delete parallelism below the gate's count lets this time out (and fail below)
          g.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
        }
      } else if (e instanceof ReleaseEvent.Done d && d.action() == Action.PRUNE) {
        now.decrementAndGet();
      }
    }
  }

  private final InFlight inFlight = new InFlight();

  private ReleaseController controller(UnaryOperator<ReleaseControllerBuilder> settings) {
    return settings
        .apply(
            ReleaseController.builder(cluster, cluster)
                .clock(ManualClock.at(T0))
                .holder("me")
                .ids(() -> "id-1")
                .listener(inFlight::on))
        .build();
  }

  @Test
  void uninstallDeletesARankAtTheDeleteParallelismAboveTheWriteParallelism() {
    ReleaseController c = controller(b -> b.parallelism(2).deleteParallelism(6));
    c.cast(spec("app", six), six);
    inFlight.hold(6);

    UninstallResult u = c.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(inFlight.most).hasValue(6);
    assertThat(u.deleted())
        .extracting(ResourceRef::name)
        .containsExactlyElementsOf(NAMES); // in prune order
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void uninstallNeverHasMoreDeletesInFlightThanTheDeleteParallelism() {
    ReleaseController c = controller(b -> b.parallelism(8).deleteParallelism(3));
    c.cast(spec("app", six), six);
    inFlight.hold(3);

    c.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(inFlight.most).hasValue(3);
    assertThat(inFlight.started).containsExactlyInAnyOrderElementsOf(NAMES);
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void byDefaultDeletesGoOutAboveTheWriteParallelism() {
    ReleaseController c = controller(b -> b.parallelism(4));
    c.cast(spec("app", six), six);
    inFlight.hold(6);

    c.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(ReleaseController.DEFAULT_DELETE_PARALLELISM).isEqualTo(64);
    assertThat(inFlight.most).hasValue(6);
  }

  @Test
  void aWriteParallelismOfOneDeletesOneAtATimeInPruneOrder() {
    ReleaseController c = controller(b -> b.parallelism(1));
    c.cast(spec("app", six), six);

    c.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(inFlight.most).hasValue(1);
    assertThat(inFlight.started).containsExactlyElementsOf(NAMES);
  }

  @Test
  void aPruneDeletesARankAtTheDeleteParallelism() {
    ReleaseController c = controller(b -> b.parallelism(1).deleteParallelism(5));
    c.cast(spec("app", six), six);
    inFlight.hold(5);
    Payloads one = payloads(configMap("a", "1"));

    CastResult r = c.cast(spec("app", one), one);

    assertThat(r.plan().changes(Action.PRUNE))
        .extracting(ch -> ch.ref().name())
        .containsExactly("b", "c", "d", "e", "f");
    assertThat(inFlight.most).hasValue(5);
    assertThat(cluster.objects()).containsExactly(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"));
  }
}
