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
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
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

  /** What another writer does while the cast runs: at its health wait, or after a delete. */
  private final class Meanwhile extends ForwardingOrchestrator {
    @Nullable Runnable atHealthWait;
    @Nullable ResourceRef afterDeleting;
    @Nullable ResourceRef beforeDeleting;
    @Nullable ResourceRef beforeApplying;
    @Nullable Runnable then;

    Meanwhile() {
      super(h.cluster);
    }

    @Override
    public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
      Runnable r = atHealthWait;
      atHealthWait = null;
      if (r != null) {
        r.run();
      }
      return super.awaitReady(objects, wait);
    }

    @Override
    public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition p) {
      Runnable r = then;
      if (r != null && object.ref().equals(beforeApplying)) {
        then = null;
        r.run();
      }
      super.apply(object, stamp, p);
    }

    @Override
    public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition p) {
      Runnable r = then;
      if (r != null && ref.equals(beforeDeleting)) {
        then = null;
        r.run();
      }
      boolean deleted = super.delete(ref, owner, p);
      if (r != null && ref.equals(afterDeleting)) {
        then = null;
        r.run();
      }
      return deleted;
    }
  }

  private final Meanwhile meanwhile = new Meanwhile();
  private final List<ReleaseEvent> appEvents = new CopyOnWriteArrayList<>();
  private final ReleaseController app =
      ReleaseController.builder(meanwhile, h.cluster)
          .listener((ReleaseListener) appEvents::add)
          .build();

  private CastFailedException appFailing(Payloads p) {
    try {
      app.cast(spec("app", p).withAtomic(true), p);
    } catch (CastFailedException e) {
      return e;
    }
    throw new AssertionError("the cast should have failed");
  }

  private List<ReleaseEvent.Reverted> reverts() {
    return appEvents.stream()
        .filter(ReleaseEvent.Reverted.class::isInstance)
        .map(ReleaseEvent.Reverted.class::cast)
        .toList();
  }

  /** The object as release b wrote it, with its uid and version: to show it untouched. */
  private LiveObject live(ResourceRef ref) {
    return h.cluster.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).get(0);
  }

  @Test
  void aRevertLeavesAnObjectAnotherReleaseCreatedAfterTheCastUpdatedIt() {
    Payloads v1 = payloads(configMap("x", "1"));
    app.cast(spec("app", v1), v1);
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    // while the cast waits on health, x is deleted by hand and release b creates it
    AtomicReference<LiveObject> theirs = new AtomicReference<>();
    meanwhile.atHealthWait =
        () -> {
          h.cluster.deleteOutOfBand(cm("x"));
          h.cast("b", payloads(configMap("x", "b's")));
          theirs.set(live(cm("x")));
        };

    CastFailedException e = appFailing(payloads(configMap("x", "2"), web("web:bad"), creds("pw")));

    // b's object as b wrote it: content, stamp, uid and version
    assertThat(live(cm("x"))).isEqualTo(theirs.get());
    assertThat(h.cluster.object(cm("x"))).contains(obj(configMap("x", "b's")));
    assertThat(h.cluster.stamp(cm("x")).orElseThrow().owner().name()).isEqualTo("b");
    String reason =
        "not reverted: it was deleted and created again since this cast wrote it (it carries the"
            + " stamp of release default/b), and is left as it is now";
    assertThat(reverts())
        .containsExactly(
            new ReleaseEvent.Reverted("default/app", WEB_SERVICE, true, null),
            new ReleaseEvent.Reverted("default/app", WEB, true, null),
            new ReleaseEvent.Reverted("default/app", CREDS, true, null),
            new ReleaseEvent.Reverted("default/app", cm("x"), false, reason));
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.INCOMPLETE);
    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: apps/Deployment/default/web is not ready: CrashLoopBackOff; atomic"
                + " rollback incomplete: ConfigMap/default/x: "
                + reason);
    assertThat(h.cluster.objects()).containsExactly(cm("x"));
  }

  @Test
  void aRevertRefusedBecauseTheObjectMovedIsWrittenAgainWhileItIsStillTheOneTheCastWrote() {
    Payloads v1 = payloads(configMap("x", "1"));
    app.cast(spec("app", v1), v1);
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    // as the revert writes x back, another writer moves it (same uid, content and stamp)
    meanwhile.atHealthWait =
        () -> {
          meanwhile.beforeApplying = cm("x");
          meanwhile.then = () -> h.cluster.edit(cm("x"), m -> m);
        };
    h.cluster.clearOperations();

    CastFailedException e = appFailing(payloads(configMap("x", "2"), web("web:bad"), creds("pw")));

    assertThat(h.cluster.operations())
        .containsSubsequence("fenced:apply:ConfigMap/default/x", "apply:ConfigMap/default/x");
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.COMPLETE);
    assertThat(reverts()).allMatch(ReleaseEvent.Reverted::ok).hasSize(4);
    assertThat(h.cluster.object(cm("x"))).contains(obj(configMap("x", "1")));
    assertThat(h.cluster.stamp(cm("x")).orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void aRevertLeavesAnObjectAnotherReleaseCreatedAfterTheCastPrunedIt() {
    ResourceRef robot = ResourceRef.of(Kind.SERVICE_ACCOUNT, NS, "robot");
    Payloads v1 =
        payloads(
            configMap("keep", "1"),
            configMap("x", "1"),
            yaml("{apiVersion: v1, kind: ServiceAccount, metadata: {name: robot}}"));
    app.cast(spec("app", v1), v1);
    // x (rank 31) is pruned before the service account (rank 20), whose delete fails
    h.cluster.faults().failOn(Operation.DELETE, robot.key());
    AtomicReference<LiveObject> theirs = new AtomicReference<>();
    meanwhile.afterDeleting = cm("x");
    meanwhile.then =
        () -> {
          h.cast("b", payloads(configMap("x", "b's")));
          theirs.set(live(cm("x")));
        };

    CastFailedException e = appFailing(payloads(configMap("keep", "1")));

    assertThat(live(cm("x"))).isEqualTo(theirs.get());
    assertThat(h.cluster.object(cm("x"))).contains(obj(configMap("x", "b's")));
    assertThat(h.cluster.stamp(cm("x")).orElseThrow().owner().name()).isEqualTo("b");
    String reason =
        "not reverted: it was created again since this cast deleted it (it carries the stamp of"
            + " release default/b), and is left as it is now";
    assertThat(reverts())
        .containsExactly(
            new ReleaseEvent.Reverted("default/app", robot, true, null),
            new ReleaseEvent.Reverted("default/app", cm("x"), false, reason));
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.INCOMPLETE);
    assertThat(e.result().release().failure())
        .isEqualTo(
            "delete ServiceAccount/default/robot failed: injected fault on"
                + " ServiceAccount/default/robot; atomic rollback incomplete: ConfigMap/default/x: "
                + reason);
    assertThat(h.cluster.stamp(robot).orElseThrow().revision()).isEqualTo(1);
  }

  private static Manifest api(String app, String image) {
    return yaml(
        ("{apiVersion: apps/v1, kind: Deployment, metadata: {name: api, annotations:"
                + " {capstan.dev/replace-on-immutable: \"true\"}}, spec: {replicas: 1, selector:"
                + " {matchLabels: {app: APP}}, template: {metadata: {labels: {app: APP}}, spec:"
                + " {containers: [{name: api, image: IMAGE}]}}}}")
            .replace("APP", app)
            .replace("IMAGE", image));
  }

  @Test
  void aReplaceWhoseDeleteIsFencedByAnotherReleasesObjectRevertsNothingOverIt() {
    ResourceRef api = ResourceRef.of(Kind.DEPLOYMENT, NS, "api");
    Payloads v1 = payloads(api("api", "acme/api:1"));
    app.cast(spec("app", v1), v1);
    Release before = app.get(NS, "app").orElseThrow();
    // between the plan and the replace's delete, api is deleted by hand and release b creates it
    // (with the selector the cast's pre-image has, so writing that back would not be refused)
    AtomicReference<LiveObject> theirs = new AtomicReference<>();
    meanwhile.beforeDeleting = api;
    meanwhile.then =
        () -> {
          h.cluster.deleteOutOfBand(api);
          h.cast("b", payloads(api("api", "acme/api:b")));
          theirs.set(live(api));
        };

    CastFailedException e = appFailing(payloads(api("api-v2", "acme/api:2")));

    assertThat(e.result().plan().changes(Action.REPLACE)).hasSize(1);
    assertThat(live(api)).isEqualTo(theirs.get());
    assertThat(h.cluster.object(api).orElseThrow().get("spec.template.spec.containers"))
        .isEqualTo(List.of(Map.of("name", "api", "image", "acme/api:b")));
    assertThat(h.cluster.stamp(api).orElseThrow().owner().name()).isEqualTo("b");
    // nothing was written to it: nothing to revert, and the failed record does not claim it anew
    assertThat(reverts()).isEmpty();
    assertThat(e.result().revert()).isEqualTo(CastResult.Revert.COMPLETE);
    assertThat(e.result().release().failure())
        .isEqualTo(
            "apps/Deployment/default/api changed since the plan (uid uid-1, resourceVersion 1): it"
                + " was deleted and created again, it carries the stamp of release default/b; not"
                + " deleted (atomic: this revision's changes were rolled back)");
    assertThat(e.result().release().owns()).isEqualTo(before.owns());
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
