package dev.capstan.release;

import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Namespace document in a release is ensured: created when missing, its labels and annotations
 * applied as the release's own fields, referenced, and never deleted unless the release opts in;
 * two releases that carry one Namespace document both succeed and neither takes the other's labels.
 */
class EnsuredNamespaceTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final ResourceRef MONITORING = ResourceRef.namespace("monitoring");

  /** The Namespace document of a monitoring agent's published install manifest. */
  private static Manifest namespace(String labels) {
    return yaml(
        "{apiVersion: v1, kind: Namespace, metadata: {name: monitoring, labels: {"
            + labels
            + "}}}");
  }

  private static Manifest agent(String image) {
    return yaml(
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent, namespace: monitoring}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec:
              hostNetwork: true
              containers: [{name: agent, image: IMAGE, securityContext: {privileged: true}}]
        """
            .replace("IMAGE", image));
  }

  private static Manifest settings(String ns) {
    return yaml(
        "{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: "
            + ns
            + "}, data: {k: v}}");
  }

  private CastResult cast(String release, Payloads payloads) {
    return h.controller.cast(ReleaseSpec.of("monitoring", release, payloads), payloads);
  }

  private Plan plan(String release, Payloads payloads) {
    return h.controller.plan(ReleaseSpec.of("monitoring", release, payloads), payloads);
  }

  private static List<String> lines(Plan plan) {
    return plan.changes().stream().map(EnsuredNamespaceTest::line).toList();
  }

  private static String line(PlannedChange c) {
    return c.action().id()
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  /** The writes to objects and namespaces, without the health checks. */
  private List<String> objectWrites() {
    return h.cluster.writes().stream().filter(w -> !w.equals("verify")).toList();
  }

  private Map<String, String> liveLabels() {
    Map<String, String> labels =
        new java.util.TreeMap<>(h.cluster.namespace("monitoring").orElseThrow().labels());
    labels.remove("kubernetes.io/metadata.name");
    return labels;
  }

  @Test
  void aNamespaceDocumentIsCreatedWithItsLabelsReferencedAndNeverOwned() {
    Payloads v1 =
        Payloads.of(namespace("pod-security.kubernetes.io/enforce: privileged"), agent("a:1"));

    CastResult first = cast("agent", v1);

    assertThat(lines(first.plan()))
        .containsExactly(
            "create Namespace//monitoring (ensured: created with the labels and annotations of"
                + " the document)",
            "create apps/DaemonSet/monitoring/agent");
    // the release's own namespace: the lease, which lives in it, is refused (404), so the cast
    // plans first, ensures the namespace, then takes the lease
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("ensure:") || op.startsWith("lease:acquire"))
        .containsExactly(
            "lease:acquire:monitoring/agent",
            "ensure:monitoring",
            "lease:acquire:monitoring/agent");
    assertThat(h.cluster.writes())
        .containsExactly("ensure:monitoring", "apply:apps/DaemonSet/monitoring/agent", "verify");
    assertThat(liveLabels())
        .containsExactly(Map.entry("pod-security.kubernetes.io/enforce", "privileged"));
    Release record = first.release();
    assertThat(record.owns())
        .extracting(OwnedResource::ref)
        .containsExactly(ResourceRef.of(agent("a:1").kind(), "monitoring", "agent"));
    assertThat(record.references()).containsExactly(MONITORING);

    h.cluster.clearOperations();
    CastResult again = cast("agent", v1);

    assertThat(lines(again.plan()))
        .containsExactly(
            "reference Namespace//monitoring (ensured: its labels and annotations are as the"
                + " document has them)",
            "unchanged apps/DaemonSet/monitoring/agent");
    assertThat(again.plan().changesNothing()).isTrue();
    assertThat(objectWrites()).isEmpty();

    UninstallResult gone =
        h.controller.uninstall("monitoring", "agent", UninstallOptions.defaults());

    assertThat(gone.deleted())
        .containsExactly(ResourceRef.of(agent("a:1").kind(), "monitoring", "agent"));
    assertThat(gone.notes())
        .containsExactly(
            "Namespace//monitoring: kept: the release ensures it, and namespaces are shared"
                + " (deleteNamespaces, the CLI's --delete-namespaces, deletes it with everything"
                + " in it)");
    assertThat(liveLabels()).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
  }

  @Test
  void aLabelChangedOrDroppedIsAppliedAsAnUpdateWithItsReason() {
    cast("agent", Payloads.of(namespace("a: '1', b: '2'"), agent("a:1")));

    Payloads v2 = Payloads.of(namespace("a: '3', c: '4'"), agent("a:1"));

    assertThat(lines(plan("agent", v2)))
        .containsExactly(
            "update Namespace//monitoring (ensured: labels to apply: a=3 (now '1'), c=4; labels"
                + " to remove: b)",
            "unchanged apps/DaemonSet/monitoring/agent");
    h.cluster.clearOperations();
    cast("agent", v2);
    assertThat(objectWrites()).containsExactly("ensure:monitoring");
    assertThat(liveLabels()).containsExactly(Map.entry("a", "3"), Map.entry("c", "4"));
  }

  @Test
  void twoReleasesCarryingOneNamespaceDocumentBothSucceedAndKeepEachOthersLabels() {
    Payloads a =
        Payloads.of(
            namespace("pod-security.kubernetes.io/enforce: privileged, team: a"),
            settings("monitoring"));
    Payloads b =
        Payloads.of(
            namespace("pod-security.kubernetes.io/enforce: privileged, owner: b"),
            yaml(
                "{apiVersion: v1, kind: ConfigMap, metadata: {name: other, namespace: monitoring}}"));
    cast("a", a);
    CastResult second = cast("b", b);

    assertThat(lines(second.plan()).get(0))
        .isEqualTo("update Namespace//monitoring (ensured: labels to apply: owner=b)");
    assertThat(liveLabels())
        .containsExactly(
            Map.entry("owner", "b"),
            Map.entry("pod-security.kubernetes.io/enforce", "privileged"),
            Map.entry("team", "a"));
    // each release's apply is its own: neither re-cast sees the other's labels as a change
    h.cluster.clearOperations();
    assertThat(cast("a", a).plan().changesNothing()).isTrue();
    assertThat(cast("b", b).plan().changesNothing()).isTrue();
    assertThat(objectWrites()).isEmpty();

    // a drops the shared label: b still holds it, so it stays, and a's next plan is a reference
    Payloads aWithout = Payloads.of(namespace("team: a"), settings("monitoring"));
    assertThat(lines(plan("a", aWithout)).get(0))
        .isEqualTo(
            "update Namespace//monitoring (ensured: labels to remove:"
                + " pod-security.kubernetes.io/enforce)");
    cast("a", aWithout);
    assertThat(liveLabels()).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
    assertThat(plan("a", aWithout).changesNothing()).isTrue();

    // neither uninstall deletes it, though both carried it
    h.controller.uninstall("monitoring", "a", UninstallOptions.defaults().withPurge(true));
    h.controller.uninstall("monitoring", "b", UninstallOptions.defaults().withPurge(true));
    assertThat(h.cluster.namespaces()).contains("monitoring");
    assertThat(liveLabels()).containsEntry("owner", "b").containsEntry("team", "a");
  }

  @Test
  void deleteNamespacesDeletesAnEnsuredNamespaceOnlyWhenNothingElseKeepsIt() {
    h.cluster.addNamespace("shop");
    Manifest tools =
        yaml("{apiVersion: v1, kind: Namespace, metadata: {name: tools, labels: {a: x}}}");
    Payloads shop =
        Payloads.of(
            tools,
            yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {b: y}}}"),
            settings("tools"));
    h.controller.cast(ReleaseSpec.of("shop", "app", shop), shop);
    Payloads other =
        Payloads.of(
            yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shared, labels: {c: z}}}"),
            settings("shared"));
    h.controller.cast(ReleaseSpec.of("shop", "other", other), other);
    Payloads mine =
        Payloads.of(
            yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shared, labels: {d: w}}}"),
            settings("elsewhere"),
            yaml("{apiVersion: v1, kind: Namespace, metadata: {name: elsewhere}}"));
    h.controller.cast(ReleaseSpec.of("shop", "mine", mine), mine);

    UninstallResult app =
        h.controller.uninstall(
            "shop", "app", UninstallOptions.defaults().withDeleteNamespaces(true));

    assertThat(app.deleted())
        .containsExactly(
            ResourceRef.of(settings("tools").kind(), "tools", "settings"),
            ResourceRef.namespace("tools"));
    assertThat(app.notes())
        .containsExactly(
            "Namespace//shop: kept: it is the release's own namespace and holds its record;"
                + " uninstall with purge (the CLI's --purge) to delete it with the records");
    assertThat(h.cluster.namespaces()).doesNotContain("tools").contains("shop");

    UninstallResult mineGone =
        h.controller.uninstall(
            "shop", "mine", UninstallOptions.defaults().withDeleteNamespaces(true));
    assertThat(mineGone.notes())
        .containsExactly("Namespace//shared: kept: release shop/other ensures it too");
    assertThat(h.cluster.namespaces()).contains("shared").doesNotContain("elsewhere");
  }

  @Test
  void aDocumentThatAllowsDeletionIsPrunedWhenDroppedAndTheHomeNamespaceOnlyWithThePurge() {
    Manifest deletable =
        yaml(
            "{apiVersion: v1, kind: Namespace, metadata: {name: scratch, annotations:"
                + " {capstan.dev/delete-with-release: 'true'}}}");
    h.cluster.addNamespace("monitoring");
    cast("agent", Payloads.of(deletable, settings("scratch"), settings("monitoring")));

    Payloads without = Payloads.of(settings("monitoring"));
    Plan plan = plan("agent", without);
    assertThat(lines(plan))
        .containsExactly(
            "reference Namespace//monitoring",
            "unchanged ConfigMap/monitoring/settings",
            "prune ConfigMap/scratch/settings",
            "prune Namespace//scratch (no longer ensured, and its document had"
                + " capstan.dev/delete-with-release: \"true\": deletes everything in it)");
    h.cluster.clearOperations();
    // a Namespace is a protected kind: its delete is approved by name (DeleteGateTest)
    ReleaseSpec spec = ReleaseSpec.of("monitoring", "agent", without);
    h.controller.cast(
        spec.withOptions(
            spec.options()
                .withDeleteGate(
                    spec.options()
                        .deleteGate()
                        .approving(List.of(ResourceRef.namespace("scratch"))))),
        without);
    assertThat(objectWrites())
        .containsExactly("delete:ConfigMap/scratch/settings", "delete:Namespace//scratch");

    Manifest home =
        yaml(
            "{apiVersion: v1, kind: Namespace, metadata: {name: monitoring, annotations:"
                + " {capstan.dev/delete-with-release: 'true'}}}");
    Payloads withHome = Payloads.of(home, settings("monitoring"));
    cast("agent", withHome);
    UninstallResult kept =
        h.controller.uninstall("monitoring", "agent", UninstallOptions.defaults());
    assertThat(kept.notes())
        .containsExactly(
            "Namespace//monitoring: kept: it is the release's own namespace and holds its"
                + " record; uninstall with purge (the CLI's --purge) to delete it with the"
                + " records");
    cast("agent", withHome);
    UninstallResult purged =
        h.controller.uninstall("monitoring", "agent", UninstallOptions.defaults().withPurge(true));
    assertThat(purged.deleted())
        .containsExactly(
            ResourceRef.of(settings("monitoring").kind(), "monitoring", "settings"),
            ResourceRef.namespace("monitoring"));
    assertThat(h.cluster.namespaces()).doesNotContain("monitoring");
    assertThat(h.cluster.recordCount("monitoring", "agent")).isZero();
  }

  @Test
  void theJsonPlanMarksEnsuredNamespaces() throws Exception {
    Payloads v1 = Payloads.of(namespace("a: x"), agent("a:1"));
    JsonNode json = new ObjectMapper().readTree(PlanRenderer.json(plan("agent", v1)));

    JsonNode ns = json.get("changes").get(0);
    assertThat(ns.get("key").asText()).isEqualTo("Namespace//monitoring");
    assertThat(ns.get("action").asText()).isEqualTo("create");
    assertThat(ns.get("ensured").asBoolean()).isTrue();
    assertThat(json.get("changes").get(1).has("ensured")).isFalse();
  }

  @Test
  void onlyTheNameLabelsAndAnnotationsOfANamespaceMayBeGiven() {
    assertThat(
            EnsuredNamespace.of(
                yaml(
                    "{apiVersion: v1, kind: Namespace, metadata: {name: x}, spec: {finalizers:"
                        + " [kubernetes]}, status: {phase: Active}}")))
        .isEqualTo(new EnsuredNamespace("x", Map.of(), Map.of()));
    assertThatThrownBy(
            () ->
                Payloads.of(
                    yaml(
                        "{apiVersion: v1, kind: Namespace, metadata: {name: x}, spec:"
                            + " {finalizers: [example.com/hold]}}")))
        .hasMessage(
            "Namespace//x: spec is not applied: a Namespace in a release is ensured (created when"
                + " missing, its labels and annotations applied, never owned), and only its"
                + " metadata.name, metadata.labels and metadata.annotations are applied; remove"
                + " spec from the document");
    assertThatThrownBy(
            () ->
                Payloads.of(
                    yaml(
                        "{apiVersion: v1, kind: Namespace, metadata: {name: x, annotations:"
                            + " {capstan.dev/delete-with-release: 'yes'}}}")))
        .hasMessage(
            "Namespace//x: metadata.annotations[\"capstan.dev/delete-with-release\"] must be"
                + " \"true\" or \"false\": 'yes'");
    // the advice, followed: without the field, the document is ensured
    Payloads fixed =
        Payloads.of(yaml("{apiVersion: v1, kind: Namespace, metadata: {name: x}}"), settings("x"));
    h.cluster.addNamespace("monitoring");
    assertThat(cast("x", fixed).plan().changes().get(1).action().id()).isEqualTo("create");
    // and for a StorageClass, which a release may not carry: created outside, then referenced
    h.cluster.createStorageClass("fast");
    Payloads claim =
        Payloads.of(
            yaml(
                "{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace:"
                    + " x}, spec: {storageClassName: fast, accessModes: [ReadWriteOnce], resources:"
                    + " {requests: {storage: 1Gi}}}}"));
    ReleaseSpec withReference =
        ReleaseSpec.of("monitoring", "claim", claim)
            .withReference(ResourceRef.storageClass("fast"));
    assertThat(h.controller.cast(withReference, claim).release().references())
        .contains(ResourceRef.storageClass("fast"));
    assertThat(EnsuredNamespace.fieldManager("a".repeat(63), "b".repeat(53))).hasSize(125);
    assertThat(EnsuredNamespace.releaseOf("capstan/shop/web")).contains("shop/web");
    assertThat(EnsuredNamespace.releaseOf("capstan")).isEmpty();
    assertThat(EnsuredNamespace.releaseOf("kubectl-label")).isEmpty();
  }
}
