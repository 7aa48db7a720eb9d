package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ClusterException;
import dev.capstan.common.ManualClock;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.InMemoryCharts;
import dev.capstan.release.chart.PrivateNetworks;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.DeleteBudget;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.port.Store;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One reconcile at a time on the in-memory engine: the exact writes, statuses, Events and what
 * comes next, for each outcome a Release can have.
 */
class ReleaseReconcilerTest {
  private static final String NS = "shop";
  private static final ReleaseKey WEB = new ReleaseKey(NS, "web");

  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace(NS);
  private final ManualClock clock = ManualClock.create();
  private final FakeReleaseObjects objects = new FakeReleaseObjects();
  private final Map<String, Map<String, String>> configMaps = new HashMap<>();
  private final Map<String, Map<String, String>> secrets = new HashMap<>();
  private final List<String> outcomes = new ArrayList<>();

  /** The requests each account (its user, or {@code controller}) may not make, as reviewed. */
  private final Map<String, List<String>> denied = new HashMap<>();

  /** The account of every engine asked for, in order. */
  private final List<String> castAs = new ArrayList<>();

  /** The Secrets the accounts may not read (namespace/name). */
  private final List<String> forbiddenSecrets = new ArrayList<>();

  /** The charts the engines render, in memory. */
  private final InMemoryCharts charts = new InMemoryCharts();

  /** What renders the accounts' charts: {@link #charts} unless a test says otherwise. */
  private ChartRenderer renderer = charts;

  /** Hears the engines' events: a test steps in at a point of a cast. */
  private ReleaseListener engineListener = e -> {};

  private Tenancy tenancy = Tenancy.open();
  private DeleteGate deletePolicy = DeleteGate.defaults();

  /** The heap each Release may take: none but the release-wide limits unless a test says so. */
  private @Nullable ReleaseHeap heap;

  private ReleaseReconciler reconciler = reconciler();

  /** What reading a release's records throws, when a test says (an unreadable record). */
  private @Nullable RecordFormatException unreadable;

