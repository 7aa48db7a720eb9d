package dev.capstan.release;

import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.LiveObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The engine tells the orchestrator which observed names the release's last record names ({@link
 * dev.capstan.release.port.Orchestrator#observeOwned}), so a cluster can read them by their stamp:
 * for a kind whose every name the last record owns, and for no other (the namespace a release only
 * references, a kind with a new name); a release without a record observes without the hint.
 */
class OwnedObservationTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();

  /** Each observation, as {@code owned-by ID: Kind [names]} or {@code plain: Kind [names]}. */
  private final List<String> observations = new ArrayList<>();

  private final ForwardingOrchestrator recording =
      new ForwardingOrchestrator(cluster) {
        @Override
        public List<LiveObject> observe(
            Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
          observations.add("plain: " + kind.kind() + " " + new TreeSet<>(names));
          return super.observe(kind, namespace, names);
        }

        @Override
        public List<LiveObject> observeOwned(
            Kind kind,
            String namespace,
            Set<String> names,
            Map<String, Manifest> applied,
            ReleaseIdentity owner) {
          observations.add(
              "owned by " + owner.id() + ": " + kind.kind() + " " + new TreeSet<>(names));
          return super.observe(kind, namespace, names);
        }
      };

  private final ReleaseController controller =
      ReleaseController.builder(recording, cluster).build();

  @Test
  void theNamesTheLastRecordOwnsAreObservedAsItsOwn() {
    Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"), creds("pw"));
    String id = controller.cast(spec("app", v1), v1).release().identity().id();
    assertThat(observations)
        .containsExactlyInAnyOrder(
            "plain: ConfigMap [a, b]", "plain: Secret [creds]", "plain: Namespace [default]");

    observations.clear();
    assertThat(controller.cast(spec("app", v1), v1).plan().changesNothing()).isTrue();
    assertThat(observations)
        .containsExactlyInAnyOrder(
            "owned by " + id + ": ConfigMap [a, b]",
            "owned by " + id + ": Secret [creds]",
            "plain: Namespace [default]");

    // a new name among the ConfigMaps: that kind is observed the ordinary way
    observations.clear();
    Payloads v2 =
        payloads(configMap("a", "2"), configMap("b", "1"), configMap("c", "1"), creds("pw"));
    controller.cast(spec("app", v2), v2);
    assertThat(observations)
        .containsExactlyInAnyOrder(
            "plain: ConfigMap [a, b, c]",
            "owned by " + id + ": Secret [creds]",
            "plain: Namespace [default]");

    observations.clear();
    assertThat(controller.uninstall("default", "app", UninstallOptions.defaults()).deleted())
        .hasSize(4);
    assertThat(observations)
        .containsExactlyInAnyOrder(
            "owned by " + id + ": ConfigMap [a, b, c]", "owned by " + id + ": Secret [creds]");
  }
}
