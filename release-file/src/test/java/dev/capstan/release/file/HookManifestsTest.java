package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookDeletePolicy;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Manifests that carry Helm's hook annotations (as rendered charts do) or Capstan's are hooks of
 * the release a file describes, not objects it owns; a bad annotation is refused naming the object,
 * the annotation, the rule and the value.
 */
class HookManifestsTest {
  private static final String RENDERED =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: settings}
      data: {level: info}
      ---
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: migrate
        annotations:
          helm.sh/hook: pre-install,pre-upgrade
          helm.sh/hook-weight: "-5"
          helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: migrate, image: acme/migrate:1}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: smoke
        annotations:
          capstan.dev/hook: test
          capstan.dev/hook-timeout: 90s
      spec:
        restartPolicy: Never
        containers: [{name: smoke, image: acme/smoke:1}]
      """;

  @Test
  void hookAnnotatedManifestsAreHooksOfTheReleaseAndNotAmongItsObjects() {
    ReleaseFile f = ReleaseFiles.manifestText(RENDERED, "rendered", new Overrides("shop", "shop"));

    assertThat(f.toSpec().resources())
        .extracting(DesiredResource::ref)
        .containsExactly(ResourceRef.parse("ConfigMap/shop/settings"));
    // in apply order (a Pod and a Job share a rank; then by key)
    assertThat(f.payloads().hooks())
        .extracting(Hook::ref, Hook::phases, Hook::weight, Hook::deletePolicies, Hook::timeout)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ResourceRef.parse("Pod/shop/smoke"),
                List.of(HookPhase.TEST),
                0,
                List.of(),
                Duration.ofSeconds(90)),
            org.assertj.core.groups.Tuple.tuple(
                ResourceRef.parse("batch/Job/shop/migrate"),
                List.of(HookPhase.PRE_INSTALL, HookPhase.PRE_UPGRADE),
                -5,
                List.of(HookDeletePolicy.BEFORE_HOOK_CREATION, HookDeletePolicy.HOOK_SUCCEEDED),
                null));
  }

  @Test
  void anUnknownPhaseIsRefusedNamingTheObjectTheAnnotationAndTheValue() {
    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.manifestText(
                    RENDERED.replace("pre-install,pre-upgrade", "pre-install,crd-install"),
                    "rendered",
                    new Overrides("shop", "shop")));

    assertThat(e.problems())
        .containsExactly(
            "batch/Job/shop/migrate: annotation helm.sh/hook must list, comma-separated, some of"
                + " pre-install, post-install, pre-upgrade, post-upgrade, pre-rollback,"
                + " post-rollback, pre-delete, post-delete, test: 'crd-install' is none of them");
  }

  @Test
  void aWeightThatIsNoIntegerIsRefused() {
    InvalidReleaseFileException e =
        catchThrowableOfType(
            InvalidReleaseFileException.class,
            () ->
                ReleaseFiles.manifestText(
                    RENDERED.replace("\"-5\"", "\"soon\""),
                    "rendered",
                    new Overrides("shop", "shop")));

    assertThat(e.problems())
        .containsExactly(
            "batch/Job/shop/migrate: annotation helm.sh/hook-weight must be an integer: 'soon'");
  }
}