  /** {@link #cluster} as the engines' store: its record reads throw {@link #unreadable} if set. */
  private Store store() {
    return (Store)
        Proxy.newProxyInstance(
            Store.class.getClassLoader(),
            new Class<?>[] {Store.class},
            (proxy, method, args) -> {
              RecordFormatException failure = unreadable;
              if (failure != null
                  && (method.getName().equals("recordEntries")
                      || method.getName().equals("latestRecord"))) {
                throw failure;
              }
              try {
                return method.invoke(cluster, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private ReleaseReconciler reconciler() {
    ManifestSources sources =
        new ManifestSources() {
          @Override
          public @Nullable Map<String, String> configMap(String namespace, String name) {
            return configMaps.get(namespace + "/" + name);
          }

          @Override
          public @Nullable Map<String, String> secret(String namespace, String name) {
            if (forbiddenSecrets.contains(namespace + "/" + name)) {
              throw new ClusterException(
                  "get",
                  "Secret",
                  namespace,
                  name,
                  403,
                  "secrets \"" + name + "\" is forbidden",
                  null);
            }
            return secrets.get(namespace + "/" + name);
          }
        };
    Engines engines =
        (account, history) -> {
          String user = account == null ? "controller" : account.user();
          castAs.add(user);
          return new Engines.Engine(
              ReleaseController.builder(cluster, store())
                  .clock(clock)
                  .holder("controller-1")
                  .maxHistory(history)
                  .listener((ReleaseListener) e -> engineListener.on(e))
                  .build(),
              sources,
              plan -> denied.getOrDefault(user, List.of()),
              (request, limits) -> renderer.render(request, limits));
        };
    return new ReleaseReconciler(
        objects,
        engines,
        tenancy,
        clock,
        (release, outcome) -> outcomes.add(release + ": " + outcome),
        deletePolicy,
        heap);
  }

  @BeforeEach
  void fresh() {
    reconciler = reconciler();
  }

  private static Map<String, Object> configMap(String name, String value) {
    return Map.of(
        "apiVersion",
        "v1",
        "kind",
        "ConfigMap",
        "metadata",
        Map.of("name", name),
        "data",
        Map.of("value", value));
  }

  private static Map<String, Object> spec(Object... entries) {
    Map<String, Object> spec = new LinkedHashMap<>();
    for (int i = 0; i < entries.length; i += 2) {
      spec.put((String) entries[i], entries[i + 1]);
    }
    return spec;
  }

  private ReleaseResource web() {
    return java.util.Objects.requireNonNull(objects.get(WEB));
  }

  private Map<String, Object> ready(ReleaseKey key) {
    return java.util.Objects.requireNonNull(condition(key, "Ready"));
  }

  @SuppressWarnings("unchecked")
  private @Nullable Map<String, Object> condition(ReleaseKey key, String type) {
    return (Map<String, Object>) java.util.Objects.requireNonNull(objects.get(key)).condition(type);
  }

  @Test
  void aNewReleaseIsCastAndReportedReadyWithItsCounts() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), configMap("b", "2")))));

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.writes)
        .containsExactly(
            "finalizer+ shop/web",
            "status shop/web Ready=Unknown Progressing",
            "status shop/web Ready=True Cast");
    assertThat(objects.events).containsExactly("Normal Cast shop/web: revision 1: 2 created");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"))).isPresent();
    assertThat(web().finalizers()).containsExactly(ReleaseResource.FINALIZER);
    assertThat(web().status())
        .containsEntry("observedGeneration", 1L)
        .containsEntry("releaseName", "web")
        .containsEntry("lastAppliedRevision", 1L)
        .containsEntry("lastAttemptedRevision", 1L)
        .containsEntry(
            "counts",
            Map.of(
                "created",
                2L,
                "updated",
                0L,
                "repaired",
                0L,
                "adopted",
                0L,
                "unchanged",
                0L,
                "pruned",
                0L,
                "retained",
                0L,
                "conflicts",
                0L));
    assertThat(web().status().get("conditions"))
        .isEqualTo(
            List.of(
                Map.of(
                    "type", "Ready",
                    "status", "True",
                    "reason", "Cast",
                    "message", "revision 1: 2 created",
                    "observedGeneration", 1L,
                    "lastTransitionTime", "2025-01-01T00:00:00Z")));
    assertThat(web().ready()).isTrue();
  }

  @Test
  void anUnchangedReleaseWritesNothingAtAll() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    objects.writes.clear();
    objects.events.clear();
    cluster.clearOperations();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.writes).isEmpty();
    assertThat(objects.events).isEmpty();
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(1);
  }

  private static Map<String, Object> migration(String image) {
    return Map.of(
        "apiVersion",
        "batch/v1",
        "kind",
        "Job",
        "metadata",
        Map.of("name", "migrate", "annotations", Map.of("helm.sh/hook", "pre-install,pre-upgrade")),
        "spec",
        Map.of(
            "template",
            Map.of(
                "spec",
                Map.of(
                    "restartPolicy",
                    "Never",
                    "containers",
                    List.of(Map.of("name", "migrate", "image", image))))));
  }

  @Test
  void hooksOfTheReleaseResourceRunOnItsCastsNotOnAResyncAndAHookChangeAloneIsCast() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), migration("m:1")))));
    reconciler.reconcile(WEB);
    assertThat(cluster.writes())
        .containsExactly("apply:batch/Job/shop/migrate", "apply:ConfigMap/shop/a", "verify");
    cluster.clearOperations();

    reconciler.reconcile(WEB); // a resync: nothing changed, no cast, no hook
    assertThat(cluster.writes()).isEmpty();

    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1"), migration("m:2"))));
    reconciler.reconcile(WEB);
    assertThat(cluster.writes())
        .containsExactly("delete:batch/Job/shop/migrate", "apply:batch/Job/shop/migrate", "verify");
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(2);
    assertThat(ready(WEB).get("message")).isEqualTo("revision 2: nothing changed");
  }

  @Test
  void driftIsRepairedAndAChangedSpecUpdates() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    ResourceRef a = ResourceRef.of(Kind.CONFIG_MAP, NS, "a");
    cluster.edit(a, m -> m.with("data", Map.of("value", "edited")));

    reconciler.reconcile(WEB);
    assertThat(ready(WEB).get("message")).isEqualTo("revision 2: 1 repaired");

    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "2"), configMap("b", "1"))));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB).get("message")).isEqualTo("revision 3: 1 created, 1 updated");
    assertThat(web().status()).containsEntry("observedGeneration", 2L);
    assertThat(objects.events)
        .containsExactly(
            "Normal Cast shop/web: revision 1: 1 created",
            "Normal Cast shop/web: revision 2: 1 repaired",
            "Normal Cast shop/web: revision 3: 1 created, 1 updated");
  }

  @Test
  void aDriftIgnoreRuleOfTheReleaseLeavesItsFieldToItsWriterAndABadRuleIsNamed() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "options",
                Map.of(
                    "driftIgnore",
                    List.of(
                        Map.of("kind", "ConfigMap", "name", "a", "paths", List.of("/data")))))));
    reconciler.reconcile(WEB);
    cluster.edit(
        ResourceRef.of(Kind.CONFIG_MAP, NS, "a"), m -> m.with("data", Map.of("value", "theirs")));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB).get("message")).isEqualTo("revision 1: 1 created");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().content())
        .containsEntry("data", Map.of("value", "theirs"));

    objects.changeSpec(
        WEB,
        spec(
            "manifests",
            List.of(configMap("a", "1")),
            "options",
            Map.of("driftIgnore", List.of(Map.of("kind", "ConfigMap")))));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: spec.options.driftIgnore[0]: a rule must name at least one of paths"
                + " and managers");
  }

  @Test
  void anObjectNoReleaseOwnsStallsTheReleaseWithoutAWriteUntilItIsGone() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    cluster.put(
        dev.capstan.release.model.ConfigMapSpec.of(NS, "a", Map.of("value", "theirs")), null);
    cluster.clearOperations();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofSeconds(1)));
    assertThat(cluster.writes()).isEmpty();
    assertThat(objects.writes)
        .containsExactly("finalizer+ shop/web", "status shop/web Ready=False Conflict");
    assertThat(condition(WEB, "Stalled")).containsEntry("status", "True");
    assertThat((String) ready(WEB).get("message"))
        .startsWith(
            "release shop/web has unresolved conflicts; nothing was written: ConfigMap/shop/a;");
    assertThat(objects.events)
        .hasSize(1)
        .allMatch(e -> e.startsWith("Warning Conflict shop/web: "));

    reconciler.reconcile(WEB); // the same conflict again: no new status, no new Event
    assertThat(objects.writes).hasSize(2);
    assertThat(objects.events).hasSize(1);

    cluster.deleteOutOfBand(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("status", "True").containsEntry("reason", "Cast");
    assertThat(condition(WEB, "Stalled")).isNull();
  }

  private static Map<String, Object> claim(String name) {
    return Map.of(
        "apiVersion",
        "v1",
        "kind",
        "PersistentVolumeClaim",
        "metadata",
        Map.of("name", name, "annotations", Map.of("capstan.dev/reclaim-policy", "Delete")),
        "spec",
        Map.of(
            "accessModes",
            List.of("ReadWriteOnce"),
            "resources",
            Map.of("requests", Map.of("storage", "1Gi"))));
  }

  @Test
  void aPlanPruningAProtectedClaimIsStalledNamingItUntilTheReleaseApprovesIt() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), claim("data")))));
    reconciler.reconcile(WEB);
    objects.writes.clear();
    objects.events.clear();
    cluster.clearOperations();
    ResourceRef data = ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, NS, "data");

    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1"))));
    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(data)).isPresent();
    assertThat(objects.writes)
        .containsExactly("status shop/web Ready=False DestructiveChangeRefused");
    assertThat(condition(WEB, "Stalled"))
        .containsEntry("status", "True")
        .containsEntry("reason", "DestructiveChangeRefused")
        .containsEntry(
            "message",
            "the plan for revision 2 deletes 1 object(s) the delete gate keeps; nothing was"
                + " written: PersistentVolumeClaim/shop/data (prune): PersistentVolumeClaim is a"
                + " protected kind; approve each by name in spec.options.approveDeletes");
    assertThat(objects.events)
        .containsExactly(
            "Warning DestructiveChangeRefused shop/web: the plan for revision 2 deletes 1"
                + " object(s) the delete gate keeps; nothing was written:"
                + " PersistentVolumeClaim/shop/data (prune): PersistentVolumeClaim is a protected"
                + " kind; approve each by name in spec.options.approveDeletes");
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(1);

    objects.changeSpec(
        WEB,
        spec(
            "manifests",
            List.of(configMap("a", "1")),
            "options",
            Map.of("approveDeletes", List.of("PersistentVolumeClaim/shop/data"))));
    reconciler.reconcile(WEB);

    assertThat(cluster.writes())
        .containsExactly("verify", "delete:PersistentVolumeClaim/shop/data");
    assertThat(ready(WEB)).containsEntry("status", "True").containsEntry("reason", "Cast");
    assertThat(condition(WEB, "Stalled")).isNull();
  }

  @Test
  void theControllersBudgetRefusesAPlanOverItAndABadApprovalIsNamed() {
    deletePolicy = DeleteGate.defaults().withBudget(DeleteBudget.count(1));
    reconciler = reconciler();
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1"), configMap("b", "1"), configMap("c", "1")))));
    reconciler.reconcile(WEB);
    cluster.clearOperations();

    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1"))));
    reconciler.reconcile(WEB);

    assertThat(cluster.writes()).isEmpty();
    assertThat((String) ready(WEB).get("message"))
        .isEqualTo(
            "the plan for revision 2 deletes 2 object(s) the delete gate keeps; nothing was"
                + " written: ConfigMap/shop/b (prune): the plan deletes 2 object(s) unapproved,"
                + " over the budget of 1 delete(s); ConfigMap/shop/c (prune): the plan deletes 2"
                + " object(s) unapproved, over the budget of 1 delete(s); approve each by name in"
                + " spec.options.approveDeletes");

    objects.changeSpec(
        WEB,
        spec(
            "manifests",
            List.of(configMap("a", "1")),
            "options",
            Map.of("approveDeletes", List.of("b"))));
    reconciler.reconcile(WEB);
    assertThat(condition(WEB, "Stalled")).containsEntry("reason", "InvalidSpec");
    assertThat((String) ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: spec.options.approveDeletes: must hold objects as"
                + " [group/]Kind/namespace/name: 'b'");
  }

  @Test
  void aSuspendedReleaseIsLeftAsItIsAndSaysSoOnce() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1")), "suspend", true)));

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);
    reconciler.reconcile(WEB);

    assertThat(objects.writes).containsExactly("status shop/web Suspended");
    assertThat(objects.events)
        .containsExactly(
            "Normal Suspended shop/web: spec.suspend is true: the release is left as it is");
    assertThat(condition(WEB, "Suspended"))
        .containsEntry("status", "True")
        .containsEntry("reason", "Suspended")
        .containsEntry("observedGeneration", 1L);
    assertThat(cluster.objects()).isEmpty();
    assertThat(outcomes).containsExactly("shop/web: suspended");
  }

  @Test
  void aReadyReleaseSuspendedStaysReadyForItsDependentsAndResumingDropsTheCondition() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1")), "suspend", true));
    objects.writes.clear();

    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("status", "True").containsEntry("reason", "Cast");
    assertThat(condition(WEB, "Suspended")).containsEntry("status", "True");
    assertThat(objects.writes).containsExactly("status shop/web Ready=True Cast Suspended");

    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1"))));
    reconciler.reconcile(WEB);

    assertThat(condition(WEB, "Suspended")).isNull();
    assertThat(ready(WEB))
        .containsEntry("status", "True")
        .containsEntry("reason", "UpToDate")
        .containsEntry("observedGeneration", 3L);
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(1);
  }

  @Test
  void aSpecThatIsNotValidIsStalledWithEveryProblemAndNoFinalizer() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests", List.of(configMap("a", "1")),
                "interval", "5 minutes",
                "options", Map.of("crdDeletion", "Always"))));

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("status shop/web Ready=False InvalidSpec");
    assertThat(ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: 2 problems: spec.interval: must be a positive duration such as 90s,"
                + " 5m or 1h30m: '5 minutes'; spec.options.crdDeletion: must be Keep or Delete:"
                + " 'Always'");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void valuesTooLongToCheckAreRefusedByTheirLengthAndTheReleaseIsStillUninstalled() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    objects.changeSpec(
        WEB,
        spec(
            "manifests",
            List.of(configMap("a", "1")),
            "options",
            Map.of(
                "driftIgnore",
                List.of(
                    Map.of(
                        "kind",
                        "a.".repeat(5_000) + "a/Kind",
                        "paths",
                        List.of("/" + "a".repeat(5_000)))),
                "healthRules",
                List.of(Map.of("kind", "a" + ".a".repeat(3_000) + "/Kind", "current", "true")))));
    objects.writes.clear();

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);

    assertThat(objects.writes).containsExactly("status shop/web Ready=False InvalidSpec");
    assertThat(ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: 3 problems: spec.options.driftIgnore[0]: kind must be [group/]Kind"
                + " of at most 317 characters, e.g. apps/Deployment: '"
                + "a.".repeat(32)
                + "…' (10006 characters); spec.options.driftIgnore[0]: paths[0]: must be a JSON"
                + " pointer of at most 1024 characters: '/"
                + "a".repeat(63)
                + "…' (5001 characters); spec.options.healthRules[0]: kind must be group/Kind,"
                + " Kind for the core group, group/* or *.domain/*, of at most 317 characters: '"
                + "a.".repeat(32)
                + "…' (6006 characters)");

    objects.delete(WEB);
    objects.writes.clear();

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(objects.get(WEB)).isNull();
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aDurationOfTooManyCharactersOrDigitsIsRefusedBeforeItIsParsed() {
    String tooLong = "9".repeat(1_000_000) + "s";
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "interval",
                tooLong,
                "options",
                Map.of("timeout", "1h0000000000000000001.5m"))));

    reconciler.reconcile(WEB);

    String whole =
        "Release shop/web: 2 problems: spec.interval: must be a positive duration such as"
            + " 90s, 5m or 1h30m, of at most 64 characters: '"
            + tooLong
            + "'; spec.options.timeout: must be a positive duration such as 90s, 5m or 1h30m,"
            + " each number of at most 18 digits: '1h0000000000000000001.5m'";
    // the condition holds the start of it, cut as a condition's message is
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry("message", StatusReport.cut(whole));
    assertThat(StatusReport.cut(whole))
        .hasSize(StatusReport.MAX_MESSAGE)
        .endsWith("9999 ... (" + whole.length() + " characters in all, cut)");
    assertThat(ReleaseRequest.parseDuration("000000000000000001.5m")).isNull();
    assertThat(ReleaseRequest.parseDuration("00000000000000001.5m"))
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(ReleaseRequest.parseDuration("1h" + "0s".repeat(29) + "30m"))
        .isEqualTo(Duration.ofMinutes(90));
    assertThat(ReleaseRequest.parseDuration("1h" + "0s".repeat(30) + "30m")).isNull();
  }

  @Test
  void aMissingConfigMapStallsTheReleaseUntilItAppears() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifestsFrom", List.of(Map.of("configMap", Map.of("name", "m"))))));

    reconciler.reconcile(WEB);
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidManifests")
        .containsEntry(
            "message", "Release shop/web: spec.manifestsFrom[0]: ConfigMap shop/m does not exist");

    configMaps.put(
        "shop/m",
        Map.of("b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: v}\n"));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB))
        .containsEntry("status", "True")
        .containsEntry("message", "revision 1: 1 created");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "b"))).isPresent();
  }

  @Test
  void aSourceNamedAgainIsRefusedBeforeAnySourceIsRead() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifestsFrom",
                List.of(
                    Map.of("configMap", Map.of("name", "web-manifests")),
                    Map.of("secret", Map.of("name", "web-manifests")),
                    Map.of("configMap", Map.of("name", "other", "key", "a.yaml")),
                    Map.of("configMap", Map.of("name", "web-manifests")),
                    Map.of("configMap", Map.of("name", "other", "key", "b.yaml")),
                    Map.of("configMap", Map.of("name", "other", "key", "a.yaml")),
                    Map.of("configMap", Map.of("name", "other")),
                    Map.of("configMap", Map.of("name", "web-manifests", "key", "x.yaml"))))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: 4 problems: spec.manifestsFrom[3]: names ConfigMap web-manifests"
                + " again (spec.manifestsFrom[0]); spec.manifestsFrom[5]: names ConfigMap other key"
                + " 'a.yaml' again (spec.manifestsFrom[2]); spec.manifestsFrom[6]: names ConfigMap"
                + " other again (spec.manifestsFrom[2] reads its key 'a.yaml');"
                + " spec.manifestsFrom[7]: names ConfigMap web-manifests key 'x.yaml' again"
                + " (spec.manifestsFrom[0] reads every key of it)");
    assertThat(castAs).isEmpty();
  }

  @Test
  void theSourcesTextsAreHeldToTheReleaseLimitAsEachIsReadAndNoMoreIsRead() {
    String text = "#".repeat(14 << 20);
    List<Object> sources = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      if (i < 5) {
        configMaps.put("shop/m" + i, Map.of("all.yaml", text));
      }
      sources.add(Map.of("configMap", Map.of("name", "m" + i)));
    }
    objects.put(FakeReleaseObjects.release(NS, "web", spec("manifestsFrom", sources)));

    reconciler.reconcile(WEB);

    // m5 does not exist, but is not read: nothing is read past the limit
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidManifests")
        .containsEntry(
            "message",
            "Release shop/web: spec.manifestsFrom[4]: ConfigMap shop/m4: the release's sources"
                + " would total 73400320 bytes with this one (14680064 bytes); the limit is"
                + " 67108864 bytes (64 MiB) per release");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aReleaseOverItsShareOfTheHeapIsRefusedAloneBeforeAnyWriteAndTheOneBesideItIsCast() {
    // a 64 MiB heap, 4 workers: each Release may take 12 MiB (12582912 bytes)
    heap = new ReleaseHeap(64L << 20, 4);
    reconciler = reconciler();
    // two valid ConfigMaps of 20,000 keys: 228,947 characters and 40,011 nodes each, 6,952,984
    // bytes at 8 and 128; the second leaves room for 29,674 nodes once its characters are counted,
    // and is refused at the next one
    configMaps.put(
        "shop/big", Map.of("a.yaml", denseConfigMap("a"), "b.yaml", denseConfigMap("b")));
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifestsFrom", List.of(Map.of("configMap", Map.of("name", "big"))))));
    objects.put(
        FakeReleaseObjects.release(NS, "api", spec("manifests", List.of(configMap("a", "1")))));

    reconciler.reconcile(WEB);
    reconciler.reconcile(new ReleaseKey(NS, "api"));

    assertThat(ready(WEB))
        .containsEntry("status", "False")
        .containsEntry("reason", "TooLarge")
        .containsEntry(
            "message",
            "Release shop/web: (configmap big key b.yaml#0): its manifests hold at least 457894"
                + " characters of text and 69686 nodes (mappings, lists, keys and values), which"
                + " would take at least 12582960 bytes of the controller's heap at 8 and 128 bytes"
                + " each; a Release may take 12582912 bytes (12.0 MiB), three quarters of the"
                + " controller's 64.0 MiB heap over its 4 workers; split the manifests into"
                + " several Releases, or give the controller a larger heap (a higher memory limit:"
                + " the image's heap is 75% of it) or fewer --workers");
    assertThat(condition(WEB, "Stalled")).containsEntry("reason", "TooLarge");
    assertThat(objects.events).anyMatch(e -> e.startsWith("Warning TooLarge shop/web: Release"));
    assertThat(cluster.objects()).containsExactly(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"));
    assertThat(ready(new ReleaseKey(NS, "api")))
        .containsEntry("status", "True")
        .containsEntry("message", "revision 1: 1 created");
  }

  /** A ConfigMap of 20,000 keys, {@code k0: v} to {@code k19999: v}. */
  private static String denseConfigMap(String name) {
    StringBuilder sb =
        new StringBuilder(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata:\n");
    for (int i = 0; i < 20_000; i++) {
      sb.append("  k").append(i).append(": v\n");
    }
    return sb.toString();
  }

  @Test
  void aReleaseIsRefusedAtTheFirstSourceWhoseTextsPassItsShareOfTheHeapAndNoMoreIsRead() {
    heap = new ReleaseHeap(4L << 20, 1); // 3 MiB: 393216 characters at 8
    reconciler = reconciler();
    configMaps.put("shop/m0", Map.of("all.yaml", "#".repeat(200_000)));
    configMaps.put("shop/m1", Map.of("all.yaml", "#".repeat(200_000)));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifestsFrom",
                List.of(
                    Map.of("configMap", Map.of("name", "m0")),
                    Map.of("configMap", Map.of("name", "m1")),
                    Map.of("configMap", Map.of("name", "missing"))))));

    reconciler.reconcile(WEB);

    // m1's text is read and passes the budget; "missing" is not read, so not reported
    assertThat(ready(WEB))
        .containsEntry("reason", "TooLarge")
        .containsEntry(
            "message",
            "Release shop/web: spec.manifestsFrom[1]: ConfigMap shop/m1: its manifests hold at"
                + " least 400000 characters of text and 0 nodes (mappings, lists, keys and"
                + " values), which would take at least 3200000 bytes of the controller's heap at 8"
                + " and 128 bytes each; a Release may take 3145728 bytes (3.0 MiB), three quarters"
                + " of the controller's 4.0 MiB heap over its 1 worker; split the manifests into"
                + " several Releases, or give the controller a larger heap (a higher memory limit:"
                + " the image's heap is 75% of it)");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void eachReleaseMayTakeThreeQuartersOfTheHeapOverTheWorkers() {
    assertThat(new ReleaseHeap(384L << 20, 4).perRelease()).isEqualTo(75_497_472L);
    assertThat(new ReleaseHeap(384L << 20, 1).perRelease()).isEqualTo(301_989_888L);
    assertThat(new ReleaseHeap(1003, 3).perRelease()).isEqualTo(250); // 1003 / 4 * 3 / 3
    assertThat(new ReleaseHeap(384L << 20, 4).budget())
        .isEqualTo(new dev.capstan.release.file.HeapBudget(75_497_472L, 128, 8));
  }

  @Test
  void theDocumentsOfAllSourcesAreHeldToTheReleaseLimit() {
    configMaps.put(
        "shop/m0",
        Map.of(
            "all.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" + "---\n".repeat(5999)));
    configMaps.put(
        "shop/m1",
        Map.of(
            "all.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" + "---\n".repeat(5999)));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("c", "1")),
                "manifestsFrom",
                List.of(
                    Map.of("configMap", Map.of("name", "m0")),
                    Map.of("configMap", Map.of("name", "m1"))))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidManifests")
        .containsEntry(
            "message",
            "Release shop/web: (configmap m1 key all.yaml#3999): the release would hold 10001"
                + " documents with this one; the limit is 10000 documents per release");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aSourceWithoutTheKeyNamedListsTheKeysItHas() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifestsFrom",
                List.of(Map.of("configMap", Map.of("name", "m", "key", "all.yaml"))))));
    configMaps.put("shop/m", Map.of("b.yaml", "x: 1\n", "a.yaml", "y: 2\n"));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidManifests")
        .containsEntry(
            "message",
            "Release shop/web: spec.manifestsFrom[0]: ConfigMap shop/m has no key 'all.yaml'; it"
                + " has a.yaml, b.yaml");
  }

  @Test
  void aSecretsManifestsValuesAppearInNoStatusEventOrOutcome() {
    String secretValue = "hunter2-very-secret";
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifestsFrom", List.of(Map.of("secret", Map.of("name", "creds"))))));
    secrets.put(
        "shop/creds",
        Map.of(
            "s.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: "
                + secretValue
                + "}\n"));

    reconciler.reconcile(WEB);
    secrets.put(
        "shop/creds",
        Map.of("s.yaml", "kind: Secret\nstringData: {password: " + secretValue + "}\n"));
    reconciler.reconcile(WEB);

    assertThat(String.valueOf(web().status())).doesNotContain(secretValue);
    assertThat(String.join("\n", objects.events)).doesNotContain(secretValue);
    assertThat(String.join("\n", outcomes)).doesNotContain(secretValue);
    assertThat(ready(WEB)).containsEntry("reason", "InvalidManifests");
  }

  @Test
  void aSecretsValueThatIsNoManifestIsNamedByKeyAndShapeButNeverShown() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec("manifestsFrom", List.of(Map.of("secret", Map.of("name", "db-creds"))))));
    secrets.put(
        "shop/db-creds",
        Map.of("password", "hunter2", "s.yaml", "stringData: {password: *s3cret}\n"));

    reconciler.reconcile(WEB);

    String message =
        "Release shop/web: 2 problems:; - (secret db-creds key password#0): a manifest must be"
            + " a mapping with apiVersion, kind and metadata: a string (the value is not shown);"
            + " - (secret db-creds key s.yaml#0): an alias refers to no complete node before it (an"
            + " undefined anchor or one that contains the alias) at line 1, column 24";
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidManifests")
        .containsEntry("message", message);
    assertThat(objects.events).containsExactly("Warning InvalidManifests shop/web: " + message);
    assertThat(String.valueOf(web().status()) + objects.events + outcomes)
        .doesNotContain("hunter2")
        .doesNotContain("s3cret");
  }

  @Test
  void aReleaseWaitsForWhatItDependsOnAndACycleIsStalledByName() {
    ReleaseKey db = new ReleaseKey(NS, "db");
    objects.put(
        FakeReleaseObjects.release(NS, "db", spec("manifests", List.of(configMap("d", "1")))));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "dependsOn",
                List.of(Map.of("name", "db")))));

    ReleaseReconciler.Next waiting = reconciler.reconcile(WEB);
    assertThat(waiting).isEqualTo(ReleaseReconciler.Next.after(Duration.ofSeconds(30)));
    assertThat(ready(WEB))
        .containsEntry("status", "Unknown")
        .containsEntry("reason", "DependencyNotReady")
        .containsEntry("message", "waiting for Release shop/db to be Ready");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"))).isEmpty();
    assertThat(objects.writes).containsExactly("status shop/web Ready=Unknown DependencyNotReady");
    assertThat(web().finalizers()).as("no finalizer before its first cast").isEmpty();

    reconciler.reconcile(db);
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("status", "True");

    objects.changeSpec(
        db,
        spec(
            "manifests",
            List.of(configMap("d", "1")),
            "dependsOn",
            List.of(Map.of("name", "web"))));
    assertThat(reconciler.reconcile(db)).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(ready(db))
        .containsEntry("reason", "DependencyCycle")
        .containsEntry("message", "dependsOn cycle: shop/db -> shop/web -> shop/db");
  }

  @Test
  void deletingAReleaseUninstallsItThenLetsItGo() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), configMap("b", "2")))));
    reconciler.reconcile(WEB);
    objects.delete(WEB);
    objects.writes.clear();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(objects.get(WEB)).isNull();
    assertThat(cluster.objects()).isEmpty();
    assertThat(objects.events)
        .last()
        .isEqualTo("Normal Uninstalled shop/web: uninstalled: 2 deleted, 0 kept");
    ReleaseController engine = ReleaseController.builder(cluster, cluster).clock(clock).build();
    assertThat(engine.get(NS, "web").orElseThrow().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
  }

  /** A pre-delete hook outside the Release's namespace: a ClusterRole. */
  private static Map<String, Object> clusterScopedCleanup() {
    return Map.of(
        "apiVersion",
        "rbac.authorization.k8s.io/v1",
        "kind",
        "ClusterRole",
        "metadata",
        Map.of("name", "web-cleanup", "annotations", Map.of("helm.sh/hook", "pre-delete")),
        "rules",
        List.of());
  }

  @Test
  void deletingAReleaseCastAsItsAccountRunsItsDeleteHooksOutsideItsNamespaceAsThatAccount() {
    tenancy = Tenancy.open().withDefaultServiceAccount("capstan-release");
    reconciler = reconciler();
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), clusterScopedCleanup()))));
    reconciler.reconcile(WEB);
    objects.delete(WEB);
    cluster.clearOperations();

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);

    assertThat(cluster.writes())
        .containsExactly(
            "apply:rbac.authorization.k8s.io/ClusterRole//web-cleanup", "delete:ConfigMap/shop/a");
    assertThat(objects.events)
        .last()
        .isEqualTo("Normal Uninstalled shop/web: uninstalled: 1 deleted, 0 kept");
  }

  @Test
  void withTheControllersOwnRightsARecordsHookOutsideTheNamespaceIsNotRunAndTheAdviceWorks() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1"), clusterScopedCleanup()))));
    reconciler.reconcile(WEB);
    objects.delete(WEB);
    cluster.clearOperations();
    objects.writes.clear();

    reconciler.reconcile(WEB);

    assertThat(cluster.writes()).isEmpty();
    assertThat(ready(WEB))
        .containsEntry("reason", "UninstallFailed")
        .containsEntry(
            "message",
            "uninstall of shop/web refused: revision 1's record lists pre-delete hook"
                + " rbac.authorization.k8s.io/ClusterRole//web-cleanup (cluster-scoped), outside"
                + " the release's namespace shop; a record is as trusted as whoever may write the"
                + " release's records, and a hook is written with your rights: check it, then name"
                + " it to run it (--allow-hook KEY; withAllowedHooks); nothing was uninstalled;"
                + " the controller runs this Release with its own rights, so it runs no such hook:"
                + " check them, then uninstall the release yourself (capstan release uninstall web"
                + " -n shop --allow-hook KEY), and the Release goes");
    assertThat(objects.writes).containsExactly("status shop/web Ready=False UninstallFailed");

    // the advice, followed: the CLI uninstalls naming the hook; the Release then goes
    cli()
        .uninstall(
            NS,
            "web",
            UninstallOptions.defaults()
                .withAllowedHooks(
                    List.of(
                        ResourceRef.parse("rbac.authorization.k8s.io/ClusterRole//web-cleanup"))));
    objects.writes.clear();
    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(cluster.objects())
        .containsExactly(ResourceRef.parse("rbac.authorization.k8s.io/ClusterRole//web-cleanup"));
  }

  @Test
  void aManifestNestedTooDeepIsStalledNamingItsFirstValueTooDeepAndTheDeletionStillUninstalls() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    Map<String, Object> data = Map.of();
    for (int i = 0; i < 300; i++) {
      data = Map.of("a", data);
    }
    Map<String, Object> deep =
        Map.of(
            "apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "b"), "data", data);
    objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "1"), deep)));
    objects.writes.clear();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("status shop/web Ready=False InvalidSpec");
    assertThat(ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: spec.manifests[1].data"
                + ".a".repeat(128)
                + ": nested deeper than 128 levels");
    assertThat(cluster.objects()).hasSize(1);

    objects.delete(WEB);
    objects.writes.clear();
    next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(objects.get(WEB)).isNull();
    assertThat(cluster.objects()).isEmpty();
    assertThat(objects.events)
        .last()
        .isEqualTo("Normal Uninstalled shop/web: uninstalled: 1 deleted, 0 kept");
  }

  @Test
  void chartValuesNestedTooDeepAreRefusedByPath() {
    Map<String, Object> values = Map.of();
    for (int i = 0; i < 300; i++) {
      values = Map.of("a", values);
    }
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec("chart", Map.of("repository", REGISTRY, "name", "web", "values", values))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB).get("message"))
        .isEqualTo(
            "Release shop/web: spec.chart.values"
                + ".a".repeat(129)
                + ": nested deeper than 128 levels");
  }

  @Test
  void twoReleasesNamingOneReleaseLeaveItToTheOneThatCastIt() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    ReleaseKey copy = new ReleaseKey(NS, "aaa-copy");
    objects.put(
        FakeReleaseObjects.release(
            NS, "aaa-copy", spec("releaseName", "web", "manifests", List.of(configMap("z", "1")))));

    reconciler.reconcile(copy);

    assertThat(ready(copy))
        .containsEntry("reason", "NameTaken")
        .containsEntry("message", "release name web is cast by Release shop/web");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "z"))).isEmpty();
  }

  /** A Release of {@code releaseName: web} that would delete all it could on its deletion. */
  private static Map<String, Object> greedy() {
    return spec(
        "releaseName",
        "web",
        "serviceAccountName",
        "deployer",
        "manifests",
        List.of(configMap("z", "1")),
        "options",
        Map.of("crdDeletion", "Delete"),
        "uninstall",
        Map.of("purge", true, "deleteNamespaces", true));
  }

  /** The engine as the CLI (or a host of the library) uses it. */
  private ReleaseController cli() {
    return ReleaseController.builder(cluster, cluster).clock(clock).build();
  }

  /** Casts release {@code web} as the CLI does, from a release file. */
  private void castWithTheCli(String value) {
    cli()
        .cast(
            ReleaseInput.of(
                    NS, "web", Payloads.of(ConfigMapSpec.of(NS, "a", Map.of("value", value))))
                .withSource("release.yaml"));
  }

  /** The Release {@code shop/web} casts release {@code web}; what it wrote is then forgotten. */
  private void castWebByItsRelease() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    forgetWhatWasWritten();
  }

  private void forgetWhatWasWritten() {
    objects.writes.clear();
    objects.events.clear();
    cluster.clearOperations();
  }

  /** Release {@code web} is as its Release cast it: one revision, its object, nothing written. */
  private void assertWebIsAsItsReleaseCastIt() {
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().get("data"))
        .isEqualTo(Map.of("value", "1"));
    assertThat(cli().history(NS, "web"))
        .extracting(Release::revision, Release::status, Release::source)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                1, ReleaseStatus.DEPLOYED, "capstan.dev/v1alpha1 Release shop/web"));
  }

  @Test
  void aReleaseNamingAReleaseAnotherReleaseCastsGetsNoFinalizerAndItsDeletionWritesNothing() {
    castWebByItsRelease();
    ReleaseKey aaa = new ReleaseKey(NS, "aaa");
    objects.put(FakeReleaseObjects.release(NS, "aaa", greedy()));

    reconciler.reconcile(aaa);
    objects.delete(aaa);
    ReleaseReconciler.Next next = reconciler.reconcile(aaa);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("status shop/aaa Ready=False NameTaken");
    assertThat(java.util.Objects.requireNonNull(objects.get(aaa)).finalizers()).isEmpty();
    assertThat(objects.events)
        .containsExactly(
            "Warning NameTaken shop/aaa: release name web is cast by Release shop/web");
    assertThat(cluster.operations()).isEmpty();
    assertWebIsAsItsReleaseCastIt();
    assertThat(web().finalizers()).containsExactly(ReleaseResource.FINALIZER);
  }

  @Test
  void aDeletedReleaseWithAFinalizerLeavesAReleaseAnotherReleaseCastInstalledSayingSo() {
    castWebByItsRelease();
    // a controller before Capstan checked who cast a release gave every Release its finalizer
    ReleaseKey aaa = new ReleaseKey(NS, "aaa");
    objects.put(
        new ReleaseResource(
            aaa,
            "uid-aaa",
            1,
            "1",
            false,
            List.of(ReleaseResource.FINALIZER),
            Map.of(),
            greedy(),
            Map.of()));
    objects.delete(aaa);

    ReleaseReconciler.Next next = reconciler.reconcile(aaa);

    String message =
        "release web left installed: its latest revision 1 was cast by Release shop/web, not by"
            + " this Release, and a Release uninstalls only what it cast; to uninstall it:"
            + " capstan release uninstall web -n shop";
    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.writes).containsExactly("finalizer- shop/aaa");
    assertThat(objects.get(aaa)).isNull();
    assertThat(objects.events).containsExactly("Warning UninstallSkipped shop/aaa: " + message);
    assertThat(outcomes).last().isEqualTo("shop/aaa: UninstallSkipped: " + message);
    assertThat(cluster.operations()).containsExactly("record:read:shop/web");
    assertWebIsAsItsReleaseCastIt();
    assertThat(web().finalizers()).containsExactly(ReleaseResource.FINALIZER);
  }

  @Test
  void aReleaseWhoseReleaseIsGoneLeavesItsRecordToNoOtherRelease() {
    castWebByItsRelease();
    // its owner let the Release go without an uninstall: the finalizer removed by hand
    objects.delete(WEB);
    objects.removeFinalizer(web());
    ReleaseKey aaa = new ReleaseKey(NS, "aaa");
    objects.put(FakeReleaseObjects.release(NS, "aaa", greedy()));
    forgetWhatWasWritten();

    ReleaseReconciler.Next next = reconciler.reconcile(aaa);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.writes).containsExactly("status shop/aaa Ready=False NameTaken");
    assertThat(ready(aaa))
        .containsEntry(
            "message",
            "release web is not this Release's to cast: its latest revision 1 was cast by Release"
                + " shop/web; a Release casts over no release that another Release or the CLI"
                + " cast: to hand it to this Release, uninstall it first (capstan release"
                + " uninstall web -n shop: its objects are deleted), and this Release casts it"
                + " anew");
    assertThat(cluster.operations()).containsExactly("record:read:shop/web");
    assertWebIsAsItsReleaseCastIt();
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "z"))).isEmpty();
  }

  @Test
  void aReleaseTheCliCastIsRefusedBeforeAnyWriteUntilItIsUninstalled() {
    castWithTheCli("cli");
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    cluster.clearOperations();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    String message =
        "release web is not this Release's to cast: its latest revision 1 was cast by no Release"
            + " (source 'release.yaml'); a Release casts over no release that another Release or"
            + " the CLI cast: to hand it to this Release, uninstall it first (capstan release"
            + " uninstall web -n shop: its objects are deleted), and this Release casts it anew";
    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.writes).containsExactly("status shop/web Ready=False NameTaken");
    assertThat(condition(WEB, "Stalled")).containsEntry("status", "True");
    assertThat(ready(WEB)).containsEntry("reason", "NameTaken").containsEntry("message", message);
    assertThat(objects.events).containsExactly("Warning NameTaken shop/web: " + message);
    assertThat(web().finalizers()).isEmpty();
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.operations())
        .containsExactly("record:read:shop/web", "record:read:shop/web");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().get("data"))
        .isEqualTo(Map.of("value", "cli"));

    // the advice, followed
    cli().uninstall(NS, "web", UninstallOptions.defaults());
    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "Cast")
        .containsEntry("message", "revision 2: 1 created");
    assertThat(web().finalizers()).containsExactly(ReleaseResource.FINALIZER);
    assertThat(cli().get(NS, "web").orElseThrow().source())
        .isEqualTo("capstan.dev/v1alpha1 Release shop/web");
  }

  @Test
  void aCliCastOverAReleasesReleaseIsUndoneButItsDeletionLeavesItInstalled() {
    castWebByItsRelease();
    ResourceRef a = ResourceRef.of(Kind.CONFIG_MAP, NS, "a");

    castWithTheCli("cli"); // as the CLI warns, the controller casts the Release again
    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("message", "revision 3: 1 updated");
    assertThat(cluster.object(a).orElseThrow().get("data")).isEqualTo(Map.of("value", "1"));

    castWithTheCli("cli");
    objects.delete(WEB);
    forgetWhatWasWritten();
    reconciler.reconcile(WEB);

    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(objects.events)
        .containsExactly(
            "Warning UninstallSkipped shop/web: release web left installed: its latest revision 4"
                + " was cast by no Release (source 'release.yaml'), not by this Release, and a"
                + " Release uninstalls only what it cast; to uninstall it: capstan release"
                + " uninstall web -n shop");
    assertThat(cluster.object(a).orElseThrow().get("data")).isEqualTo(Map.of("value", "cli"));
  }

  @Test
  void aCliCastLandingAfterTheDeletionReadTheRecordIsLeftInstalledNotUninstalled() {
    castWebByItsRelease();
    ResourceRef a = ResourceRef.of(Kind.CONFIG_MAP, NS, "a");
    // the Release read revision 1 as its own; the CLI records revision 2 before the uninstall's
    // lease is taken: the uninstall, pinned to revision 1, deletes nothing, and the record is read
    // again
    boolean[] once = {false};
    engineListener =
        e -> {
          if (e instanceof ReleaseEvent.OperationStarted s
              && s.operation() == dev.capstan.release.event.Operation.UNINSTALL
              && !once[0]) {
            once[0] = true;
            castWithTheCli("cli");
          }
        };
    reconciler = reconciler();
    objects.delete(WEB);
    forgetWhatWasWritten();

    reconciler.reconcile(WEB);

    assertThat(once[0]).isTrue();
    assertThat(cluster.object(a).orElseThrow().get("data")).isEqualTo(Map.of("value", "cli"));
    assertThat(cli().get(NS, "web").orElseThrow().revision()).isEqualTo(2);
    assertThat(cli().get(NS, "web").orElseThrow().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(objects.events)
        .containsExactly(
            "Warning UninstallSkipped shop/web: release web left installed: its latest revision 2"
                + " was cast by no Release (source 'release.yaml'), not by this Release, and a"
                + " Release uninstalls only what it cast; to uninstall it: capstan release"
                + " uninstall web -n shop");
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
  }

  // --- a changed spec.releaseName ------------------------------------------------------------

  /** The spec of Release {@code shop/web} casting ConfigMap {@code x} as release {@code name}. */
  private static Map<String, Object> named(String name) {
    return spec("releaseName", name, "manifests", List.of(configMap("x", "1")));
  }

  /** Release {@code shop/web} has cast release {@code a}; its spec now names {@code b}. */
  private void castARenamedToB() {
    objects.put(FakeReleaseObjects.release(NS, "web", named("a")));
    reconciler.reconcile(WEB);
    assertThat(web().status()).containsEntry("releaseName", "a");
    objects.changeSpec(WEB, named("b"));
    forgetWhatWasWritten();
    outcomes.clear();
  }

  private @Nullable ReleaseStatus statusOf(String releaseName) {
    return cli().get(NS, releaseName).map(Release::status).orElse(null);
  }

  @Test
  void aRenamedReleaseUninstallsTheReleaseItCastUnderTheFormerNameThenCastsTheNewOne() {
    castARenamedToB();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    // b may be cast (who cast it: no one); then a goes, whole, under its lease; then b is
    // planned and cast: the Release never answers for both at once
    assertThat(cluster.operations())
        .containsExactly(
            "record:read:shop/b",
            "record:read:shop/a",
            "lease:acquire:shop/a",
            "record:read:shop/a",
            "observe:ConfigMap/shop",
            "delete:ConfigMap/shop/x",
            "record:update:shop/a#1:uninstalled",
            "lease:release:shop/a",
            "record:read:shop/b",
            "observe:ConfigMap/shop",
            "observe:Namespace/",
            "verify-apply:ConfigMap/shop/x",
            "lease:acquire:shop/b",
            "record:read:shop/b",
            "observe:ConfigMap/shop",
            "observe:Namespace/",
            "verify-apply:ConfigMap/shop/x",
            "apply:ConfigMap/shop/x",
            "verify",
            "record:create:shop/b#1:deployed",
            "lease:release:shop/b");
    assertThat(objects.events)
        .containsExactly(
            "Normal Uninstalled shop/web: spec.releaseName changed from a to b: release a"
                + " uninstalled: 1 deleted, 0 kept",
            "Normal Cast shop/web: revision 1: 1 created");
    assertThat(objects.writes)
        .containsExactly(
            "status shop/web Ready=Unknown Progressing", "status shop/web Ready=True Cast");
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(cli().history(NS, "a")).hasSize(1);
    Release b = cli().get(NS, "b").orElseThrow();
    assertThat(b.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(b.source()).isEqualTo("capstan.dev/v1alpha1 Release shop/web");
    assertThat(web().status())
        .containsEntry("releaseName", "b")
        .containsEntry("lastAppliedRevision", 1L);
    assertThat(web().ready()).isTrue();
    assertThat(web().finalizers()).containsExactly(ReleaseResource.FINALIZER);

    // the next interval finds nothing to do: the former name is forgotten
    forgetWhatWasWritten();
    reconciler.reconcile(WEB);
    assertThat(objects.writes).isEmpty();
    assertThat(objects.events).isEmpty();
    assertThat(cluster.writes()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"release.yaml", "capstan.dev/v1alpha1 Release shop/other"})
  void aRenamedReleaseLeavesItsFormerReleaseInstalledWhenItsLatestRevisionIsAnothersSayingSo(
      String source) {
    castARenamedToB();
    cli()
        .cast(
            ReleaseInput.of(NS, "a", Payloads.of(ConfigMapSpec.of(NS, "x", Map.of("value", "2"))))
                .withSource(source));
    forgetWhatWasWritten();

    reconciler.reconcile(WEB);

    String castBy =
        source.equals("release.yaml") ? "no Release (source 'release.yaml')" : "Release shop/other";
    String message =
        "spec.releaseName changed from a to b: release a left installed: its latest revision 2"
            + " was cast by "
            + castBy
            + ", not by this Release, and a Release uninstalls only what it cast; to uninstall it:"
            + " capstan release uninstall a -n shop";
    assertThat(objects.events)
        .containsExactly(
            "Warning UninstallSkipped shop/web: " + message,
            // b's ConfigMap x is a's: a conflict, as for any object another release owns
            "Warning Conflict shop/web: " + String.valueOf(ready(WEB).get("message")));
    assertThat(outcomes).first().isEqualTo("shop/web: UninstallSkipped: " + message);
    assertThat(cluster.writes()).isEmpty();
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "x")).orElseThrow().get("data"))
        .isEqualTo(Map.of("value", "2"));
    // the Release answers for b now: a is let go of
    assertThat(web().status()).containsEntry("releaseName", "b");

    // with an object of its own, b is cast
    objects.changeSpec(WEB, spec("releaseName", "b", "manifests", List.of(configMap("y", "1"))));
    forgetWhatWasWritten();
    reconciler.reconcile(WEB);

    assertThat(objects.events).containsExactly("Normal Cast shop/web: revision 1: 1 created");
    assertThat(statusOf("b")).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aRenamedReleaseWhoseFormerReleaseCannotBeUninstalledCastsNothingOfTheNewNameUntilItIs() {
    castARenamedToB();
    cluster.faults().failAlways(Operation.DELETE, "ConfigMap/shop/x", "the webhook refused it");

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofSeconds(1)));
    assertThat(ready(WEB))
        .containsEntry("reason", "UninstallFailed")
        .containsEntry(
            "message",
            "spec.releaseName changed from a to b: release a could not be uninstalled, and b is"
                + " cast only once it is: uninstall of release shop/a stopped at"
                + " ConfigMap/shop/x: delete ConfigMap/shop/x: the webhook refused it; the release"
                + " stays uninstalling, run"
                + " uninstall again to continue");
    assertThat(objects.writes).containsExactly("status shop/web Ready=False UninstallFailed");
    assertThat(objects.events)
        .containsExactly("Warning UninstallFailed shop/web: " + ready(WEB).get("message"));
    // the status still names the release the Release cast; nothing of b is written
    assertThat(web().status()).containsEntry("releaseName", "a");
    assertThat(cli().get(NS, "b")).isEmpty();
    assertThat(cluster.writes()).noneMatch(w -> w.contains("shop/b"));
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.UNINSTALLING);

    // the next reconcile tries again, and once a is gone b is cast
    cluster.faults().clear();
    clock.advance(Duration.ofSeconds(1));
    forgetWhatWasWritten();
    next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.events)
        .containsExactly(
            "Normal Uninstalled shop/web: spec.releaseName changed from a to b: release a"
                + " uninstalled: 1 deleted, 0 kept",
            "Normal Cast shop/web: revision 1: 1 created");
    assertThat(objects.writes).containsExactly("status shop/web Ready=True Cast");
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(statusOf("b")).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(web().status()).containsEntry("releaseName", "b");
  }

  @Test
  void aRenameWaitingForItsNewNameKeepsNamingTheFormerReleaseInItsStatus() {
    castARenamedToB();
    cli()
        .cast(
            ReleaseInput.of(NS, "b", Payloads.of(ConfigMapSpec.of(NS, "z", Map.of("value", "b"))))
                .withSource("release.yaml"));
    forgetWhatWasWritten();

    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("reason", "NameTaken");
    assertThat(web().status()).containsEntry("releaseName", "a");
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void aReleaseDeletedWhileItsRenameIsPendingUninstallsTheReleaseItCast() {
    castARenamedToB();
    cluster.faults().failAlways(Operation.DELETE, "ConfigMap/shop/x", "the webhook refused it");
    reconciler.reconcile(WEB);
    cluster.faults().clear();
    objects.delete(WEB);
    forgetWhatWasWritten();

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(objects.events)
        .containsExactly("Normal Uninstalled shop/web: release a uninstalled: 1 deleted, 0 kept");
    assertThat(objects.writes).containsExactly("finalizer- shop/web");
    assertThat(objects.get(WEB)).isNull();
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(cli().get(NS, "b")).isEmpty();
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aReleaseDeletedBeforeItsStatusNamesTheNewReleaseUninstallsBoth() {
    castARenamedToB();
    reconciler.reconcile(WEB);
    // as if the controller stopped after b's cast, before the status named it
    Map<String, Object> lagging = new LinkedHashMap<>();
    web().status().forEach((k, v) -> lagging.put(k, k.equals("releaseName") ? "a" : v));
    objects.put(web().withStatus(lagging));
    reconciler = reconciler();
    objects.delete(WEB);
    forgetWhatWasWritten();

    reconciler.reconcile(WEB);

    assertThat(objects.events)
        .containsExactly(
            "Normal Uninstalled shop/web: release a uninstalled: 0 deleted, 0 kept",
            "Normal Uninstalled shop/web: uninstalled: 1 deleted, 0 kept");
    assertThat(objects.get(WEB)).isNull();
    assertThat(statusOf("a")).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(statusOf("b")).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aReleaseIsCastAsTheAccountItNamesOrTheDefaultElseWithTheControllersRights() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec("manifests", List.of(configMap("a", "1")), "serviceAccountName", "deployer")));
    objects.put(
        FakeReleaseObjects.release(NS, "other", spec("manifests", List.of(configMap("b", "1")))));

    reconciler.reconcile(WEB);
    reconciler.reconcile(new ReleaseKey(NS, "other"));
    tenancy = Tenancy.open().withDefaultServiceAccount("capstan-release");
    reconciler = reconciler();
    reconciler.reconcile(new ReleaseKey(NS, "other"));

    assertThat(castAs)
        .containsExactly(
            "system:serviceaccount:shop:deployer",
            "controller",
            "system:serviceaccount:shop:capstan-release");
  }

  @Test
  void plansAreVerifiedOnTheServerUnlessTheReleaseIsAtomicOrTurnsItOff() {
    Map<String, Map<String, Object>> options = new LinkedHashMap<>();
    options.put("plain", Map.of());
    options.put("atomic", Map.of("atomic", true));
    options.put("off", Map.of("verifyOnServer", false));
    options.put("both", Map.of("atomic", true, "verifyOnServer", true));
    List<String> verified = new ArrayList<>();
    for (Map.Entry<String, Map<String, Object>> option : options.entrySet()) {
      String name = option.getKey();
      cluster.clearOperations();
      objects.put(
          FakeReleaseObjects.release(
              NS,
              name,
              spec("manifests", List.of(configMap(name, "1")), "options", option.getValue())));
      reconciler.reconcile(new ReleaseKey(NS, name));
      if (cluster.operations().contains("verify-apply:ConfigMap/shop/" + name)) {
        verified.add(name);
      }
    }

    assertThat(verified).containsExactly("plain", "both");
  }

  @Test
  void aSpecChangedWhileTheCastWaitsForHealthSupersedesItAndIsCastNext() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    // the Release changes while its cast waits for its objects to be healthy
    engineListener =
        e -> {
          if (e instanceof ReleaseEvent.Verifying) {
            engineListener = x -> {};
            objects.changeSpec(WEB, spec("manifests", List.of(configMap("a", "2"))));
          }
        };

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.after(Duration.ZERO));

    assertThat(outcomes)
        .containsExactly(
            "shop/web: Progressing: casting revision 1",
            "shop/web: revision 1 superseded; casting the newer generation");
    assertThat(cluster.writes()).containsExactly("apply:ConfigMap/shop/a", "verify");
    assertThat(cluster.operations())
        .filteredOn(op -> op.startsWith("record:create") || op.startsWith("lease:release"))
        .containsExactly("record:create:shop/web#1:failed", "lease:release:shop/web");
    cluster.clearOperations();

    assertThat(reconciler.reconcile(WEB))
        .isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));

    assertThat(cluster.writes()).containsExactly("apply:ConfigMap/shop/a", "verify");
    assertThat(cluster.object(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().get("data"))
        .isEqualTo(Map.of("value", "2"));
    assertThat(ready(WEB)).containsEntry("message", "revision 2: 1 updated");
    assertThat(web().status()).containsEntry("observedGeneration", 2L);
  }

  @Test
  void aControllerThatRequiresAnAccountRefusesAReleaseNamingNoneBeforeAnyWrite() {
    tenancy = Tenancy.open().withServiceAccountRequired(true);
    reconciler = reconciler();
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));

    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);

    assertThat(ready(WEB))
        .containsEntry("status", "False")
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: spec.serviceAccountName: must name a service account of namespace"
                + " shop: this controller casts no Release with its own rights"
                + " (--require-service-account)");
    assertThat(objects.writes).containsExactly("status shop/web Ready=False InvalidSpec");
    assertThat(castAs).isEmpty();
    assertThat(cluster.operations()).isEmpty();
  }

  @Test
  void aDependencyInAnotherNamespaceIsRefusedWithNoCrossNamespaceRefs() {
    tenancy = Tenancy.open().withCrossNamespaceRefs(false);
    reconciler = reconciler();
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "dependsOn",
                List.of(Map.of("name", "db", "namespace", "data"), Map.of("name", "cache")))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: spec.dependsOn[0].namespace: must be the Release's own namespace"
                + " shop (this controller refuses references to other namespaces:"
                + " --no-cross-namespace-refs): 'data'");
    assertThat(castAs).isEmpty();
  }

  @Test
  void anUnreadableRecordIsStalledUnreadableRecordWithItsMessageUntilItIsMended() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("reason", "Cast");
    String why =
        "release shop/web: its record Secret capstan.release.v1.web.v0 has no revision and status"
            + " labels, which every record Capstan writes has, and cannot be read (release record"
            + " Secret capstan.release.v1.web.v0 has no data); if Capstan did not write it, delete"
            + " it (kubectl -n shop delete secret capstan.release.v1.web.v0)";
    unreadable = new RecordFormatException(why, null);
    clock.advance(Duration.ofSeconds(1));

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofSeconds(1)));
    assertThat(ready(WEB))
        .containsEntry("status", "False")
        .containsEntry("reason", "UnreadableRecord")
        .containsEntry("message", why);
    assertThat(condition(WEB, "Stalled")).containsEntry("status", "True");
    assertThat(objects.events).contains("Warning UnreadableRecord shop/web: " + why);
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(1);

    unreadable = null; // the forged Secret was deleted, as the message says
    clock.advance(Duration.ofSeconds(1));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("status", "True");
    assertThat(condition(WEB, "Stalled")).isNull();

    // deleted while a record cannot be read: nothing is uninstalled, the finalizer stays
    unreadable = new RecordFormatException(why, null);
    objects.delete(WEB);
    cluster.clearOperations();
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("reason", "UninstallFailed").containsEntry("message", why);
    assertThat(web().hasFinalizer()).isTrue();
    assertThat(cluster.writes()).isEmpty();

    unreadable = null;
    clock.advance(Duration.ofSeconds(2));
    assertThat(reconciler.reconcile(WEB)).isEqualTo(ReleaseReconciler.Next.DONE);
    assertThat(cluster.writes()).containsExactly("delete:ConfigMap/shop/a");
  }

  @Test
  void aPlanTheAccountMayNotCastWholeIsStalledForbiddenAndNothingIsWritten() {
    String user = "system:serviceaccount:shop:deployer";
    denied.put(
        user,
        List.of(
            "create clusterrolebindings.rbac.authorization.k8s.io cluster-wide (for"
                + " rbac.authorization.k8s.io/ClusterRoleBinding//pwn)"));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec("manifests", List.of(configMap("a", "1")), "serviceAccountName", "deployer")));

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofSeconds(1)));
    assertThat(ready(WEB))
        .containsEntry("status", "False")
        .containsEntry("reason", "Forbidden")
        .containsEntry(
            "message",
            "the release is cast as "
                + user
                + ", which may not create clusterrolebindings.rbac.authorization.k8s.io"
                + " cluster-wide (for rbac.authorization.k8s.io/ClusterRoleBinding//pwn); nothing"
                + " was written");
    assertThat(condition(WEB, "Stalled")).containsEntry("status", "True");
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.operations()).noneMatch(op -> op.startsWith("record:create"));
    assertThat(cluster.operations()).noneMatch(op -> op.startsWith("lease:"));
    assertThat(cluster.recordCount(NS, "web")).isZero();
    assertThat(objects.events)
        .containsExactly("Warning Forbidden shop/web: " + ready(WEB).get("message"));

    clock.advance(Duration.ofSeconds(1));
    reconciler.reconcile(WEB); // the same refusal: no new status, no new Event
    assertThat(objects.writes)
        .containsExactly("finalizer+ shop/web", "status shop/web Ready=False Forbidden");
    assertThat(objects.events).hasSize(1);

    denied.clear(); // the account was granted what it lacked
    clock.advance(Duration.ofSeconds(1));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("status", "True").containsEntry("reason", "Cast");
    assertThat(condition(WEB, "Stalled")).isNull();
  }

  @Test
  void aSourceTheAccountMayNotReadIsStalledForbiddenWithoutItsValues() {
    forbiddenSecrets.add("shop/creds");
    secrets.put(
        "shop/creds",
        Map.of("s.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\n"));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifestsFrom",
                List.of(Map.of("secret", Map.of("name", "creds"))),
                "serviceAccountName",
                "deployer")));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "Forbidden")
        .containsEntry(
            "message",
            "the release is cast as system:serviceaccount:shop:deployer, which may not: get Secret"
                + " shop/creds failed (HTTP 403): secrets \"creds\" is forbidden; nothing was"
                + " written");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aReleaseFailingForTenMinutesAtA20sIntervalKeepsItsRecordsAndEventsBounded() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "interval",
                "20s",
                "options",
                Map.of("maxHistory", 3, "verifyOnServer", false))));
    reconciler.reconcile(WEB);
    // a write that fails, not a plan the server refuses: the plans are not verified
    cluster.faults().failAlways(Operation.APPLY, "ConfigMap/shop/a", "port 70000 is not valid");
    objects.changeSpec(
        WEB,
        spec(
            "manifests",
            List.of(configMap("a", "2")),
            "interval",
            "20s",
            "options",
            Map.of("maxHistory", 3, "verifyOnServer", false)));
    objects.writes.clear();

    List<Long> pauses = new ArrayList<>();
    Duration failing = Duration.ZERO;
    while (failing.compareTo(Duration.ofMinutes(10)) < 0) {
      Duration pause = java.util.Objects.requireNonNull(reconciler.reconcile(WEB).after());
      pauses.add(pause.toSeconds());
      clock.advance(pause);
      failing = failing.plus(pause);
    }

    // the pause doubles with the time failing, capped at the interval
    assertThat(pauses.subList(0, 9)).containsExactly(1L, 1L, 2L, 4L, 8L, 16L, 20L, 20L, 20L);
    assertThat(pauses.subList(6, pauses.size())).containsOnly(20L);
    assertThat(pauses).hasSize(35);
    // each try's revision took the place of the one before: the deployed revision and one failed
    ReleaseController engine = ReleaseController.builder(cluster, cluster).clock(clock).build();
    assertThat(engine.history(NS, "web"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(36, ReleaseStatus.FAILED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.DEPLOYED));
    assertThat(cluster.recordCount(NS, "web")).isLessThanOrEqualTo(3 + 1);
    // one Event object per reason, its count the number of tries
    assertThat(objects.eventObjects)
        .containsExactly(Map.entry("shop/web Cast", 1), Map.entry("shop/web CastFailed", 35));
    // Progressing once, then a status write per try (its revision), never a flip in between
    assertThat(objects.writes)
        .hasSize(36)
        .first()
        .isEqualTo("status shop/web Ready=Unknown Progressing");
    assertThat(objects.writes.subList(1, 36))
        .containsOnly("status shop/web Ready=False CastFailed");
    assertThat(RetrySchedule.stalledSince(web()))
        .isEqualTo(java.time.Instant.parse("2025-01-01T00:00:00Z"));
  }

  @Test
  void aRestartedControllerGoesOnWithThePauseTheStatusGives() {
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("manifests", List.of(configMap("a", "1")), "interval", "1m")));
    cluster.faults().failAlways(Operation.APPLY, "ConfigMap/shop/a", "refused");
    reconciler.reconcile(WEB);
    clock.advance(Duration.ofSeconds(40));

    reconciler = reconciler(); // a new process: nothing in memory
    assertThat(RetrySchedule.pause(web(), Duration.ofMinutes(1), clock.instant()))
        .isEqualTo(Duration.ofSeconds(40));
    assertThat(reconciler.reconcile(WEB).after()).isEqualTo(Duration.ofSeconds(40));
    clock.advance(Duration.ofSeconds(40));
    assertThat(reconciler.reconcile(WEB).after()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void aManualReconcileRequestIsHandledOnceAndRecordedInTheStatus() {
    objects.put(
        FakeReleaseObjects.release(NS, "web", spec("manifests", List.of(configMap("a", "1")))));
    reconciler.reconcile(WEB);
    objects.writes.clear();

    objects.annotate(WEB, ReleaseResource.RECONCILE_REQUEST, "2025-01-01T00:01:00Z");
    assertThat(web().reconcileRequested()).isTrue();
    reconciler.reconcile(WEB);
    reconciler.reconcile(WEB);

    assertThat(web().status()).containsEntry("lastHandledReconcileAt", "2025-01-01T00:01:00Z");
    assertThat(web().reconcileRequested()).isFalse();
    assertThat(objects.writes).containsExactly("status shop/web Ready=True UpToDate");

    objects.annotate(WEB, ReleaseResource.FLUX_RECONCILE_REQUEST, "2025-01-01T00:02:00Z");
    reconciler.reconcile(WEB);
    assertThat(web().status()).containsEntry("lastHandledReconcileAt", "2025-01-01T00:02:00Z");
    assertThat(objects.writes).hasSize(2);
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(1);
  }

  // --- charts ---------------------------------------------------------------------------------

  private static final String REGISTRY = "oci://registry.example/charts";

  /** A chart shaped like public ones: a ConfigMap of its values; a hook when asked. */
  private InMemoryCharts.Template shop(String version, boolean hooked) {
    return (request, values) ->
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-settings}\n"
            + "data: {color: '"
            + values.getOrDefault("color", "none")
            + "', size: '"
            + values.getOrDefault("size", 1)
            + "', version: '"
            + version
            + "'}\n"
            + (hooked
                ? "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shop-migrate\n"
                    + "  annotations: {helm.sh/hook: pre-install}\nspec: {template: {spec:"
                    + " {restartPolicy: Never, containers: [{name: m, image: r.example/m:1}]}}}\n"
                : "");
  }

  private static Map<String, Object> chart(Object... entries) {
    Map<String, Object> chart = spec("repository", REGISTRY, "name", "shop");
    chart.putAll(spec(entries));
    return chart;
  }

  private Map<String, String> settings() {
    return cluster
        .object(ResourceRef.of(Kind.CONFIG_MAP, NS, "shop-settings"))
        .map(m -> stringValues(m.get("data")))
        .orElseThrow();
  }

  private static Map<String, String> stringValues(@Nullable Object data) {
    Map<String, String> out = new LinkedHashMap<>();
    if (data instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    }
    return out;
  }

  @Test
  void aChartIsRenderedWithItsValuesSourcesThenItsInlineValuesAndRecordedWithSecretsMasked() {
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    configMaps.put("shop/shop-values", Map.of("values.yaml", "color: red\nsize: 2\n"));
    secrets.put("shop/shop-secrets", Map.of("prod.yaml", "dbPassphrase: correct-horse-battery\n"));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "chart",
                chart(
                    "valuesFrom",
                    List.of(
                        Map.of("kind", "ConfigMap", "name", "shop-values"),
                        Map.of("kind", "Secret", "name", "shop-secrets", "valuesKey", "prod.yaml"),
                        Map.of("kind", "ConfigMap", "name", "absent", "optional", true)),
                    "values",
                    Map.of("color", "blue")))));

    ReleaseReconciler.Next next = reconciler.reconcile(WEB);

    assertThat(next).isEqualTo(ReleaseReconciler.Next.after(Duration.ofMinutes(5)));
    assertThat(objects.writes)
        .containsExactly(
            "finalizer+ shop/web",
            "status shop/web Ready=Unknown Progressing",
            "status shop/web Ready=True Cast");
    assertThat(objects.events)
        .containsExactly("Normal Cast shop/web: revision 1: 1 created; chart shop 1.0.0");
    assertThat(settings()).containsEntry("color", "blue").containsEntry("size", "2");
    ChartRequest asked = charts.requests().get(0);
    assertThat(asked.chart().describe()).isEqualTo(REGISTRY + "/shop");
    assertThat(asked.qualifiedName()).isEqualTo("shop/web");
    assertThat(asked.upgrade()).isFalse();
    assertThat(asked.values().files())
        .extracting(ChartValues.File::label, ChartValues.File::secret)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "spec.chart.valuesFrom[0]: ConfigMap shop/shop-values key values.yaml", false),
            org.assertj.core.groups.Tuple.tuple(
                "spec.chart.valuesFrom[1]: Secret shop/shop-secrets key prod.yaml", true),
            org.assertj.core.groups.Tuple.tuple("spec.chart.values", false));
    Release record =
        ReleaseController.builder(cluster, cluster).build().get(NS, "web").orElseThrow();
    ChartOrigin origin = java.util.Objects.requireNonNull(record.chart());
    assertThat(origin.describe()).isEqualTo("shop 1.0.0");
    assertThat(origin.values())
        .isEqualTo(Map.of("color", "blue", "size", 2L, "dbPassphrase", ChartOrigin.MASKED));
    assertThat(record.source()).isEqualTo("capstan.dev/v1alpha1 Release shop/web");
    assertThat(String.join("\n", objects.events) + web().status() + outcomes)
        .doesNotContain("correct-horse-battery");
  }

  @Test
  void aValuesSourceNamedAgainIsRefusedBeforeAnyIsRead() {
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "chart",
                chart(
                    "valuesFrom",
                    List.of(
                        Map.of("kind", "ConfigMap", "name", "shop-values"),
                        Map.of("kind", "Secret", "name", "shop-values"),
                        Map.of(
                            "kind",
                            "ConfigMap",
                            "name",
                            "shop-values",
                            "valuesKey",
                            "values.yaml",
                            "optional",
                            true),
                        Map.of(
                            "kind", "ConfigMap", "name", "shop-values", "valuesKey", "b.yaml"))))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: spec.chart.valuesFrom[2]: names ConfigMap shop-values key"
                + " 'values.yaml' again (spec.chart.valuesFrom[0])");
    assertThat(castAs).isEmpty();
    assertThat(charts.requests()).isEmpty();
  }

  @Test
  void theValuesAreHeldToTheirLimitAsEachIsReadBeforeAnyIsWritten() {
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    String values = "filler: '" + "x".repeat(3 << 20) + "'\n";
    configMaps.put("shop/v0", Map.of("values.yaml", values));
    configMaps.put("shop/v1", Map.of("values.yaml", values));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "chart",
                chart(
                    "valuesFrom",
                    List.of(
                        Map.of("kind", "ConfigMap", "name", "v0"),
                        Map.of("kind", "ConfigMap", "name", "v1"),
                        Map.of("kind", "ConfigMap", "name", "absent")),
                    "values",
                    Map.of("color", "blue")))));

    reconciler.reconcile(WEB);

    // the inline values count first ({"color":"blue"}: 16 bytes); absent is not read
    long size = values.length();
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidChart")
        .containsEntry(
            "message",
            "Release shop/web: spec.chart.valuesFrom[1]: ConfigMap shop/v1 key values.yaml: the"
                + " chart's values would total "
                + (16 + 2 * size)
                + " bytes with this one ("
                + size
                + " bytes); the limit is 4194304 bytes (4 MiB) per release");
    assertThat(charts.requests()).isEmpty();
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aNewerChartVersionOrAChangedValuesSourceIsCastAndTheSameChartWritesNothing() {
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    configMaps.put("shop/shop-values", Map.of("values.yaml", "color: red\n"));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "chart",
                chart("valuesFrom", List.of(Map.of("kind", "ConfigMap", "name", "shop-values"))))));
    reconciler.reconcile(WEB);
    objects.writes.clear();
    cluster.clearOperations();

    reconciler.reconcile(WEB);
    assertThat(objects.writes).isEmpty();
    assertThat(cluster.writes()).isEmpty();
    assertThat(charts.requests()).extracting(ChartRequest::upgrade).containsExactly(false, true);

    charts.chart(REGISTRY + "/shop", "shop", "1.1.0", shop("1.1.0", false));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB))
        .containsEntry("reason", "Cast")
        .containsEntry("message", "revision 2: 1 updated; chart shop 1.1.0");
    assertThat(settings()).containsEntry("version", "1.1.0");

    configMaps.put("shop/shop-values", Map.of("values.yaml", "color: green\n"));
    reconciler.reconcile(WEB);
    assertThat(ready(WEB)).containsEntry("message", "revision 3: 1 updated; chart shop 1.1.0");
    assertThat(settings()).containsEntry("color", "green");
    assertThat(cluster.recordCount(NS, "web")).isEqualTo(3);
  }

  @Test
  void aChartWhoseRenderedOutputIsOverItsShareOfTheHeapIsRefusedWithAdviceForAChart() {
    heap = new ReleaseHeap(32L << 20, 2); // 12 MiB per Release, as in the shipped pod's 4 of 64
    reconciler = reconciler();
    charts.chart(
        REGISTRY + "/shop",
        "shop",
        "1.0.0",
        (request, values) -> denseConfigMap("a") + "---\n" + denseConfigMap("b"));
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    // one text: its 457,898 characters are counted first, then the nodes as they are built
    assertThat(ready(WEB))
        .containsEntry("reason", "TooLarge")
        .containsEntry(
            "message",
            "Release shop/web: (chart shop 1.0.0#1): the chart renders at least 457898 characters"
                + " of text and 69686 nodes (mappings, lists, keys and values), which would take at"
                + " least 12582992 bytes of the controller's heap at 8 and 128 bytes each; a"
                + " Release may take 12582912 bytes (12.0 MiB), three quarters of the controller's"
                + " 32.0 MiB heap over its 2 workers; render fewer or smaller objects, if the"
                + " chart's values allow it, or give the controller a larger heap (a higher memory"
                + " limit: the image's heap is 75% of it) or fewer --workers");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aChartThatPrintsMoreTextThanItsShareOfTheHeapIsStoppedBeforeItIsReadAndRefused() {
    heap = new ReleaseHeap(32L << 20, 2); // 12 MiB per Release: 1.5 MiB of text at 8 bytes each
    reconciler = reconciler();
    String big = "x".repeat(2 << 20);
    charts.chart(
        REGISTRY + "/shop",
        "shop",
        "1.0.0",
        (request, values) ->
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: " + big + "}\n");
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "TooLarge")
        .containsEntry(
            "message",
            "Release shop/web: (rendered output): the chart renders at least 2097217 characters"
                + " of text and 0 nodes (mappings, lists, keys and values), which would take at"
                + " least 16777736 bytes of the controller's heap at 8 and 128 bytes each; a"
                + " Release may take 12582912 bytes (12.0 MiB), three quarters of the controller's"
                + " 32.0 MiB heap over its 2 workers; render fewer or smaller objects, if the"
                + " chart's values allow it, or give the controller a larger heap (a higher memory"
                + " limit: the image's heap is 75% of it) or fewer --workers");
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void aChartVersionThatRendersTheSameObjectsIsStillRecordedWithoutAnObjectWrite() {
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("any", false));
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));
    reconciler.reconcile(WEB);
    cluster.clearOperations();

    charts.chart(REGISTRY + "/shop", "shop", "1.0.1", shop("any", false));
    reconciler.reconcile(WEB);

    assertThat(cluster.writes()).doesNotContain("apply:ConfigMap/shop/shop-settings");
    assertThat(ready(WEB))
        .containsEntry("message", "revision 2: nothing changed; chart shop 1.0.1");
    ChartOrigin recorded =
        ReleaseController.builder(cluster, cluster).build().get(NS, "web").orElseThrow().chart();
    assertThat(recorded).isNotNull();
    assertThat(java.util.Objects.requireNonNull(recorded).version()).isEqualTo("1.0.1");
  }

  @Test
  void aChartsHooksRunOnItsCastAndNoHooksCastsItWithoutThem() {
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", true));
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("message", "revision 1: 1 created; chart shop 1.0.0");
    assertThat(cluster.writes()).containsSubsequence("apply:batch/Job/shop/shop-migrate", "verify");
    assertThat(cluster.writes().get(0)).isEqualTo("apply:batch/Job/shop/shop-migrate");
    assertThat(cluster.stamp(ResourceRef.of(Kind.JOB, NS, "shop-migrate"))).isEmpty();
    cluster.deleteOutOfBand(ResourceRef.of(Kind.JOB, NS, "shop-migrate"));
    cluster.clearOperations();

    objects.changeSpec(WEB, spec("chart", chart("noHooks", true)));
    reconciler.reconcile(WEB);
    assertThat(cluster.object(ResourceRef.of(Kind.JOB, NS, "shop-migrate"))).isEmpty();
    assertThat(cluster.writes()).doesNotContain("apply:batch/Job/shop/shop-migrate");
  }

  @Test
  void aChartBesideManifestsOrReadingAnotherNamespaceOrALinkLocalHostIsRefusedByField() {
    tenancy = Tenancy.open().withCrossNamespaceRefs(true);
    reconciler = reconciler();
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "manifests",
                List.of(configMap("a", "1")),
                "chart",
                spec(
                    "repository",
                    "https://169.254.169.254/latest",
                    "name",
                    "shop",
                    "valuesFrom",
                    List.of(Map.of("kind", "Secret", "name", "creds", "namespace", "kube-system")),
                    "secretRef",
                    Map.of("name", "repo-creds", "namespace", "other")))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: 4 problems: spec.chart.repository: must not name a cloud's"
                + " metadata service (a link-local address, fd00:ec2::254 or 100.100.100.200): the"
                + " controller fetches charts from its own network: 'https://169.254.169.254/latest';"
                + " spec.chart.valuesFrom[0].namespace: must be the Release's own namespace shop: a"
                + " Release reads ConfigMaps and Secrets of its own namespace only, as its service"
                + " account: 'kube-system'; spec.chart.secretRef.namespace: must be the Release's"
                + " own namespace shop: a Release reads ConfigMaps and Secrets of its own namespace"
                + " only, as its service account: 'other'; spec.chart: a Release casts a chart or"
                + " manifests, not both: remove spec.chart, or spec.manifests and"
                + " spec.manifestsFrom");
    assertThat(castAs).isEmpty();
    assertThat(charts.requests()).isEmpty();
  }

  @Test
  void aRepositoryUrlHoldingAPasswordIsRefusedWithoutShowingIt() {
    for (String repository :
        List.of(
            "https://ci:glpat-hunter2@charts.example/api/v4/projects/1/packages/helm/stable",
            "oci://ci:hunter2@registry.example/charts")) {
      objects.put(
          FakeReleaseObjects.release(
              NS, "web", spec("chart", spec("repository", repository, "name", "shop"))));

      reconciler.reconcile(WEB);

      String shown =
          repository.substring(0, repository.indexOf("//") + 2)
              + "***"
              + repository.substring(repository.indexOf('@'));
      assertThat(ready(WEB))
          .containsEntry("reason", "InvalidSpec")
          .containsEntry(
              "message",
              "Release shop/web: spec.chart.repository: must not hold a user or password"
                  + " (USER:PASSWORD@): give them in spec.chart.secretRef (a Secret with username"
                  + " and password): '"
                  + shown
                  + "'");
      assertThat(String.valueOf(ready(WEB))).doesNotContain("hunter2");
      assertThat(castAs).isEmpty();
      assertThat(charts.requests()).isEmpty();
    }
  }

  @Test
  void underTheControllersListAChartIsFetchedOffPrivateAddressesButTheListsOwn() {
    tenancy =
        Tenancy.open()
            .withChartRepositories(
                List.of("oci://registry.example/charts/", "https://charts.platform.svc"));
    reconciler = reconciler();
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("reason", "Cast");
    assertThat(charts.requests())
        .extracting(r -> r.repository().privateNetworks())
        .containsExactly(
            PrivateNetworks.onlyAt(
                List.of("oci://registry.example/charts/", "https://charts.platform.svc")));
  }

  @Test
  void withoutAListAChartIsFetchedWithPrivateAddressesReachable() {
    tenancy = Tenancy.open().withDefaultServiceAccount("capstan-release");
    reconciler = reconciler();
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    assertThat(charts.requests())
        .extracting(r -> r.repository().privateNetworks())
        .containsExactly(PrivateNetworks.reachable());
  }

  private static final String OWN_MACHINE =
      "must not be the controller's own machine (a loopback address, 0.0.0.0/8, [::] or"
          + " localhost) when the controller serves tenants: Helm reaches those directly, past"
          + " the controller's proxy and any NetworkPolicy, in the controller's own pod (a"
          + " repository there is allowed only when --chart-repositories names it)";

  @Test
  void aControllerServingTenantsRefusesARepositoryOnItsOwnMachineUnlessItsListNamesIt() {
    charts.chart("oci://127.0.0.1:5000/charts/shop", "shop", "1.0.0", shop("1.0.0", false));
    for (Tenancy serving :
        List.of(
            Tenancy.open().withDefaultServiceAccount("capstan-release"),
            Tenancy.open().withChartRepositories(List.of("oci://registry.example/charts")))) {
      tenancy = serving;
      reconciler = reconciler();
      for (String repository :
          List.of("oci://127.0.0.1:5000/charts", "https://localhost:9090", "oci://[::1]/charts")) {
        objects.put(
            FakeReleaseObjects.release(
                NS, "web", spec("chart", spec("repository", repository, "name", "shop"))));

        reconciler.reconcile(WEB);

        assertThat(ready(WEB))
            .as(serving + " " + repository)
            .containsEntry("reason", "InvalidSpec")
            .containsEntry(
                "message",
                "Release shop/web: spec.chart.repository: "
                    + OWN_MACHINE
                    + ": '"
                    + repository
                    + "'");
      }
    }
    assertThat(charts.requests()).isEmpty();

    // named by the list: the platform team's own, allowed; and on a controller serving no tenant
    for (Tenancy allowing :
        List.of(
            Tenancy.open()
                .withServiceAccountRequired(false)
                .withChartRepositories(List.of("oci://127.0.0.1:5000/charts")),
            Tenancy.open())) {
      tenancy = allowing;
      reconciler = reconciler();
      objects.put(
          FakeReleaseObjects.release(
              NS,
              "web",
              spec("chart", spec("repository", "oci://127.0.0.1:5000/charts", "name", "shop"))));
      reconciler.reconcile(WEB);
      assertThat(ready(WEB)).as(allowing.toString()).containsEntry("status", "True");
    }
    assertThat(charts.requests())
        .extracting(r -> r.chart().describe())
        .containsExactly("oci://127.0.0.1:5000/charts/shop", "oci://127.0.0.1:5000/charts/shop");
  }

  @Test
  void aChartFromARepositoryOutsideTheControllersListIsRefusedBeforeAnythingIsFetched() {
    tenancy = Tenancy.open().withChartRepositories(List.of("oci://registry.example/charts/"));
    reconciler = reconciler();
    charts.chart(REGISTRY + "/shop", "shop", "1.0.0", shop("1.0.0", false));
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec("chart", spec("repository", "oci://evil.example.com/x", "name", "shop"))));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidSpec")
        .containsEntry(
            "message",
            "Release shop/web: spec.chart.repository: must be one of this controller's chart"
                + " repositories, or under one (--chart-repositories):"
                + " oci://registry.example/charts/: 'oci://evil.example.com/x'");
    assertThat(charts.requests()).isEmpty();
    assertThat(cluster.writes()).isEmpty();

    objects.changeSpec(WEB, spec("chart", chart()));
    reconciler.reconcile(WEB);

    assertThat(ready(WEB)).containsEntry("reason", "Cast");
    assertThat(charts.requests()).hasSize(1);
  }

  @Test
  void theRepositorysCredentialsComeFromTheSecretAndRefusedOnesSayWhichSecretToCheck() {
    List<ChartRequest> asked = new ArrayList<>();
    renderer =
        (request, limits) -> {
          asked.add(request);
          throw new ChartException(
              "chart oci://registry.example/charts/shop: the registry refused the credentials of"
                  + " user 'ci' (HTTP 401): check --username and the password given with"
                  + " --password-stdin; nothing was written");
        };
    objects.put(
        FakeReleaseObjects.release(
            NS,
            "web",
            spec(
                "chart",
                chart(
                    "version",
                    "^1.2",
                    "secretRef",
                    Map.of("name", "repo-creds"),
                    "certSecretRef",
                    Map.of("name", "repo-ca")))));
    secrets.put("shop/repo-creds", Map.of("user", "ci", "pass", "s3cret-pw"));
    secrets.put("shop/repo-ca", Map.of("ca.crt", "-----BEGIN CERTIFICATE-----\n"));

    reconciler.reconcile(WEB);
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidChart")
        .containsEntry(
            "message",
            "Release shop/web: spec.chart.secretRef: Secret shop/repo-creds must hold the keys"
                + " username and password; it has pass, user");
    assertThat(asked).isEmpty();

    secrets.put("shop/repo-creds", Map.of("username", "ci", "password", "s3cret-pw\n"));
    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "ChartFailed")
        .containsEntry(
            "message",
            "chart oci://registry.example/charts/shop: the registry refused the credentials"
                + " (HTTP 401): check the username and password of spec.chart.secretRef (Secret"
                + " repo-creds); nothing was written");
    ChartRequest request = asked.get(0);
    assertThat(request.version()).isEqualTo("^1.2");
    assertThat(request.repository().username()).isEqualTo("ci");
    assertThat(request.repository().password()).isEqualTo("s3cret-pw");
    assertThat(request.repository().caFile()).endsWith("ca.crt");
    assertThat(java.nio.file.Files.exists(java.nio.file.Path.of(request.repository().caFile())))
        .as("the CA's private file is deleted after the rendering")
        .isFalse();
    assertThat(String.join("\n", objects.events) + web().status() + outcomes)
        .doesNotContain("s3cret-pw");
  }

  @Test
  void aUsernameHoldingThePasswordIsRefusedByKeyAndRuleWithoutShowingIt() {
    List<ChartRequest> asked = new ArrayList<>();
    renderer =
        (request, limits) -> {
          asked.add(request);
          throw new AssertionError("no chart is rendered with such credentials");
        };
    objects.put(
        FakeReleaseObjects.release(
            NS, "web", spec("chart", chart("secretRef", Map.of("name", "repo-creds")))));
    secrets.put("shop/repo-creds", Map.of("username", "bob:hunter2", "password", "x"));

    reconciler.reconcile(WEB);

    String message =
        "Release shop/web: spec.chart.secretRef: Secret shop/repo-creds: key username must be a"
            + " user's name, not empty and without ':' (it separates user and password in Basic"
            + " authentication; the password goes under the key password) (the value is not"
            + " shown)";
    assertThat(ready(WEB))
        .containsEntry("reason", "InvalidChart")
        .containsEntry("message", message);
    assertThat(objects.events).containsExactly("Warning InvalidChart shop/web: " + message);
    assertThat(String.valueOf(web().status()) + objects.events + outcomes)
        .doesNotContain("hunter2");
    assertThat(asked).isEmpty();
  }

  @Test
  void aControllerWithoutAHelmBinaryRefusesEachChartInOneLineSayingHowToAddOne() {
    renderer = new HelmFromEnvironment(name -> null);
    objects.put(FakeReleaseObjects.release(NS, "web", spec("chart", chart())));

    reconciler.reconcile(WEB);

    assertThat(ready(WEB))
        .containsEntry("reason", "ChartFailed")
        .containsEntry(
            "message",
            "the controller cannot render charts: no Helm binary: 'helm' is not on PATH and"
                + " CAPSTAN_HELM is not set; install Helm 3.13 or later, or 4"
                + " (https://helm.sh/docs/intro/install/), or name the binary with"
                + " CAPSTAN_HELM=/path/to/helm in the controller's environment"
                + " (docs/controller.md, \"Charts\")");
    assertThat(objects.events)
        .containsExactly("Warning ChartFailed shop/web: " + ready(WEB).get("message"));
    assertThat(cluster.objects()).isEmpty();
  }
}
