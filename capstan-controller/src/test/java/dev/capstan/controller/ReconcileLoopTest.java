package dev.capstan.controller;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The workers and the leader's first pass over the Releases, on the in-memory engine: one Release
 * whose reconcile or spec overflows the stack is reported and retried, and the others are
 * reconciled all the same.
 */
class ReconcileLoopTest {
  private static final String NS = "shop";
  private static final ReleaseKey DEEP = new ReleaseKey(NS, "deep");
  private static final ReleaseKey WEB = new ReleaseKey(NS, "web");

  private static final String TOO_COMPLEX =
      "the Release could not be reconciled: a value of its spec, manifests or chart is too long"
          + " or too deeply nested to check (the check overflowed the stack)";

  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace(NS);
  private final ManualClock clock = ManualClock.create();
  private final FakeReleaseObjects objects = new FakeReleaseObjects();
  private final List<String> outcomes = new CopyOnWriteArrayList<>();
  private final BlockingQueue<String> reconciled = new LinkedBlockingQueue<>();
  private final ReconcileLoop loop = loop();

  /** A loop of one worker whose ConfigMap {@code deep-manifests} overflows the stack when read. */
  private ReconcileLoop loop() {
    ManifestSources sources =
        new ManifestSources() {
          @Override
          public @Nullable Map<String, String> configMap(String namespace, String name) {
            if (name.equals("deep-manifests")) {
              throw new StackOverflowError(); // as a check recursing through a deep value would
            }
            return null;
          }

          @Override
          public @Nullable Map<String, String> secret(String namespace, String name) {
            return null;
          }
        };
    Engines engines =
        (account, history) ->
            new Engines.Engine(
                ReleaseController.builder(cluster, cluster)
                    .clock(clock)
                    .holder("controller-1")
                    .maxHistory(history)
                    .build(),
                sources,
                plan -> List.of());
    ReleaseReconciler reconciler =
        new ReleaseReconciler(
            objects,
            engines,
            Tenancy.open(),
            clock,
            (release, outcome) -> outcomes.add(release + ": " + outcome));
    return new ReconcileLoop(
        reconciler,
        objects,
        (release, outcome) -> {},
        new ControllerObserver() {
          @Override
          public void reconciled(Reconcile r) {
            reconciled.add(r.release() + " " + r.ready() + " " + r.reason());
          }
        },
        clock,
        1,
        1);
  }

  @AfterEach
  void stop() {
    loop.stop(Duration.ofSeconds(10));
  }

  private static Map<String, Object> configMap(String name) {
    return Map.of(
        "apiVersion",
        "v1",
        "kind",
        "ConfigMap",
        "metadata",
        Map.of("name", name),
        "data",
        Map.of());
  }

  /** The next {@code n} reconciles the observer hears of, waiting up to 10 s for each. */
  private List<String> nextReconciles(int n) throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String r = reconciled.poll(10, TimeUnit.SECONDS);
      if (r == null) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  @Test
  void aReconcileThatOverflowsTheStackIsReportedAndRetriedAndTheWorkerGoesOn()
      throws InterruptedException {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "deep",
            Map.of(
                "manifestsFrom", List.of(Map.of("configMap", Map.of("name", "deep-manifests"))))));
    objects.put(
        FakeReleaseObjects.release(NS, "web", Map.of("manifests", List.of(configMap("a")))));
    loop.add(DEEP);
    loop.add(WEB);
    loop.lead();
    loop.start();

    // the Release that overflowed comes back after the queue's first backoff (1 s)
    List<String> seen = nextReconciles(3);
    loop.stop(Duration.ofSeconds(10));

    assertThat(seen)
        .containsExactly(
            "shop/deep False TooComplex", "shop/web True Cast", "shop/deep False TooComplex");
    assertThat(objects.writes)
        .containsExactly(
            "finalizer+ shop/deep",
            "status shop/deep Ready=False TooComplex",
            "finalizer+ shop/web",
            "status shop/web Ready=Unknown Progressing",
            "status shop/web Ready=True Cast");
    assertThat(objects.events)
        .containsExactly(
            "Warning TooComplex shop/deep: " + TOO_COMPLEX,
            "Normal Cast shop/web: revision 1: 1 created");
    assertThat(outcomes)
        .containsExactly(
            "shop/deep: TooComplex: " + TOO_COMPLEX,
            "shop/web: Progressing: casting revision 1",
            "shop/web: revision 1: 1 created");
    Map<?, ?> stalled = requireNonNull(requireNonNull(objects.get(DEEP)).condition("Stalled"));
    assertThat(List.of(stalled.get("status"), stalled.get("reason"), stalled.get("message")))
        .containsExactly("True", "TooComplex", TOO_COMPLEX);
  }

  @Test
  void leadingQueuesEveryReleaseThoughTheSpecOfOneIsTooLongToCheck() {
    // stalled for its generation, so leading reads its spec for the interval of its pause
    Map<String, Object> stalled =
        Map.of(
            "conditions",
            List.of(
                Map.of(
                    "type",
                    "Stalled",
                    "status",
                    "True",
                    "reason",
                    "InvalidSpec",
                    "observedGeneration",
                    1L,
                    "lastTransitionTime",
                    clock.instant().toString())));
    objects.put(
        FakeReleaseObjects.release(
                NS,
                "deep",
                Map.of(
                    "manifests",
                    List.of(configMap("a")),
                    "options",
                    Map.of(
                        "driftIgnore",
                        List.of(
                            Map.of(
                                "kind",
                                "ConfigMap",
                                "paths",
                                List.of("/" + "a".repeat(100_000)))))))
            .withStatus(stalled));
    objects.put(
        FakeReleaseObjects.release(NS, "web", Map.of("manifests", List.of(configMap("a")))));

    loop.lead();

    assertThat(loop.leading()).isTrue();
    assertThat(loop.state().queueDepth()).isEqualTo(2);
  }
}
