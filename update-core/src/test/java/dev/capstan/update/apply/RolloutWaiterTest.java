package dev.capstan.update.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.update.UpdateException;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.memory.Operation;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RolloutWaiterTest {
  private static final Workload WEB = Workload.of("apps", "web");
  private final ManualClock clock = ManualClock.create();
  private final InMemoryPlatformCluster cluster = InMemoryPlatformCluster.create();
  private final RolloutWaiter waiter =
      RolloutWaiter.polling(cluster, clock, Sleeper.manual(clock), Duration.ofSeconds(2));

  @Test
  void completedRolloutReturnsWithoutSleeping() {
    cluster.putDeployment(DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v1")));

    waiter.await(WEB, Duration.ofMinutes(5));

    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void progressDeadlineExceededFailsAtOnce() {
    cluster
        .neverReady("reg.example/web:v2")
        .putDeployment(DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v2")));

    assertThatThrownBy(() -> waiter.await(WEB, Duration.ofMinutes(5)))
        .isInstanceOf(UpdateException.class)
        .hasMessage("deployment \"web\" exceeded its progress deadline");
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void missingDeploymentAndReadErrorsKeepPollingUntilTheTimeout() {
    cluster.faults().failNext(Operation.ROLLOUT_STATUS, WEB.key(), "etcd leader changed");

    assertThatThrownBy(() -> waiter.await(WEB, Duration.ofSeconds(5)))
        .isInstanceOf(UpdateException.class)
        .hasMessage("timed out; last status: deployment apps/web not found");
    assertThat(clock.sleeps())
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(1));
  }

  @Test
  void deploymentAppearingWhileWaitingCompletesTheWait() {
    clock.onSleep(
        () ->
            cluster.putDeployment(
                DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v1"))));

    waiter.await(WEB, Duration.ofMinutes(1));

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void interruptIsRestoredAndReported() {
    RolloutWaiter interrupted =
        RolloutWaiter.polling(
            cluster,
            clock,
            d -> {
              throw new InterruptedException();
            },
            Duration.ofSeconds(2));
    try {
      assertThatThrownBy(() -> interrupted.await(WEB, Duration.ofMinutes(1)))
          .isInstanceOf(UpdateException.class)
          .hasMessage("interrupted while waiting for apps/web");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}
