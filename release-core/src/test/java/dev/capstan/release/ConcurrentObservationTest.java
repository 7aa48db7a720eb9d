package dev.capstan.release;

import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.LiveObject;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * An orchestrator that observes concurrently (Kubernetes: a LIST per kind) has the kinds of a
 * release observed at once, by a cast and by an uninstall: each observation here waits until the
 * other kind's has begun too, which only concurrent calls can do. A failure of one is the
 * operation's, before any write.
 */
class ConcurrentObservationTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final Payloads both = payloads(configMap("settings", "v1"), creds("pw"));

  /** Observations of ConfigMaps and Secrets meet here: both must be under way at once. */
  private final CyclicBarrier meet = new CyclicBarrier(2);

  private final ForwardingOrchestrator concurrent =
      new ForwardingOrchestrator(cluster) {
        @Override
        public boolean observesConcurrently() {
          return true;
        }

        @Override
        public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
          if (kind.equals(Kind.CONFIG_MAP) || kind.equals(Kind.SECRET)) {
            try {
              meet.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
              throw new AssertionError("observed " + kind.kind() + "s alone", e);
            }
          }
          return super.observe(kind, namespace, names);
        }
      };

  private final ReleaseController controller =
      ReleaseController.builder(concurrent, cluster).build();

  @Test
  void aCastAndAnUninstallObserveTheKindsOfAReleaseAtOnce() {
    assertThat(controller.cast(spec("app", both), both).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(controller.cast(spec("app", both), both).plan().changesNothing()).isTrue();

    assertThat(controller.uninstall("default", "app", UninstallOptions.defaults()).deleted())
        .hasSize(2);
  }

  @Test
  void aFailedObservationFailsTheCastBeforeAnyWrite() {
    ReleaseController failing =
        ReleaseController.builder(
                new ForwardingOrchestrator(concurrent) {
                  @Override
                  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
                    List<LiveObject> found = super.observe(kind, namespace, names);
                    if (kind.equals(Kind.SECRET)) {
                      throw new ClusterException("list secrets in default: 503 unavailable");
                    }
                    return found;
                  }
                },
                cluster)
            .build();

    assertThatThrownBy(() -> failing.cast(spec("app", both), both))
        .isInstanceOf(ClusterException.class)
        .hasMessage("list secrets in default: 503 unavailable");
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.records("default", "app")).isEmpty();
  }
}
