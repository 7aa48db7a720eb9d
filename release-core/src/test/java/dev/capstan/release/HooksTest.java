package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.CastResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hooks around a cast on the in-memory cluster, each with the exact order of operations: pre-hooks
 * before the release's first write, post-hooks after its health wait and before its prune, weights,
 * the three delete policies, a failing pre-hook that writes nothing of the release, a failing
 * post-hook that fails the revision (reverted when atomic), outcomes in the record, and hook
 * objects never owned nor pruned.
 */
class HooksTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  static Manifest job(String name, String phases, String image, String... annotations) {
    StringBuilder extra = new StringBuilder();
    for (int i = 0; i < annotations.length; i += 2) {
      extra.append("    ").append(annotations[i]).append(": \"").append(annotations[i + 1]);
      extra.append("\"\n");
    }
    return yaml(
        """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: %s
          annotations:
            helm.sh/hook: %s
        %s
        spec:
          backoffLimit: 0
          template:
            spec:
              restartPolicy: Never
              containers:
              - {name: main, image: %s}
        """
            .formatted(name, phases, extra, image));
  }

  private static ResourceRef jobRef(String name) {
    return ResourceRef.parse("batch/Job/" + NS + "/" + name);
  }

  /** The operations on objects: writes, waits and observations of hooks, in order. */
  private List<String> operations() {
    return operations(h.cluster, true);
  }

  /** {@code cluster}'s writes, waits and health waits in order, with observations of Jobs. */
  static List<String> operations(
      dev.capstan.release.memory.InMemoryCluster cluster, boolean observations) {
    List<String> out = new ArrayList<>();
    for (String op : cluster.operations()) {
      if (op.startsWith("apply:")
          || op.startsWith("delete:")
          || op.startsWith("await:")
          || op.startsWith("await-deleted")
          || op.equals("verify")
          || (observations && op.startsWith("observe:batch/Job"))) {
        out.add(op);
      }
    }
    return out;
  }

  private CastResult cast(Payloads payloads) {
    return h.cast("web", payloads);
  }

  private CastResult cast(Payloads payloads, ReleaseOptions options) {
    return h.controller.cast(Fixtures.spec("web", payloads).withOptions(options), payloads);
  }

  @Test
  void aFirstCastRunsPreInstallHooksBeforeItsFirstWriteAndPostInstallAfterItsHealthWait() {
    Payloads p =
        Payloads.of(
            configMap("settings", "1"),
            job("migrate", "pre-install,pre-upgrade", "acme/migrate:1"),
            job("smoke", "post-install", "acme/smoke:1"));

    CastResult result = cast(p);

    assertThat(operations())
        .containsExactly(
            "observe:batch/Job/default",
            "apply:batch/Job/default/migrate",
            "await:batch/Job/default/migrate",
            "apply:ConfigMap/default/settings",
            "verify",
            "observe:batch/Job/default",
            "apply:batch/Job/default/smoke",
            "await:batch/Job/default/smoke");
    Release r = result.release();
    assertThat(r.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(r.owns()).extracting(OwnedResource::ref).containsExactly(Fixtures.SETTINGS);
    assertThat(r.hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-install batch/Job/default/migrate succeeded",
            "post-install batch/Job/default/smoke succeeded");
    assertThat(h.cluster.object(jobRef("migrate")).orElseThrow().annotations())
        .containsEntry("capstan.dev/hook-of", "default/web");
    assertThat(h.controller.get(NS, "web").orElseThrow().hooks()).isEqualTo(r.hooks());
  }

  @Test
  void theNextCastRunsTheUpgradeHooksAndDeletesTheEarlierRunsObjectFirstByDefault() {
    Payloads p =
        Payloads.of(
            configMap("settings", "1"), job("migrate", "pre-install,pre-upgrade", "acme/m:1"));
    cast(p);
    h.cluster.clearOperations();

    CastResult result =
        cast(
            Payloads.of(
                configMap("settings", "2"), job("migrate", "pre-install,pre-upgrade", "acme/m:2")));

    assertThat(operations())
        .containsExactly(
            "observe:batch/Job/default",
            "delete:batch/Job/default/migrate",
            "await-deleted",
            "apply:batch/Job/default/migrate",
            "await:batch/Job/default/migrate",
            "apply:ConfigMap/default/settings",
            "verify");
    assertThat(result.release().hooks())
        .extracting(HookOutcome::phase)
        .containsExactly(HookPhase.PRE_UPGRADE);
  }

  @Test
  void weightsOrderTheHooksOfAPhaseThenNames() {
    Payloads p =
        Payloads.of(
            configMap("settings", "1"),
            job("c", "pre-install", "acme/x:1", "helm.sh/hook-weight", "-5"),
            job("b", "pre-install", "acme/x:1", "helm.sh/hook-weight", "3"),
            job("a", "pre-install", "acme/x:1", "capstan.dev/hook-weight", "3"));

    cast(p);

    assertThat(operations())
        .filteredOn(op -> op.startsWith("apply:"))
        .containsExactly(
            "apply:batch/Job/default/c",
            "apply:batch/Job/default/a",
            "apply:batch/Job/default/b",
            "apply:ConfigMap/default/settings");
  }

  @Test
  void aFailingPreHookStopsTheCastBeforeAnyObjectOfTheReleaseIsWrittenWithItsReason() {
    cast(Payloads.of(configMap("settings", "1")));
    h.cluster.clearOperations();
    h.cluster.failToComplete(
        "acme/migrate:bad", "pod migrate-x: container main: Error (exit code 3)");

    CastFailedException e =
        catchThrowableOfType(
            CastFailedException.class,
            () ->
                cast(
                    Payloads.of(
                        configMap("settings", "2"),
                        job("migrate", "pre-upgrade", "acme/migrate:bad"))));

    assertThat(e)
        .hasMessageContaining(
            "pre-upgrade hook batch/Job/default/migrate failed: pod migrate-x: container main:"
                + " Error (exit code 3)");
    assertThat(operations())
        .containsExactly(
            "observe:batch/Job/default",
            "apply:batch/Job/default/migrate",
            "await:batch/Job/default/migrate");
    assertThat(h.cluster.object(Fixtures.SETTINGS).orElseThrow().get("data.value")).isEqualTo("1");
    Release failed = e.result().release();
    assertThat(failed.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.owns()).isEqualTo(h.controller.history(NS, "web").get(1).owns());
    assertThat(failed.hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-upgrade batch/Job/default/migrate failed: pod migrate-x: container main: Error"
                + " (exit code 3)");
  }

  @Test
  void eachDeletePolicyLeavesExactlyWhatItSays() {
    h.cluster.failToComplete("acme/fails:1", "pod f: container main: Error (exit code 1)");
    Payloads ok =
        Payloads.of(
            configMap("settings", "1"),
            job(
                "gone-on-success",
                "pre-install,pre-upgrade",
                "acme/ok:1",
                "helm.sh/hook-delete-policy",
                "hook-succeeded"),
            job(
                "kept-on-success",
                "pre-install,pre-upgrade",
                "acme/ok:1",
                "helm.sh/hook-delete-policy",
                "hook-failed"));

    cast(ok);

    assertThat(operations())
        .containsExactly(
            "apply:batch/Job/default/gone-on-success",
            "await:batch/Job/default/gone-on-success",
            "apply:batch/Job/default/kept-on-success",
            "await:batch/Job/default/kept-on-success",
            "observe:batch/Job/default",
            "delete:batch/Job/default/gone-on-success",
            "await-deleted",
            "apply:ConfigMap/default/settings",
            "verify");
    assertThat(h.cluster.object(jobRef("gone-on-success"))).isEmpty();
    assertThat(h.cluster.object(jobRef("kept-on-success"))).isPresent();
    h.cluster.clearOperations();

    // without before-hook-creation, the object the last run left is in the way
    CastFailedException inTheWay = catchThrowableOfType(CastFailedException.class, () -> cast(ok));
    assertThat(inTheWay)
        .hasMessageContaining(
            "pre-upgrade hook batch/Job/default/kept-on-success failed: it exists already (an"
                + " earlier run's object: give the hook the delete policy before-hook-creation, or"
                + " delete it)");
    // its create fenced on the object's absence, the hook failed: hook-failed deletes that object
    assertThat(operations())
        .containsExactly(
            "apply:batch/Job/default/gone-on-success",
            "await:batch/Job/default/gone-on-success",
            "observe:batch/Job/default",
            "delete:batch/Job/default/kept-on-success",
            "await-deleted");
    assertThat(h.cluster.operations()).contains("fenced:apply:batch/Job/default/kept-on-success");
    assertThat(h.cluster.object(jobRef("kept-on-success"))).isEmpty();
    h.cluster.clearOperations();

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class,
            () ->
                cast(
                    Payloads.of(
                        configMap("settings", "1"),
                        job(
                            "gone-on-failure",
                            "pre-upgrade",
                            "acme/fails:1",
                            "helm.sh/hook-delete-policy",
                            "hook-failed,before-hook-creation"))));
    assertThat(failed).hasMessageContaining("pre-upgrade hook batch/Job/default/gone-on-failure");
    assertThat(operations())
        .containsExactly(
            "observe:batch/Job/default",
            "apply:batch/Job/default/gone-on-failure",
            "await:batch/Job/default/gone-on-failure",
            "observe:batch/Job/default",
            "delete:batch/Job/default/gone-on-failure",
            "await-deleted");
    assertThat(h.cluster.object(jobRef("gone-on-failure"))).isEmpty();
  }

  @Test
  void aFailingPostHookFailsTheRevisionAndAtomicRevertsItsWritesButNotTheHook() {
    cast(Payloads.of(configMap("settings", "1")));
    h.cluster.failToComplete("acme/smoke:bad", "pod smoke-1: container main: Error (exit code 1)");
    h.cluster.clearOperations();

    CastFailedException e =
        catchThrowableOfType(
            CastFailedException.class,
            () ->
                cast(
                    Payloads.of(
                        configMap("settings", "2"), job("smoke", "post-upgrade", "acme/smoke:bad")),
                    ReleaseOptions.defaults().withAtomic(true)));

    assertThat(e)
        .hasMessageContaining(
            "post-upgrade hook batch/Job/default/smoke failed: pod smoke-1: container main: Error"
                + " (exit code 1) (atomic: this revision's changes were rolled back)");
    assertThat(operations())
        .containsExactly(
            "apply:ConfigMap/default/settings",
            "verify",
            "observe:batch/Job/default",
            "apply:batch/Job/default/smoke",
            "await:batch/Job/default/smoke",
            "apply:ConfigMap/default/settings");
    assertThat(h.cluster.object(Fixtures.SETTINGS).orElseThrow().get("data.value")).isEqualTo("1");
    assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
  }

  @Test
  void aHookIsNeverOwnedNorPrunedWhenTheReleaseDropsIt() {
    cast(Payloads.of(configMap("settings", "1"), job("seed", "post-install", "acme/seed:1")));
    h.cluster.clearOperations();

    CastResult second = cast(Payloads.of(configMap("settings", "1")));

    assertThat(second.release().owns())
        .extracting(OwnedResource::ref)
        .containsExactly(Fixtures.SETTINGS);
    assertThat(h.cluster.writes()).containsExactly("verify");
    assertThat(h.cluster.object(jobRef("seed"))).isPresent();
    assertThat(h.cluster.stamp(jobRef("seed"))).isEmpty();
  }

  @Test
  void anIdenticalReCastRunsTheUpgradeHooksAgainAndWritesNothingElse() {
    Payloads p =
        Payloads.of(configMap("settings", "1"), job("migrate", "pre-install,pre-upgrade", "m:1"));
    cast(p);
    h.cluster.clearOperations();

    CastResult again = cast(p);

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:batch/Job/default/migrate", "apply:batch/Job/default/migrate", "verify");
    assertThat(again.release().revision()).isEqualTo(2);
    assertThat(again.plan().changesNothing()).isTrue();
    assertThat(again.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly("pre-upgrade batch/Job/default/migrate succeeded");
  }

  @Test
  void aHookNamedLikeSomeoneElsesObjectIsNeverDeleted() {
    h.cluster.put(job("migrate", "pre-install", "theirs:1").with("metadata.annotations", null));
    Payloads p = Payloads.of(configMap("settings", "1"), job("migrate", "pre-install", "m:1"));

    CastFailedException e = catchThrowableOfType(CastFailedException.class, () -> cast(p));

    assertThat(e)
        .hasMessageContaining(
            "pre-install hook batch/Job/default/migrate failed: batch/Job/default/migrate exists"
                + " and is not a hook object of release default/web (no annotation"
                + " capstan.dev/hook-of: default/web with capstan.dev/hook-of-id: id-1); not"
                + " deleted");
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void thePlanListsTheHooksTheCastRunsInOrder() {
    Payloads p =
        Payloads.of(
            configMap("settings", "1"),
            job(
                "smoke",
                "post-install,post-upgrade",
                "s:1",
                "helm.sh/hook-delete-policy",
                "hook-succeeded"),
            job("migrate", "pre-install,pre-upgrade", "m:1", "helm.sh/hook-weight", "-1"),
            job("backup", "pre-delete", "b:1"));

    Plan plan = h.controller.plan(Fixtures.spec("web", p), p);

    assertThat(PlanRenderer.text(plan))
        .contains(
            """
            Hooks the cast runs:
              ⚓ pre-install batch/Job/default/migrate (weight -1; delete before-hook-creation)
              ⚓ post-install batch/Job/default/smoke (weight 0; delete hook-succeeded)
            """);
    assertThat(PlanRenderer.jsonTree(plan).get("hooks").toString())
        .isEqualTo(
            "[{\"phase\":\"pre-install\",\"key\":\"batch/Job/default/migrate\",\"weight\":-1,"
                + "\"deletePolicies\":[\"before-hook-creation\"]},{\"phase\":\"post-install\","
                + "\"key\":\"batch/Job/default/smoke\",\"weight\":0,\"deletePolicies\":"
                + "[\"hook-succeeded\"]}]");
    cast(p);
    assertThat(h.controller.plan(Fixtures.spec("web", p), p).hooks())
        .extracting(x -> x.phase() + " " + x.ref().name())
        .containsExactly("pre-upgrade migrate", "post-upgrade smoke");
  }

  @Test
  void castAllLeavesAnUnchangedReleaseAloneButCastsOneWhoseHooksAloneChanged() {
    Payloads v1 =
        Payloads.of(configMap("settings", "1"), job("migrate", "pre-install,pre-upgrade", "m:1"));
    cast(v1);
    h.cluster.clearOperations();

    List<CastOutcome> same = h.controller.castAll(List.of(ReleaseInput.of(NS, "web", v1)), 1);
    assertThat(same.get(0)).isInstanceOf(CastOutcome.Unchanged.class);
    assertThat(h.cluster.writes()).isEmpty();

    Payloads v2 =
        Payloads.of(configMap("settings", "1"), job("migrate", "pre-install,pre-upgrade", "m:2"));
    List<CastOutcome> changed = h.controller.castAll(List.of(ReleaseInput.of(NS, "web", v2)), 1);
    assertThat(changed.get(0)).isInstanceOf(CastOutcome.Cast.class);
    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:batch/Job/default/migrate", "apply:batch/Job/default/migrate", "verify");
  }

  @Test
  void aSecretHookOfAReleaseThatRecordsNoSecretValuesIsRunButNotRecorded()
      throws java.io.IOException {
    Manifest seed =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata:
              name: seed
              annotations: {helm.sh/hook: pre-install}
            stringData: {token: %s}
            """
                .formatted(Fixtures.SECRET_VALUE));

    CastResult r =
        cast(
            Payloads.of(configMap("settings", "1"), seed),
            ReleaseOptions.defaults().withRecordSecretValues(false));

    assertThat(h.cluster.object(ResourceRef.parse("Secret/default/seed"))).isPresent();
    assertThat(r.release().payloads().hooks()).isEmpty();
    byte[] record =
        new java.util.zip.GZIPInputStream(
                new java.io.ByteArrayInputStream(h.cluster.recordBytes(NS, "web", 1).orElseThrow()))
            .readAllBytes();
    assertThat(new String(record, java.nio.charset.StandardCharsets.UTF_8))
        .contains("settings")
        .doesNotContain(Fixtures.SECRET_VALUE);
    assertThat(h.controller.get(NS, "web").orElseThrow().payloads().hooks()).isEmpty();
  }
}
