package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.HooksTest.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.TestResult;
import dev.capstan.release.result.UninstallResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hooks around an uninstall and a rollback on the in-memory cluster, with the exact order of
 * operations: pre-delete before the first delete, post-delete after the last; pre-rollback and
 * post-rollback (of the revision rolled back to) instead of the upgrade hooks.
 */
class HookOperationsTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private List<String> operations() {
    return HooksTest.operations(h.cluster, false).stream()
        .filter(op -> !op.equals("await-deleted"))
        .toList();
  }

  @Test
  void preDeleteRunsBeforeTheFirstDeleteAndPostDeleteAfterTheLast() {
    h.cast(
        "web",
        Payloads.of(
            configMap("settings", "1"),
            job("backup", "pre-delete", "acme/backup:1"),
            job("farewell", "post-delete", "acme/farewell:1")));
    h.cluster.clearOperations();

    UninstallResult u = h.controller.uninstall(NS, "web", UninstallOptions.defaults());

    assertThat(operations())
        .containsExactly(
            "apply:batch/Job/default/backup",
            "await:batch/Job/default/backup",
            "delete:ConfigMap/default/settings",
            "apply:batch/Job/default/farewell",
            "await:batch/Job/default/farewell");
    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(u.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-delete batch/Job/default/backup succeeded",
            "post-delete batch/Job/default/farewell succeeded");
  }

  @Test
  void aFailingPreDeleteHookStopsTheUninstallBeforeAnythingIsDeleted() {
    h.cluster.failToComplete(
        "acme/backup:bad", "pod backup-1: container main: Error (exit code 2)");
    h.cast(
        "web",
        Payloads.of(configMap("settings", "1"), job("backup", "pre-delete", "acme/backup:bad")));
    h.cluster.clearOperations();

    RuntimeException e =
        catchThrowableOfType(
            RuntimeException.class,
            () -> h.controller.uninstall(NS, "web", UninstallOptions.defaults()));

    assertThat(e)
        .hasMessage(
            "pre-delete hook batch/Job/default/backup failed: pod backup-1: container main: Error"
                + " (exit code 2)");
    assertThat(operations())
        .containsExactly("apply:batch/Job/default/backup", "await:batch/Job/default/backup");
    assertThat(h.cluster.object(Fixtures.SETTINGS)).isPresent();
    assertThat(h.controller.get(NS, "web").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aFailingPostDeleteHookRecordsTheUninstallUnfinishedAndTheNextOneFinishesIt() {
    h.cluster.failToComplete("acme/farewell:bad", "pod f-1: container main: Error (exit code 1)");
    h.cast(
        "web",
        Payloads.of(
            configMap("settings", "1"), job("farewell", "post-delete", "acme/farewell:bad")));

    UninstallFailedException e =
        catchThrowableOfType(
            UninstallFailedException.class,
            () -> h.controller.uninstall(NS, "web", UninstallOptions.defaults()));

    assertThat(e)
        .hasMessageContaining(
            "post-delete hook batch/Job/default/farewell failed: pod f-1: container main: Error"
                + " (exit code 1)");
    Release stopped = h.controller.get(NS, "web").orElseThrow();
    assertThat(stopped.status()).isEqualTo(ReleaseStatus.UNINSTALLING);
    assertThat(stopped.owns()).isEmpty();
    assertThat(stopped.hooks()).extracting(HookOutcome::succeeded).containsExactly(false);
    assertThat(h.cluster.object(Fixtures.SETTINGS)).isEmpty();
  }

  @Test
  void aRollbackRunsTheRollbackHooksOfTheRevisionItReturnsToNotItsUpgradeHooks() {
    Payloads v1 =
        Payloads.of(
            configMap("settings", "1"),
            job("migrate", "pre-upgrade", "acme/m:1"),
            job("down", "pre-rollback", "acme/down:1"),
            job("check", "post-rollback", "acme/check:1"));
    h.cast("web", v1);
    h.cast("web", Payloads.of(configMap("settings", "2")));
    h.cluster.clearOperations();

    Plan plan = h.controller.planRollback(NS, "web", 1);
    CastResult r = h.controller.rollback(NS, "web", 1);

    assertThat(plan.hooks())
        .extracting(x -> x.phase() + " " + x.ref().name())
        .containsExactly("pre-rollback down", "post-rollback check");
    assertThat(operations())
        .containsExactly(
            "apply:batch/Job/default/down",
            "await:batch/Job/default/down",
            "apply:ConfigMap/default/settings",
            "verify",
            "apply:batch/Job/default/check",
            "await:batch/Job/default/check");
    assertThat(r.release().hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-rollback batch/Job/default/down succeeded",
            "post-rollback batch/Job/default/check succeeded");
  }

  @Test
  void releaseTestRunsTheTestHooksInOrderStopsAtTheFirstFailureAndRecordsThem() {
    h.cluster.failToComplete("acme/t:bad", "pod b-1: container main: Error (exit code 4)");
    h.cast(
        "web",
        Payloads.of(
            configMap("settings", "1"),
            job("a", "test", "acme/t:1"),
            job("b", "test", "acme/t:bad", "helm.sh/hook-weight", "1"),
            job("c", "test", "acme/t:1", "helm.sh/hook-weight", "2"),
            job("migrate", "pre-install", "acme/m:1")));
    h.cluster.clearOperations();

    TestResult t = h.controller.test(NS, "web", java.time.Duration.ofMinutes(1));

    assertThat(operations())
        .containsExactly(
            "apply:batch/Job/default/a",
            "await:batch/Job/default/a",
            "apply:batch/Job/default/b",
            "await:batch/Job/default/b");
    assertThat(t.passed()).isFalse();
    assertThat(t.declared()).isEqualTo(3);
    assertThat(t.outcomes())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "test batch/Job/default/a succeeded",
            "test batch/Job/default/b failed: pod b-1: container main: Error (exit code 4)");
    Release recorded = h.controller.get(NS, "web").orElseThrow();
    assertThat(recorded.revision()).isEqualTo(1);
    assertThat(recorded.hooks())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "pre-install batch/Job/default/migrate succeeded",
            "test batch/Job/default/a succeeded",
            "test batch/Job/default/b failed: pod b-1: container main: Error (exit code 4)");

    h.cluster.failToComplete("acme/t:bad", "pod b-1: container main: Error (exit code 4)");
    TestResult again = h.controller.test(NS, "web", java.time.Duration.ofMinutes(1));
    assertThat(h.controller.get(NS, "web").orElseThrow().hooks()).hasSize(3);
    assertThat(again.outcomes()).hasSize(2);
  }

  /** The outcomes the latest revision of release {@code name} records, described. */
  private List<String> recordedHooks(String name) {
    return h.controller.get(NS, name).orElseThrow().hooks().stream()
        .map(HookOutcome::describe)
        .toList();
  }

  @Test
  void aCastsHookThatOutlivesItsTimeoutSaysWhatItWasDoingAndHowToGiveItLonger() {
    h.cluster.neverReady("acme/slow:1", "ContainerCreating");
    Payloads p = Payloads.of(configMap("settings", "1"), job("slow", "pre-install", "acme/slow:1"));
    h.events.clear();

    assertThat(
            catchThrowableOfType(
                RuntimeException.class,
                () ->
                    h.controller.cast(
                        Fixtures.spec("web", p)
                            .withOptions(
                                dev.capstan.release.model.ReleaseOptions.defaults()
                                    .withTimeout(java.time.Duration.ofMinutes(1))),
                        p)))
        .isInstanceOf(dev.capstan.release.error.CastFailedException.class);
    Payloads own =
        Payloads.of(
            configMap("settings", "1"),
            job("slower", "pre-install", "acme/slow:1", "capstan.dev/hook-timeout", "30s"));
    assertThat(catchThrowableOfType(RuntimeException.class, () -> h.cast("api", own)))
        .isInstanceOf(dev.capstan.release.error.CastFailedException.class);

    assertThat(recordedHooks("web"))
        .containsExactly(
            "pre-install batch/Job/default/slow failed: not complete within its timeout of 1m: Job"
                + " default/slow: ContainerCreating; give it a longer one with the annotation"
                + " capstan.dev/hook-timeout, or cast again with a longer timeout (the CLI's"
                + " --timeout)");
    assertThat(recordedHooks("api"))
        .containsExactly(
            "pre-install batch/Job/default/slower failed: not complete within its timeout of 30s:"
                + " Job default/slower: ContainerCreating; give it a longer one with the annotation"
                + " capstan.dev/hook-timeout");
    assertThat(h.events)
        .filteredOn(
            e ->
                e instanceof dev.capstan.release.event.ReleaseEvent.HookStarted
                    || e instanceof dev.capstan.release.event.ReleaseEvent.HookWaiting)
        .extracting(e -> e.release() + ": " + e.describe())
        .containsExactly(
            "default/web: pre-install hook batch/Job/default/slow ...",
            "default/web: waiting up to 1m for pre-install hook batch/Job/default/slow to complete",
            "default/api: pre-install hook batch/Job/default/slower ...",
            "default/api: waiting up to 30s for pre-install hook batch/Job/default/slower to"
                + " complete");
  }

  @Test
  void aRollbacksHookThatOutlivesItsTimeoutNamesTheRevisionToRollBackToAgain() {
    h.cluster.neverReady("acme/check:slow", "ContainerCreating");
    h.cast(
        "web",
        Payloads.of(configMap("settings", "1"), job("check", "post-rollback", "acme/check:slow")));
    h.cast("web", Payloads.of(configMap("settings", "2")));

    assertThat(
            catchThrowableOfType(RuntimeException.class, () -> h.controller.rollback(NS, "web", 1)))
        .isInstanceOf(dev.capstan.release.error.CastFailedException.class);

    assertThat(recordedHooks("web"))
        .containsExactly(
            "post-rollback batch/Job/default/check failed: not complete within its timeout of 15m:"
                + " Job default/check: ContainerCreating; roll back to revision 1 again with a"
                + " longer timeout (the CLI's release rollback --to 1 --timeout)");
  }

  @Test
  void anUninstallsHookThatOutlivesItsTimeoutPointsAtTheUninstallsWait() {
    h.cluster.neverReady("acme/backup:slow", "ContainerCreating");
    h.cast(
        "web",
        Payloads.of(configMap("settings", "1"), job("backup", "pre-delete", "acme/backup:slow")));
    h.cast(
        "api",
        Payloads.of(configMap("other", "1"), job("farewell", "post-delete", "acme/backup:slow")));

    RuntimeException pre =
        catchThrowableOfType(
            RuntimeException.class,
            () ->
                h.controller.uninstall(
                    NS,
                    "web",
                    UninstallOptions.defaults().withWait(java.time.Duration.ofMinutes(2))));
    RuntimeException post =
        catchThrowableOfType(
            RuntimeException.class,
            () -> h.controller.uninstall(NS, "api", UninstallOptions.defaults()));

    assertThat(pre)
        .hasMessage(
            "pre-delete hook batch/Job/default/backup failed: not complete within its timeout of"
                + " 2m: Job default/backup: ContainerCreating; uninstall again with a longer wait"
                + " (UninstallOptions.withWait; the CLI's --wait-for-deletion --timeout), or give"
                + " it a longer one with the annotation capstan.dev/hook-timeout and cast before"
                + " uninstalling");
    assertThat(post)
        .hasMessageContaining(
            "post-delete hook batch/Job/default/farewell failed: not complete within its timeout"
                + " of 15m: Job default/farewell: ContainerCreating; uninstall again with a longer"
                + " wait (UninstallOptions.withWait; the CLI's --wait-for-deletion --timeout)")
        .message()
        .doesNotContain("annotation");
  }

  @Test
  void releaseTestsThatOutliveTheirTimeoutPointAtReleaseTestsTimeoutOrTheAnnotation() {
    h.cluster.neverReady("acme/t:slow", "ContainerCreating");
    h.cast("web", Payloads.of(configMap("settings", "1"), job("smoke", "test", "acme/t:slow")));
    h.cast(
        "api",
        Payloads.of(
            configMap("other", "1"),
            job("check", "test", "acme/t:slow", "capstan.dev/hook-timeout", "20s")));

    TestResult web = h.controller.test(NS, "web", java.time.Duration.ofSeconds(10));
    TestResult api = h.controller.test(NS, "api", java.time.Duration.ofSeconds(10));

    assertThat(web.outcomes())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "test batch/Job/default/smoke failed: not complete within its timeout of 10s: Job"
                + " default/smoke: ContainerCreating; test again with a longer timeout (the CLI's"
                + " release test --timeout), or give it a longer one with the annotation"
                + " capstan.dev/hook-timeout and cast first");
    assertThat(api.outcomes())
        .extracting(HookOutcome::describe)
        .containsExactly(
            "test batch/Job/default/check failed: not complete within its timeout of 20s: Job"
                + " default/check: ContainerCreating; give it a longer one with the annotation"
                + " capstan.dev/hook-timeout and cast, then test again");
  }

  @Test
  void releaseTestRefusesARevisionThatIsNotDeployed() {
    h.cluster.neverReady("acme/web:broken", "CrashLoopBackOff");
    assertThat(
            catchThrowableOfType(
                RuntimeException.class,
                () ->
                    h.cast(
                        "web",
                        Payloads.of(
                            Fixtures.web("acme/web:broken"),
                            Fixtures.creds("pw"),
                            job("t", "test", "x:1")))))
        .hasMessageContaining("CrashLoopBackOff");
    h.cluster.clearOperations();

    RuntimeException e =
        catchThrowableOfType(
            RuntimeException.class,
            () -> h.controller.test(NS, "web", java.time.Duration.ofMinutes(1)));

    assertThat(e)
        .hasMessageContaining(
            "its latest revision 1 is failed: only a deployed revision is tested; cast it (or roll"
                + " back) first");
    assertThat(h.cluster.writes()).isEmpty();
  }
}
