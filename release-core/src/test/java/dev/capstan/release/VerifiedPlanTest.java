package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Verified plans (ARCHITECTURE.md, "Verified plans"): with {@code verifyOnServer}, every object the
 * plan writes is dry-run before the first write; what the cluster refuses is a conflict of the plan
 * naming the object and the cluster's message, and nothing is written.
 */
class VerifiedPlanTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Manifest configMap(String name) {
    return yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: " + name + "}, data: {a: b}}");
  }

  private static Manifest service(int port) {
    return yaml(
        "{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {selector: {app: web},"
            + " ports: [{port: "
            + port
            + "}]}}");
  }

  /** Five objects: three ConfigMaps, a Deployment and the Service, in apply order. */
  private static Payloads five(int port) {
    return Payloads.of(
        configMap("a"),
        configMap("b"),
        service(port),
        configMap("c"),
        yaml(
            "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector:"
                + " {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec:"
                + " {containers: [{name: web, image: \"acme/web:1\"}]}}}}"));
  }

  private static ReleaseSpec spec(Payloads p, boolean verify) {
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p);
    return spec.withOptions(spec.options().withVerifyOnServer(verify));
  }

  @Test
  void aRefusedObjectIsAConflictOfThePlanAndTheCastWritesNothing() {
    h.cluster
        .faults()
        .failAlways(
            Operation.APPLY,
            "Service/default/web",
            "Service \"web\" is invalid: spec.ports[0].port: Invalid value: 70000");
    Payloads p = five(70000);

    assertThatThrownBy(() -> h.controller.cast(spec(p, true), p))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "release default/app has unresolved conflicts; nothing was written:"
                          + " Service/default/web\n"
                          + "  - Service/default/web: refused by the API server's dry run: apply"
                          + " Service/default/web: Service \"web\" is invalid: spec.ports[0].port:"
                          + " Invalid value: 70000");
              assertThat(e.plan().conflicts())
                  .extracting(c -> c.ref().key())
                  .containsExactly("Service/default/web");
            });
    assertThat(h.cluster.writes()).isEmpty();
    // every object is verified, in apply order, before anything is written; no record is saved
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("verify-apply:") || op.startsWith("record:create"))
        .containsExactly(
            "verify-apply:ConfigMap/default/a",
            "verify-apply:ConfigMap/default/b",
            "verify-apply:ConfigMap/default/c",
            "verify-apply:apps/Deployment/default/web",
            "verify-apply:Service/default/web");
    assertThat(h.cluster.recordCount(NS, "app")).isZero();
  }

  @Test
  void atAWriteParallelismOfFourTheVerdictsReadInPlanOrderAndARefusalStillWritesNothing() {
    Fixtures.Harness wide = new Fixtures.Harness("me", 4);
    wide.cluster
        .faults()
        .failAlways(
            Operation.APPLY,
            "Service/default/web",
            "Service \"web\" is invalid: spec.ports[0].port: Invalid value: 70000");
    wide.cluster
        .faults()
        .failAlways(
            Operation.APPLY, "ConfigMap/default/a", "ConfigMap \"a\" is invalid: data: Too long");
    Payloads p = five(70000);

    assertThatThrownBy(() -> wide.controller.cast(spec(p, true), p))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e ->
                assertThat(e.plan().conflicts())
                    .extracting(c -> c.ref().key() + ": " + c.reason())
                    .containsExactly(
                        "ConfigMap/default/a: refused by the API server's dry run: apply"
                            + " ConfigMap/default/a: ConfigMap \"a\" is invalid: data: Too long",
                        "Service/default/web: refused by the API server's dry run: apply"
                            + " Service/default/web: Service \"web\" is invalid:"
                            + " spec.ports[0].port: Invalid value: 70000"));
    assertThat(wide.cluster.writes()).isEmpty();
    // every object is dry-run (up to four at once, so in any order), and nothing is recorded
    assertThat(wide.cluster.operations())
        .filteredOn(op -> op.startsWith("verify-apply:") || op.startsWith("record:create"))
        .containsExactlyInAnyOrder(
            "verify-apply:ConfigMap/default/a",
            "verify-apply:ConfigMap/default/b",
            "verify-apply:ConfigMap/default/c",
            "verify-apply:apps/Deployment/default/web",
            "verify-apply:Service/default/web");
    assertThat(wide.cluster.recordCount(NS, "app")).isZero();
  }

  @Test
  void thePlanShowsTheRefusalAndWritesNothing() {
    h.cluster
        .faults()
        .failAlways(Operation.APPLY, "Service/default/web", "port: Invalid value: 70000");
    Payloads p = five(70000);

    Plan plan = h.controller.plan(spec(p, true), p);

    assertThat(plan.applyable()).isFalse();
    assertThat(PlanRenderer.text(plan))
        .contains(
            "Service/default/web  (refused by the API server's dry run: apply Service/default/web:"
                + " port: Invalid value: 70000)");
    assertThat(plan.counts().get(Action.CREATE)).isEqualTo(4);
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void withoutVerificationTheSameCastWritesWhatComesBeforeTheRefusal() {
    h.cluster
        .faults()
        .failAlways(Operation.APPLY, "Service/default/web", "port: Invalid value: 70000");
    Payloads p = five(70000);

    assertThatThrownBy(() -> h.controller.cast(spec(p, false), p))
        .isInstanceOf(CastFailedException.class);

    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("verify-apply:"));
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/a",
            "apply:ConfigMap/default/b",
            "apply:ConfigMap/default/c",
            "apply:apps/Deployment/default/web");
  }

  @Test
  void aVerifiedCastThatNothingRefusesWritesAsBeforeOneDryRunPerWrittenObject() {
    Payloads p = five(80);
    h.controller.cast(spec(p, true), p);
    h.cluster.clearOperations();
    Payloads changed = five(8080);

    h.controller.cast(spec(changed, true), changed);

    // only the object the plan updates is sent, before its write
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("verify-apply:") || op.startsWith("apply:"))
        .containsExactly("verify-apply:Service/default/web", "apply:Service/default/web");
  }

  @Test
  void anImmutableFieldChangeIsRefusedInThePlanNotHalfWayThroughTheCast() {
    Payloads p = five(80);
    h.controller.cast(spec(p, true), p);
    h.cluster.clearOperations();
    Payloads changed =
        Payloads.of(
            configMap("a"),
            configMap("b"),
            service(80),
            configMap("c").with("data.a", "changed"),
            yaml(
                "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector:"
                    + " {matchLabels: {app: web2}}, template: {metadata: {labels: {app: web2}},"
                    + " spec: {containers: [{name: web, image: \"acme/web:1\"}]}}}}"));

    assertThatThrownBy(() -> h.controller.cast(spec(changed, true), changed))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e ->
                assertThat(e.plan().conflicts())
                    .singleElement()
                    .satisfies(
                        c ->
                            assertThat(c.reason())
                                .isEqualTo(
                                    "refused by the API server's dry run: dry-run apply"
                                        + " Deployment default/web failed (HTTP 422):"
                                        + " Deployment \"web\" is invalid: spec.selector: field"
                                        + " is immutable")));
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void anObjectInANamespaceTheCastCreatesIsLeftToItsWriteWithAWarning() {
    Manifest inNew =
        yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: fresh}, data: {}}");
    Payloads p = Payloads.of(inNew);
    ReleaseSpec spec = spec(p, true);
    spec = spec.withOptions(spec.options().withCreateNamespace(true));

    h.controller.cast(spec, p);

    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("verify-apply:"));
    assertThat(h.events)
        .filteredOn(ReleaseEvent.Warning.class::isInstance)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: ConfigMap/fresh/a: not verified before the cast, its namespace fresh is"
                + " created by this cast");
    assertThat(h.cluster.writes()).contains("apply:ConfigMap/fresh/a");
  }

  /**
   * A reviewed plan's cast verifies it again under the lease, without warning a second time of what
   * the plan, as reviewed, already said is left to its write.
   */
  @Test
  void aReviewedPlansCastDoesNotRepeatThePlansWarnings() {
    Manifest inNew =
        yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: fresh}, data: {}}");
    Payloads p = Payloads.of(inNew);
    ReleaseSpec spec = spec(p, true);
    spec = spec.withOptions(spec.options().withCreateNamespace(true));

    Plan plan = h.controller.plan(new ReleaseInput(spec, p));
    h.controller.cast(plan, p);

    assertThat(h.events)
        .filteredOn(ReleaseEvent.Warning.class::isInstance)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: ConfigMap/fresh/a: not verified before the cast, its namespace fresh is"
                + " created by this cast");
    assertThat(h.cluster.writes()).contains("apply:ConfigMap/fresh/a");
  }

  @Test
  void aClusterThatCannotAnswerFailsThePlanBeforeAnyWrite() {
    h.cluster.faults().failOn(Operation.VERIFY_APPLY, 2);
    Payloads p = five(80);

    assertThatThrownBy(() -> h.controller.cast(spec(p, true), p))
        .isInstanceOf(ClusterException.class)
        .hasMessage("verify_apply ConfigMap/default/b failed: injected fault on call 2");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(List.copyOf(h.cluster.operations()))
        .filteredOn(op -> op.startsWith("verify-apply:"))
        .containsExactly("verify-apply:ConfigMap/default/a");
  }
}
