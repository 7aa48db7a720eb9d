package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.IgnoredField;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Drift by ownership, in memory as on Kubernetes: a field the release applied that was removed, or
 * that another field manager now holds (through the object or its scale subresource), is drift,
 * shown with who took it and repaired; drift ignore rules leave fields to other writers, neither
 * reported nor written, and the plan says which rule ignored what.
 */
class DriftByOwnershipTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final Manifest WEB =
      yaml(
          """
          {apiVersion: apps/v1, kind: Deployment, metadata: {name: web},
           spec: {replicas: 2, selector: {matchLabels: {app: web}},
            template: {metadata: {labels: {app: web}},
             spec: {containers: [{name: web, image: "acme/web:1"}]}}}}
          """);
  private static final Manifest SETTINGS =
      yaml(
          "{apiVersion: v1, kind: ConfigMap, metadata: {name: web-settings},"
              + " data: {color: blue, size: m}}");

  private static Payloads payloads(Manifest... objects) {
    return Payloads.of(objects);
  }

  private CastResult cast(Payloads p, DriftIgnore... rules) {
    return h.controller.cast(spec(p, rules), p);
  }

  private static ReleaseSpec spec(Payloads p, DriftIgnore... rules) {
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p);
    return spec.withOptions(spec.options().withDriftIgnore(List.of(rules)));
  }

  private static PlannedChange change(Plan plan, Manifest object) {
    return plan.changes().stream()
        .filter(c -> c.ref().equals(object.ref()))
        .findFirst()
        .orElseThrow();
  }

  private long replicas() {
    return ((Number)
            java.util.Objects.requireNonNull(
                h.cluster.object(WEB.ref()).orElseThrow().get("spec.replicas")))
        .longValue();
  }

  @Test
  void aFieldRemovedByHandIsDriftAndTheNextCastRestoresIt() {
    Payloads p = payloads(SETTINGS);
    cast(p);
    // kubectl patch cm web-settings --type json -p '[{"op":"remove","path":"/data/color"}]'
    h.cluster.edit(SETTINGS.ref(), "kubectl-patch", null, m -> m.with("data.color", null));

    Plan plan = h.controller.plan(spec(p), p);

    assertThat(change(plan, SETTINGS).action()).isEqualTo(Action.REPAIR);
    assertThat(change(plan, SETTINGS).reason()).isEqualTo("drift: field data.color removed");
    h.cluster.clearOperations();
    cast(p);
    assertThat(h.cluster.writes()).contains("apply:ConfigMap/default/web-settings");
    assertThat(h.cluster.object(SETTINGS.ref()).orElseThrow().get("data"))
        .isEqualTo(Map.of("color", "blue", "size", "m"));
    assertThat(h.controller.plan(spec(p), p).changesNothing()).isTrue();
  }

  @Test
  void replicasScaledThroughTheScaleSubresourceAreDriftNamingWhoAndAreTakenBack() {
    Payloads p = payloads(WEB);
    cast(p);
    // kubectl scale deploy web --replicas=5
    h.cluster.edit(WEB.ref(), "kubectl", "scale", m -> m.with("spec.replicas", 5));

    Plan plan = h.controller.plan(spec(p), p);

    assertThat(change(plan, WEB).reason())
        .isEqualTo("drift: field spec.replicas set by kubectl (scale subresource)");
    cast(p);
    assertThat(replicas()).isEqualTo(2L);
  }

  @Test
  void aContainerRemovedFromAKeyedListIsDriftByItsKey() {
    Manifest two =
        WEB.with(
            "spec.template.spec.containers",
            List.of(
                Map.of("name", "web", "image", "acme/web:1"),
                Map.of("name", "log", "image", "acme/log:1")));
    Payloads p = payloads(two);
    cast(p);
    h.cluster.edit(
        WEB.ref(),
        "kubectl-edit",
        null,
        m ->
            m.with(
                "spec.template.spec.containers",
                List.of(Map.of("name", "web", "image", "acme/web:1"))));

    assertThat(change(h.controller.plan(spec(p), p), two).reason())
        .isEqualTo("drift: field spec.template.spec.containers[name=log] removed");
  }

  @Test
  void aRuleOfPathsLeavesReplicasToAnotherWriterWhoseValueIsNeverWrittenOver() {
    DriftIgnore replicas = DriftIgnore.paths("apps/Deployment", "/spec/replicas");
    Payloads p = payloads(WEB);
    CastResult first = cast(p, replicas);
    // a create writes the field: the object starts as the manifest has it
    assertThat(replicas()).isEqualTo(2L);
    assertThat(change(first.plan(), WEB).ignored()).isEmpty();
    h.cluster.edit(WEB.ref(), "hpa", "scale", m -> m.with("spec.replicas", 7));

    Plan plan = h.controller.plan(spec(p, replicas), p);

    assertThat(change(plan, WEB).action()).isEqualTo(Action.UNCHANGED);
    assertThat(change(plan, WEB).ignored())
        .containsExactly(
            new IgnoredField(
                "/spec/replicas", "/spec/replicas", "apps/Deployment: /spec/replicas", null));
    h.cluster.clearOperations();
    cast(p, replicas);
    assertThat(h.cluster.writes()).noneMatch(w -> w.startsWith("apply:"));

    // an upgrade writes the Deployment without the field: the writer's value stays
    Manifest v2 =
        WEB.with(
            "spec.template.spec.containers", List.of(Map.of("name", "web", "image", "acme/web:2")));
    Payloads p2 = payloads(v2);
    CastResult second = cast(p2, replicas);
    assertThat(change(second.plan(), v2).action()).isEqualTo(Action.UPDATE);
    assertThat(replicas()).isEqualTo(7L);
    assertThat(h.cluster.object(WEB.ref()).orElseThrow().get("spec.template.spec.containers"))
        .isEqualTo(List.of(Map.of("name", "web", "image", "acme/web:2")));
    assertThat(h.controller.plan(spec(p2, replicas), p2).changesNothing()).isTrue();
  }

  @Test
  void aRuleOfPathsAddedLaterGivesUpAFieldTheReleaseOwnedKeepingItsValue() {
    Payloads p = payloads(WEB);
    cast(p);
    DriftIgnore replicas = DriftIgnore.paths("apps/Deployment", "/spec/replicas").forName("web");

    CastResult r = cast(p, replicas);

    // the content hash leaves the field out: one update, which gives the field up
    assertThat(change(r.plan(), WEB).action()).isEqualTo(Action.UPDATE);
    assertThat(replicas()).isEqualTo(2L);
    h.cluster.edit(WEB.ref(), "hpa", "scale", m -> m.with("spec.replicas", 4));
    assertThat(h.controller.plan(spec(p, replicas), p).changesNothing()).isTrue();
    assertThat(replicas()).isEqualTo(4L);
  }

  @Test
  void aRuleOfManagersTrustsItsWriterButNotAnother() throws Exception {
    DriftIgnore hpa = DriftIgnore.managers("apps/Deployment", "hpa");
    Payloads p = payloads(WEB);
    cast(p, hpa);
    h.cluster.edit(WEB.ref(), "hpa", "scale", m -> m.with("spec.replicas", 6));

    Plan trusted = h.controller.plan(spec(p, hpa), p);

    assertThat(change(trusted, WEB).action()).isEqualTo(Action.UNCHANGED);
    assertThat(PlanRenderer.text(trusted))
        .contains(
            """
                unchanged  apps/Deployment/default/web
                  ignored spec.replicas (set by hpa; rule apps/Deployment: managers hpa)
            """);
    com.fasterxml.jackson.databind.JsonNode json =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(PlanRenderer.json(trusted));
    assertThat(json.path("changes").get(1).path("ignored").toString())
        .isEqualTo(
            "[{\"field\":\"spec.replicas\",\"pointer\":\"/spec/replicas\","
                + "\"rule\":\"apps/Deployment: managers hpa\",\"manager\":\"hpa\"}]");
    // an upgrade leaves the trusted writer's field out
    Manifest v2 =
        WEB.with(
            "spec.template.spec.containers", List.of(Map.of("name", "web", "image", "acme/web:2")));
    cast(payloads(v2), hpa);
    assertThat(replicas()).isEqualTo(6L);

    h.cluster.edit(WEB.ref(), "kubectl", "scale", m -> m.with("spec.replicas", 9));
    assertThat(change(h.controller.plan(spec(payloads(v2), hpa), payloads(v2)), v2).reason())
        .isEqualTo("drift: field spec.replicas set by kubectl (scale subresource)");
  }

  @Test
  void aRuleIsCheckedWhenItIsMadeNamingTheFieldTheRuleAndTheValue() {
    assertThatThrownBy(() -> DriftIgnore.paths("deployment", "/spec/replicas"))
        .hasMessage("kind must be [group/]Kind, e.g. apps/Deployment: 'deployment'");
    assertThatThrownBy(() -> DriftIgnore.paths("apps/Deployment", "spec/replicas"))
        .hasMessage(
            "paths[0]: must be a JSON pointer to a field, e.g. /spec/replicas: 'spec/replicas'");
    assertThatThrownBy(
            () -> DriftIgnore.paths("ConfigMap", "/metadata/labels/capstan.dev~1release-id"))
        .hasMessage(
            "paths[0]: must not be a key of Capstan's ownership stamp:"
                + " '/metadata/labels/capstan.dev~1release-id'");
    assertThatThrownBy(() -> DriftIgnore.managers("ConfigMap", "capstan"))
        .hasMessage(
            "managers[0]: Capstan's own field manager cannot be trusted over itself: 'capstan'");
    assertThatThrownBy(() -> new DriftIgnore("ConfigMap", null, List.of(), List.of()))
        .hasMessage("a rule must name at least one of paths and managers");
    assertThat(
            DriftIgnore.problems("ConfigMap", null, List.of("/data/a~2b"), List.of("\u001b[31m")))
        .containsExactly(
            "paths[0]: must be a JSON pointer (RFC 6901: '~' written '~0', '/' written '~1', no"
                + " empty step): '/data/a~2b'",
            "managers[0]: must be a field manager name of 1 to 128 printable characters: '\\u001b[31m'");
  }

  @Test
  void aPathOrAKindTooLongToCheckIsRefusedByItsLengthWithoutOverflowingTheStack() {
    String path = "/" + "a".repeat(5_000);
    String kind = "a.".repeat(5_000) + "a/Kind";

    assertThat(DriftIgnore.problems(kind, null, List.of("/spec/replicas", path), List.of()))
        .containsExactly(
            "kind must be [group/]Kind of at most 317 characters, e.g. apps/Deployment: '"
                + "a.".repeat(32)
                + "…' (10006 characters)",
            "paths[1]: must be a JSON pointer of at most 1024 characters: '/"
                + "a".repeat(63)
                + "…' (5001 characters)");
    // the longest path taken, escapes and all, is checked in one loop; one more is too long
    String longest = "/data/" + "a~0~1".repeat(203) + "aaa";
    assertThat(longest).hasSize(DriftIgnore.MAX_PATH);
    assertThat(DriftIgnore.problems("ConfigMap", null, List.of(longest), List.of())).isEmpty();
    assertThat(DriftIgnore.problems("ConfigMap", null, List.of(longest + "a"), List.of()))
        .containsExactly(
            "paths[0]: must be a JSON pointer of at most 1024 characters: '/data/"
                + "a~0~1".repeat(11)
                + "a~0…' (1025 characters)");
    String rfc6901 =
        "must be a JSON pointer (RFC 6901: '~' written '~0', '/' written '~1', no empty step): ";
    assertThat(
            DriftIgnore.problems("ConfigMap", null, List.of("/a~", "/a~~0", "/~01~1"), List.of()))
        .containsExactly("paths[0]: " + rfc6901 + "'/a~'", "paths[1]: " + rfc6901 + "'/a~~0'");
  }
}
