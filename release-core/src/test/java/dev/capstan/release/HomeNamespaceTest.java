package dev.capstan.release;

import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import org.junit.jupiter.api.Test;

/**
 * The release's own namespace holds its record and lease: it is referenced by every plan when the
 * store keeps them there, refused by the plan when missing, and created first with {@code
 * createNamespace}, even when no object of the release lands in it.
 */
class HomeNamespaceTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  /** A release of {@code -n monitoring} whose every object is in {@code kube-system}. */
  private static final Manifest AGENT =
      yaml(
          "{apiVersion: v1, kind: ServiceAccount, metadata: {name: agent, namespace:"
              + " kube-system}}");

  private final Payloads payloads = Payloads.of(AGENT);

  {
    h.cluster.addNamespace("kube-system");
  }

  @Test
  void withoutCreateNamespaceThePlanRefusesAMissingHomeNamespaceAndNothingIsWritten() {
    ReleaseSpec spec = ReleaseSpec.of("monitoring", "agent", payloads);

    Plan plan = h.controller.plan(spec, payloads);
    assertThat(PlanRenderer.text(plan))
        .isEqualTo(
            """
            Plan for release monitoring/agent: revision 1 (first install)
              = reference  Namespace//kube-system
              ✗ conflict   Namespace//monitoring  (the release's namespace 'monitoring' does not \
            exist, and its record and lease are kept there; create it, or pass createNamespace \
            (the CLI's --create-namespace) to have the cast create it)
              + create     ServiceAccount/kube-system/agent
            Summary: 1 create, 1 conflict, 1 reference
            Not applyable: 1 conflict must be resolved first.
            """);

    h.cluster.clearOperations();
    ReleaseConflictException refused =
        catchThrowableOfType(
            ReleaseConflictException.class, () -> h.controller.cast(spec, payloads));
    assertThat(refused.plan().conflicts())
        .extracting(c -> c.ref().key())
        .containsExactly("Namespace//monitoring");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.operations())
        .noneMatch(op -> op.startsWith("record:create") || op.startsWith("lease:release"));
  }

  @Test
  void theOtherAdviceCreatingTheNamespaceFirstWorksToo() {
    h.cluster.addNamespace("monitoring");

    CastResult cast = h.controller.cast(ReleaseSpec.of("monitoring", "agent", payloads), payloads);

    assertThat(cast.plan().changes())
        .extracting(c -> c.action().id() + " " + c.ref().key())
        .containsExactly(
            "reference Namespace//kube-system",
            "reference Namespace//monitoring",
            "create ServiceAccount/kube-system/agent");
  }

  @Test
  void createNamespaceCreatesTheHomeNamespaceBeforeTheLeaseThoughNoObjectIsInIt() {
    ReleaseSpec spec = ReleaseSpec.of("monitoring", "agent", payloads).withCreateNamespace(true);

    CastResult cast = h.controller.cast(spec, payloads);

    assertThat(cast.plan().changes())
        .extracting(c -> c.action().id() + " " + c.ref().key())
        .containsExactly(
            "reference Namespace//kube-system",
            "reference Namespace//monitoring",
            "create ServiceAccount/kube-system/agent");
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("namespace:") || op.startsWith("lease:acquire"))
        .containsExactly("namespace:monitoring", "lease:acquire:monitoring/agent");
    assertThat(h.cluster.recordCount("monitoring", "agent")).isEqualTo(1);
    assertThat(cast.release().references())
        .containsExactly(ResourceRef.namespace("kube-system"), ResourceRef.namespace("monitoring"));

    h.cluster.clearOperations();
    assertThat(h.controller.cast(spec, payloads).plan().changesNothing()).isTrue();
    assertThat(h.cluster.writes()).containsExactly("verify");
  }
}
