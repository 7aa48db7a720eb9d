package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The CRD safety gate on release casts and rollbacks: a CRD change that would break the objects
 * stored at it is shown in the plan as a conflict naming the CRD and what would break, and refused
 * before any write; with {@code allowUnsafeCrdChanges} the changes the API server accepts go
 * through with their findings; a stored version removed is refused regardless (the API server
 * refuses it too), with the steps that make it possible.
 */
class CrdSafetyTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final String CRD_KEY =
      "apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com";

  private static final String SCHEMA =
      "{openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size:"
          + " {type: integer}, color: {type: string}}}}}}";

  private static String version(String name, boolean served, boolean storage, String schema) {
    return "{name: "
        + name
        + ", served: "
        + served
        + ", storage: "
        + storage
        + ", schema: "
        + schema
        + "}";
  }

  /** A Widget someone stored: what a narrowed schema could break. */
  private static final Manifest WIDGET =
      Fixtures.yaml(
          "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w1}, spec: {size: 1}}");

  private static Payloads widgets(String... versions) {
    return Payloads.of(
        yaml(
            "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name:"
                + " widgets.example.com}, spec: {group: example.com, scope: Namespaced, names:"
                + " {kind: Widget, plural: widgets}, versions: ["
                + String.join(", ", versions)
                + "]}}"),
        Fixtures.configMap("settings", "v1"));
  }

  private static final Payloads V1 = widgets(version("v1", true, true, SCHEMA));

  /** v1 kept and served, v2 the storage version: safe, and v1 and v2 are then both stored. */
  private static final Payloads V1_V2 =
      widgets(version("v1", true, false, SCHEMA), version("v2", true, true, SCHEMA));

  private static final Payloads V2_ONLY = widgets(version("v2", true, true, SCHEMA));

  private static final String REMOVED_V1 =
      "unsafe CRD change: version v1: stored version removed (status.storedVersions lists it, so"
          + " objects may still be stored at v1 and could no longer be read); migrate the objects"
          + " stored at v1 to a version the CRD keeps (write each again there, resetting its"
          + " metadata.managedFields, whose entries at v1 would fail every later apply) and remove"
          + " v1 from its status.storedVersions,"
          + " then cast again (the API server refuses the change until then)";

  private static ReleaseSpec allowing(Payloads p) {
    return spec("app", p).withOptions(ReleaseOptions.defaults().withAllowUnsafeCrdChanges(true));
  }

  private static @Nullable Object storedVersions(InMemoryCluster cluster) {
    Map<String, Object> status =
        cluster
            .observe(ResourceRef.parse(CRD_KEY).kind(), "", Set.of("widgets.example.com"))
            .get(0)
            .status();
    return status == null ? null : status.get("storedVersions");
  }

  @Test
  void aCrdChangeWithAPathIsAnUpdateAndTheStoredVersionsGrow() {
    h.cast("app", V1);

    CastResult r = h.cast("app", V1_V2);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.ref().key().equals(CRD_KEY))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.UPDATE);
              assertThat(c.reason()).isNull();
            });
    assertThat(storedVersions(h.cluster)).isEqualTo(List.of("v1", "v2"));
    // kept in the cluster's state too
    assertThat(storedVersions(InMemoryCluster.importState(h.cluster.exportState())))
        .isEqualTo(List.of("v1", "v2"));
  }

  @Test
  void aCastThatDropsAStoredVersionIsRefusedBeforeAnyWriteAndThePlanSaysWhy() {
    h.cast("app", V1);
    h.cast("app", V1_V2);
    List<String> writes = h.cluster.writes();

    assertThatThrownBy(() -> h.cast("app", V2_ONLY))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "release default/app has unresolved conflicts; nothing was written: "
                          + CRD_KEY
                          + "\n  - "
                          + CRD_KEY
                          + ": "
                          + REMOVED_V1);
              assertThat(PlanRenderer.text(e.plan()))
                  .isEqualTo(
                      "Plan for release default/app: revision 3 (from 2)\n"
                          + "  = reference  Namespace//default\n"
                          + "  ✗ conflict   "
                          + CRD_KEY
                          + "  ("
                          + REMOVED_V1
                          + ")\n"
                          + "Summary: 1 unchanged, 1 conflict, 1 reference\n"
                          + "Not applyable: 1 conflict must be resolved first.\n");
              assertThat(PlanRenderer.json(e.plan()))
                  .contains("\"action\" : \"conflict\"")
                  .contains("\"reason\" : \"" + REMOVED_V1 + "\"");
            });
    assertThat(h.cluster.writes()).isEqualTo(writes);
    assertThat(h.controller.history(NS, "app")).hasSize(2);
    // allowing unsafe changes does not let it through: the API server would refuse it
    assertThatThrownBy(() -> h.controller.cast(allowing(V2_ONLY), V2_ONLY))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageEndingWith(REMOVED_V1);
    assertThat(h.cluster.writes()).isEqualTo(writes);
  }

  @Test
  void aRollbackAcrossTheCrdsVersionsIsRefusedTooAndItsPlanShowsIt() {
    h.cast("app", V1);
    h.cast("app", V1_V2);
    List<String> writes = h.cluster.writes();
    String removedV2 =
        "unsafe CRD change: version v2: stored version removed (status.storedVersions lists it, so"
            + " objects may still be stored at v2 and could no longer be read); migrate the"
            + " objects stored at v2 to a version the CRD keeps (write each again there, resetting"
            + " its metadata.managedFields, whose entries at v2 would fail every later apply) and"
            + " remove v2 from its"
            + " status.storedVersions, then cast again (the API server refuses the change until"
            + " then)";

    Plan plan = h.controller.planRollback(NS, "app", 1);
    assertThat(plan.applyable()).isFalse();
    assertThat(plan.conflicts())
        .singleElement()
        .satisfies(c -> assertThat(c.reason()).isEqualTo(removedV2));

    assertThatThrownBy(() -> h.controller.rollback(NS, "app", 1))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageEndingWith(CRD_KEY + ": " + removedV2);
    assertThat(h.cluster.writes()).isEqualTo(writes);
    assertThat(h.controller.history(NS, "app")).hasSize(2);
  }

  @Test
  void bothPiecesOfAdviceFollowedLetARollbackAcrossAStoredVersionAndANarrowedSchemaThrough() {
    h.cluster.put(WIDGET, null);
    String wider =
        "{openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size:"
            + " {type: integer}, color: {type: string}, shape: {type: string}}}}}}";
    h.cast("app", V1);
    // v2 the storage version (v1 and v2 stored), v1's schema given a property
    h.cast("app", widgets(version("v1", true, false, wider), version("v2", true, true, SCHEMA)));
    String narrowed =
        "version v1: schema narrowed: property spec.shape removed (objects stored: at v1:"
            + " example.com/Widget/default/w1)";

    // revision 1 drops v2 and narrows v1 again
    assertThat(h.controller.planRollback(NS, "app", 1).conflicts())
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.reason())
                    .isEqualTo(
                        "unsafe CRD change: version v2: stored version removed"
                            + " (status.storedVersions lists it, so objects may still be stored at"
                            + " v2 and could no longer be read); "
                            + narrowed
                            + "; migrate the objects stored at v2 to a version the CRD keeps (write"
                            + " each again there, resetting its metadata.managedFields, whose"
                            + " entries at v2 would fail every later apply) and remove v2 from its"
                            + " status.storedVersions, then cast again (the API server refuses the"
                            + " change until then); and allow unsafe CRD changes"
                            + " (allowUnsafeCrdChanges, --allow-unsafe-crd-changes) for the rest"));

    // the migration, done: v2 no longer stored; what is left is for the option
    h.cluster.storedVersions(ResourceRef.parse(CRD_KEY), List.of("v1"));
    List<String> writes = h.cluster.writes();
    CastResult r =
        h.controller.rollback(
            NS, "app", 1, ReleaseOptions.defaults().withAllowUnsafeCrdChanges(true));

    assertThat(r.release().revision()).isEqualTo(3);
    assertThat(r.plan().changes())
        .filteredOn(c -> c.ref().key().equals(CRD_KEY))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.UPDATE);
              assertThat(c.reason())
                  .isEqualTo(
                      "unsafe CRD change, applied because unsafe CRD changes are allowed: version"
                          + " v1: storage version changes from v2 to v1 without a path (v2 must"
                          + " stay served so objects stored at it can be read and migrated); "
                          + narrowed);
            });
    assertThat(h.cluster.writes().subList(writes.size(), h.cluster.writes().size()))
        .filteredOn(w -> !w.equals("verify")) // health checks, not writes
        .containsExactly("apply:" + CRD_KEY);
  }

  @Test
  void aSchemaNarrowedWhereNoObjectIsStoredAndAStatusOnlyChangeNeverBlock() {
    h.cast("app", V1);
    h.cluster.clearOperations();
    String narrowed =
        "{openAPIV3Schema: {type: object, required: [status], properties: {spec: {type: object,"
            + " required: [size], properties: {size: {type: integer}}}, status: {type: object,"
            + " required: [phase], properties: {phase: {type: string}}}}}}";
    Payloads next = widgets(version("v1", true, true, narrowed));

    CastResult r = h.cast("app", next);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.ref().key().equals(CRD_KEY))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.UPDATE);
              assertThat(c.reason()).isNull();
            });
    // the one look at what is stored
    assertThat(h.cluster.writes()).contains("apply:" + CRD_KEY);
  }

  @Test
  void aNarrowedSchemaIsRefusedAndAllowingUnsafeChangesLetsItThroughWithTheFindings() {
    h.cast("app", V1);
    h.cluster.put(WIDGET, null);
    String narrowed =
        "{openAPIV3Schema: {type: object, properties: {spec: {type: object, required: [size],"
            + " properties: {size: {type: integer}}}}}}";
    Payloads next = widgets(version("v1", true, true, narrowed));
    String findings =
        "version v1: schema narrowed: property spec.color removed; version v1: schema narrowed:"
            + " required field spec.size added (objects stored: at v1: example.com/Widget/default/w1)";

    assertThatThrownBy(() -> h.cast("app", next))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageEndingWith(
            CRD_KEY
                + ": unsafe CRD change: "
                + findings
                + "; allow unsafe CRD changes (allowUnsafeCrdChanges, --allow-unsafe-crd-changes)"
                + " to apply it anyway");

    // the advice, followed
    CastResult r = h.controller.cast(allowing(next), next);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.ref().key().equals(CRD_KEY))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.UPDATE);
              assertThat(c.reason())
                  .isEqualTo(
                      "unsafe CRD change, applied because unsafe CRD changes are allowed: "
                          + findings);
            });
    assertThat(h.cluster.writes()).contains("apply:" + CRD_KEY);
  }

  @Test
  void aStoredVersionNoLongerServedIsRefusedUnlessAllowed() {
    h.cast("app", V1);
    Payloads unserved =
        widgets(version("v1", false, false, SCHEMA), version("v2", true, true, SCHEMA));

    assertThatThrownBy(() -> h.cast("app", unserved))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageEndingWith(
            ": unsafe CRD change: version v1: stored version no longer served (objects stored at v1"
                + " could no longer be read); allow unsafe CRD changes (allowUnsafeCrdChanges,"
                + " --allow-unsafe-crd-changes) to apply it anyway");
    assertThat(h.controller.cast(allowing(unserved), unserved).release().revision()).isEqualTo(2);
  }

  @Test
  void aReviewedPlanMadeWithoutPayloadsIsGatedWhenCastWithThem() {
    h.cast("app", V1);
    h.cast("app", V1_V2);
    List<String> writes = h.cluster.writes();
    // from the spec alone the desired CRD is not known: the plan cannot tell the change is unsafe
    Plan blind = h.controller.plan(spec("app", V2_ONLY));
    assertThat(blind.applyable()).isTrue();

    assertThatThrownBy(() -> h.controller.cast(blind, V2_ONLY))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageEndingWith(CRD_KEY + ": " + REMOVED_V1);
    assertThat(h.cluster.writes()).isEqualTo(writes);
    assertThat(h.controller.history(NS, "app")).hasSize(2);
  }

  @Test
  void whetherUnsafeCrdChangesAreAllowedShapesThePlanSoAReviewedPlanKeepsIt() {
    h.cast("app", V1);
    Plan plan = h.controller.plan(spec("app", V1_V2), V1_V2);

    assertThatThrownBy(
            () -> plan.withOptions(ReleaseOptions.defaults().withAllowUnsafeCrdChanges(true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "allowUnsafeCrdChanges shapes the plan and must stay as planned (false), not true;"
                + " plan again with it");
  }
}
