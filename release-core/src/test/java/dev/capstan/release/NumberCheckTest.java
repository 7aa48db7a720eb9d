package dev.capstan.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ApiJson;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Every object and hook a cast would write that holds a number beyond 32 bits is shown to the
 * cluster ({@code Orchestrator.checkNumbers}) before anything is written, and the cluster's answer
 * refuses the cast with the other problems; an object of smaller numbers is never asked about. A
 * hook's object is held to the API server's limits as the release's objects are.
 */
class NumberCheckTest {

  private static Manifest object(String apiVersion, String kind, String name, Object count) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            apiVersion,
            "kind",
            kind,
            "metadata",
            Map.of("name", name, "namespace", "shop"),
            "spec",
            Map.of("items", List.of(Map.of("count", count)))));
  }

  @Test
  void objectsAndHooksWithNumbersBeyond32BitsAreCheckedBeforeAnyWrite() {
    InMemoryCluster cluster = InMemoryCluster.create();
    List<String> asked = new CopyOnWriteArrayList<>();
    ForwardingOrchestrator checking =
        new ForwardingOrchestrator(cluster) {
          @Override
          public Optional<String> checkNumbers(Manifest object) {
            asked.add(object.name());
            return object.name().equals("fine")
                ? Optional.empty()
                : Optional.of(object.name() + ": too large for its field");
          }
        };
    Payloads payloads =
        Payloads.builder()
            .add(object("apps/v1", "Deployment", "small", 2147483647))
            .add(object("apps/v1", "Deployment", "big", 4294967298L))
            .add(object("apps/v1", "Deployment", "fine", -2147483649L))
            .hook(Hook.of(object("batch/v1", "Job", "hooked", 1e10), HookPhase.PRE_INSTALL))
            .build();
    ReleaseController controller = ReleaseController.builder(checking, cluster).build();

    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of("shop", "app", payloads), payloads))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "big: too large for its field", "hooked: too large for its field"));
    assertThat(asked).containsExactly("big", "fine", "hooked");
    assertThat(cluster.records("shop", "app")).isEmpty();
    assertThat(cluster.observe(Kind.DEPLOYMENT, "shop", Set.of("small", "big", "fine"))).isEmpty();
  }

  @Test
  void aPlanRefusesWhatItsCastWouldRefuseBeforeAPersonReviewsIt() {
    InMemoryCluster cluster = InMemoryCluster.create();
    ForwardingOrchestrator checking =
        new ForwardingOrchestrator(cluster) {
          @Override
          public Optional<String> checkNumbers(Manifest object) {
            return Optional.of(object.name() + ": too large for its field");
          }
        };
    Payloads payloads =
        Payloads.builder().add(object("apps/v1", "Deployment", "big", 4294967298L)).build();
    ReleaseController controller = ReleaseController.builder(checking, cluster).build();
    cluster.clearOperations();

    assertThatThrownBy(() -> controller.plan(ReleaseInput.of("shop", "app", payloads)))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e -> assertThat(e.problems()).containsExactly("big: too large for its field"));
    assertThat(cluster.operations()).isEmpty();
  }

  @Test
  void aHooksObjectIsHeldToTheApiServersLimitsAsTheReleasesObjectsAre() {
    InMemoryCluster cluster = InMemoryCluster.create();
    Payloads payloads =
        Payloads.builder()
            .add(object("apps/v1", "Deployment", "web", 1))
            .hook(
                Hook.of(
                    object("batch/v1", "Job", "migrate", new BigInteger("18446744073709551616")),
                    HookPhase.PRE_INSTALL))
            .build();
    ReleaseController controller = ReleaseController.builder(cluster, cluster).build();

    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of("shop", "app", payloads), payloads))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "Job shop/migrate: spec.items[0].count "
                            + ApiJson.INTEGER_RULE
                            + "; quote it for a string: 18446744073709551616"));
    assertThat(cluster.records("shop", "app")).isEmpty();
  }
}
