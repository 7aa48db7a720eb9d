package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.UninstallResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Over a store that keeps no lease intents, an uninstall observes the owned objects while it saves
 * the record {@code UNINSTALLING}: the record write below waits for the observation to start, which
 * only an observation that does not wait for the record write lets happen (else the wait gives up
 * and the order shows it).
 */
class UninstallObservationTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final CountDownLatch observed = new CountDownLatch(1);
  private final List<String> order = new CopyOnWriteArrayList<>();
  private volatile boolean uninstalling;

  @SuppressWarnings("unchecked")
  private <T> T delegate(Class<T> port, Object target) {
    return (T)
        Proxy.newProxyInstance(
            port.getClassLoader(),
            new Class<?>[] {port},
            (proxy, method, args) -> {
              if (method.getName().equals("keepsLeaseIntents")) {
                return false; // the uninstall then records UNINSTALLING before its first delete
              }
              if (uninstalling
                  && (method.getName().equals("observe")
                      || method.getName().equals("observeOwned"))) {
                order.add("observe");
                observed.countDown();
              }
              if (uninstalling
                  && method.getName().equals("updateRecord")
                  && ((Release) args[0]).status() == ReleaseStatus.UNINSTALLING) {
                observed.await(10, TimeUnit.SECONDS);
                order.add("record:uninstalling");
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void theObservationDoesNotWaitForTheUninstallingRecord() {
    ReleaseController controller =
        ReleaseController.builder(
                delegate(Orchestrator.class, cluster), delegate(Store.class, cluster))
            .clock(ManualClock.at(T0))
            .holder("me")
            .ids(() -> "id-1")
            .build();
    Payloads p = payloads(configMap("settings", "1"), creds("pw"));
    controller.cast(spec("app", p), p);
    uninstalling = true;

    UninstallResult u = controller.uninstall(NS, "app", UninstallOptions.defaults());

    // one observation per kind (ConfigMap, Secret): the first before the record write returned
    assertThat(order).first().isEqualTo("observe");
    assertThat(order).containsExactlyInAnyOrder("observe", "observe", "record:uninstalling");
    assertThat(u.deleted()).hasSize(2);
    assertThat(cluster.objects()).isEmpty();
  }
}
