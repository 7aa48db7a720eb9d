package dev.capstan.release.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typed hook and its annotations: one round-trips through the other; bad values are named. */
class HookTest {
  private static final Manifest JOB =
      Manifest.of(
          Map.of(
              "apiVersion",
              "batch/v1",
              "kind",
              "Job",
              "metadata",
              Map.of("name", "migrate", "namespace", "shop"),
              "spec",
              Map.of("template", Map.of("spec", Map.of("restartPolicy", "Never")))));

  @Test
  void aTypedHookIsWrittenAsCapstansAnnotationsAndReadBackTheSame() {
    Hook hook =
        Hook.of(JOB, HookPhase.PRE_UPGRADE, HookPhase.PRE_INSTALL)
            .withWeight(-3)
            .withDeletePolicies(HookDeletePolicy.HOOK_SUCCEEDED)
            .withTimeout(Duration.ofSeconds(90));

    Manifest written = hook.toManifest();

    assertThat(written.annotations())
        .containsEntry("capstan.dev/hook", "pre-install,pre-upgrade")
        .containsEntry("capstan.dev/hook-weight", "-3")
        .containsEntry("capstan.dev/hook-delete-policy", "hook-succeeded")
        .containsEntry("capstan.dev/hook-timeout", "90000ms");
    Hook read = Hook.declaredBy(written).orElseThrow();
    assertThat(read.phases()).containsExactly(HookPhase.PRE_INSTALL, HookPhase.PRE_UPGRADE);
    assertThat(read.weight()).isEqualTo(-3);
    assertThat(read.deletePolicies()).containsExactly(HookDeletePolicy.HOOK_SUCCEEDED);
    assertThat(read.timeout()).isEqualTo(Duration.ofSeconds(90));
    Payloads payloads = Payloads.builder().hook(hook).build();
    assertThat(payloads.objects()).isEmpty();
    assertThat(payloads.hooks(HookPhase.PRE_UPGRADE))
        .extracting(Hook::ref)
        .containsExactly(JOB.ref());
    assertThat(read.effectivePolicies()).containsExactly(HookDeletePolicy.HOOK_SUCCEEDED);
    assertThat(Hook.of(JOB, HookPhase.TEST).effectivePolicies())
        .containsExactly(HookDeletePolicy.BEFORE_HOOK_CREATION);
  }

  @Test
  void aHookDescribesItsPhasesInRunOrderAndIsATestOnlyWhenTestIsItsOnlyPhase() {
    Hook helm =
        Hook.declaredBy(
                JOB.withEntry("metadata.annotations", "helm.sh/hook", "Pre-Upgrade, test-success"))
            .orElseThrow();

    assertThat(helm.describe()).isEqualTo("batch/Job/shop/migrate (pre-upgrade, test)");
    assertThat(helm.isTest()).isFalse();
    assertThat(Hook.of(JOB, HookPhase.TEST).isTest()).isTrue();
    assertThat(Hook.of(JOB, HookPhase.TEST).describe()).isEqualTo("batch/Job/shop/migrate (test)");
  }

  @Test
  void helmsAndCapstansAnnotationsMustAgreeAndHookAnnotationsNeedAPhase() {
    Manifest both =
        JOB.withEntry("metadata.annotations", "helm.sh/hook", "pre-install")
            .withEntry("metadata.annotations", "capstan.dev/hook", "post-install");
    assertThatThrownBy(() -> Hook.declaredBy(both))
        .hasMessage(
            "batch/Job/shop/migrate: annotations helm.sh/hook and capstan.dev/hook must agree when"
                + " both are given: 'pre-install' and 'post-install'");

    Manifest weightOnly = JOB.withEntry("metadata.annotations", "helm.sh/hook-weight", "1");
    assertThatThrownBy(() -> Hook.declaredBy(weightOnly))
        .hasMessage(
            "batch/Job/shop/migrate: annotation helm.sh/hook-weight belongs to a hook, but the"
                + " object names no phase in capstan.dev/hook or helm.sh/hook");

    Manifest badTimeout =
        JOB.withEntry("metadata.annotations", "capstan.dev/hook", "test")
            .withEntry("metadata.annotations", "capstan.dev/hook-timeout", "soon");
    assertThatThrownBy(() -> Hook.declaredBy(badTimeout))
        .hasMessage(
            "batch/Job/shop/migrate: annotation capstan.dev/hook-timeout must be a positive"
                + " duration such as 90s, 15m or 1h30m: 'soon'");
  }

  @Test
  void aNamespaceIsNoHook() {
    Manifest ns =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Namespace",
                "metadata",
                Map.of("name", "x", "annotations", Map.of("helm.sh/hook", "pre-install"))));
    assertThatThrownBy(() -> Hook.declaredBy(ns))
        .hasMessage(
            "Namespace//x: a hook must be an object a release could own; a Namespace is not");
    assertThat(List.of(HookPhase.values())).hasSize(9);
    assertThat(HookPhase.parse("test-success")).contains(HookPhase.TEST);
  }
}
