package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.WEB;
import static dev.capstan.release.Fixtures.WEB_SERVICE;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.result.CastResult;
import org.junit.jupiter.api.Test;

/** Atomic casts revert every executed change, newest first, from pre-images (rune's tests). */
class AtomicCastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static ResourceRef cm(String name) {
    return ResourceRef.of(Kind.CONFIG_MAP, NS, name);
  }

  private CastFailedException castFailing(Payloads p, boolean atomic) {
    try {
      h.controller.cast(spec("app", p).withAtomic(atomic), p);
    } catch (CastFailedException e) {
      return e;
    }
    throw new AssertionError("the cast should have failed");
  }

  @Test
  void applyFailureRevertsTheFailingChangeAndEverythingBeforeIt() {
    h.cluster.faults().failOn(Operation.APPLY, "apps/Deployment/default/web");

    CastFailedException e = castFailing(payloads(web("web:1"), creds("pw")), true);

    // the failed service apply is reverted too (it may have half-applied): it is absent, so the
    // delete finds nothing; then the secret created before it is deleted
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "delete:apps/Deployment/default/web",
            "delete:Secret/default/creds");
    assertThat(e.result().release().failure())
        .isEqualTo(
            "apply apps/Deployment/default/web failed: injected fault on apps/Deployment/default/web"
                + " (atomic: this revision's changes were rolled back)");
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.COMPLETE);
    assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(e.result().release().owns()).isEmpty();
    assertThat(h.cluster.objects()).isEmpty();
  }

  @Test
  void verifyFailureRevertsBothInReverseOrder() {
    h.cluster.neverReady("web:bad", "ImagePullBackOff: registry.invalid/web:bad not found");

    CastFailedException e = castFailing(payloads(web("web:bad"), creds("pw")), true);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify",
            "delete:Service/default/web",
            "delete:apps/Deployment/default/web",
            "delete:Secret/default/creds");
    assertThat(e.result().release().owns()).isEmpty();
    assertThat(e.getMessage()).contains("rolled back");
  }

  @Test
  void pruneFailureRevertsThePruneAndTheUpdateAndRestoresThePreviousOwnedSet() {
    h.cast("app", payloads(configMap("a", "1"), configMap("b", "1")));
    Release v1 = h.controller.get(NS, "app").orElseThrow();
    h.cluster.faults().failOn(Operation.DELETE, "ConfigMap/default/b");
    h.cluster.clearOperations();

    CastFailedException e = castFailing(payloads(configMap("a", "2")), true);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/a",
            "verify",
            "apply:ConfigMap/default/b",
            "apply:ConfigMap/default/a");
    assertThat(e.result().release().owns()).isEqualTo(v1.owns());
    assertThat(h.cluster.object(cm("a"))).contains(obj(configMap("a", "1")));
    assertThat(h.cluster.stamp(cm("a")).orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void failingRevertDoesNotStopTheOthersAndIsReported() {
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    h.cluster.faults().failOn(Operation.DELETE, "apps/Deployment/default/web");

    CastFailedException e = castFailing(payloads(web("web:bad"), creds("pw")), true);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify",
            "delete:Service/default/web",
            "delete:Secret/default/creds");
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.INCOMPLETE);
    assertThat(e.result().release().failure())
        .contains("verify failed: apps/Deployment/default/web is not ready: CrashLoopBackOff")
        .contains("atomic rollback incomplete")
        .contains("apps/Deployment/default/web: delete apps/Deployment/default/web failed");
    // what may still be live stays owned, so nothing is orphaned
    assertThat(e.result().release().owns())
        .extracting(OwnedResource::ref)
        .containsExactly(CREDS, WEB, WEB_SERVICE);
    assertThat(h.cluster.objects()).containsExactly(WEB);
  }

  @Test
  void nonAtomicFailureRevertsNothing() {
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");

    CastFailedException e = castFailing(payloads(web("web:bad"), creds("pw")), false);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify");
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.NOT_ATTEMPTED);
    assertThat(h.cluster.objects()).containsExactly(CREDS, WEB, WEB_SERVICE);
  }

  @Test
  void atomicUpdateFailureRestoresTheSecretsPreviousDataAndStamp() {
    h.cast("app", payloads(creds("v1")));
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");

    castFailing(payloads(creds("v2"), web("web:bad")), true);

    assertThat(h.cluster.object(CREDS)).contains(obj(creds("v1")));
    assertThat(h.cluster.stamp(CREDS).orElseThrow().revision()).isEqualTo(1);
    assertThat(h.cluster.objects()).containsExactly(CREDS);
  }

  @Test
  void nonAtomicUpdateFailureLeavesTheNewSecretInPlace() {
    h.cast("app", payloads(creds("v1")));
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");

    castFailing(payloads(creds("v2"), web("web:bad")), false);

    assertThat(h.cluster.object(CREDS)).contains(obj(creds("v2")));
    assertThat(h.cluster.stamp(CREDS).orElseThrow().revision()).isEqualTo(2);
  }

  @Test
  void atomicRevertOfAnAdoptionRestoresTheUnmanagedObject() {
    h.cluster.put(configMap("a", "theirs"));
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    Payloads p = payloads(configMap("a", "mine"), web("web:bad"), creds("pw"));

    assertThatThrownBy(() -> h.controller.cast(spec("app", p).withAtomic(true).withAdopt(true), p))
        .isInstanceOf(CastFailedException.class);

    assertThat(h.cluster.object(cm("a"))).contains(obj(configMap("a", "theirs")));
    assertThat(h.cluster.stamp(cm("a"))).isEmpty();
  }
}
