package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.PatchUtils;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fenced writes on the real API server: two releases racing for one new object, and an update
 * planned on a view that went stale before the write.
 */
@ControlPlaneTest
class FencedWriteIT {
  private static final int ROUNDS = 10;

  @Test
  void twoReleasesRacingForOneNewConfigMapLeaveItToExactlyOneOfThemInEveryRound(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    for (int round = 0; round < ROUNDS; round++) {
      String name = "shared-" + round;
      // Both casts plan (the object is absent) and save their intent before either writes.
      CyclicBarrier planned = new CyclicBarrier(2);
      Cluster a = new Cluster(plane);
      Cluster b = new Cluster(plane);
      ReleaseController ca = racer(a, "a-" + round, planned);
      ReleaseController cb = racer(b, "b-" + round, planned);
      Payloads pa = Payloads.of(ConfigMapSpec.of(ns, name, Map.of("from", "a")));
      Payloads pb = Payloads.of(ConfigMapSpec.of(ns, name, Map.of("from", "b")));

      CompletableFuture<Object> ra = race(ca, ReleaseSpec.of(ns, "a-" + round, pa), pa);
      CompletableFuture<Object> rb = race(cb, ReleaseSpec.of(ns, "b-" + round, pb), pb);
      Object outcomeA = ra.get(120, TimeUnit.SECONDS);
      Object outcomeB = rb.get(120, TimeUnit.SECONDS);

      boolean aWon = outcomeA instanceof CastResult;
      assertThat(outcomeB instanceof CastResult)
          .as("round %d: exactly one release wins", round)
          .isNotEqualTo(aWon);
      String winner = aWon ? "a-" + round : "b-" + round;
      String loser = aWon ? "b-" + round : "a-" + round;
      Cluster loserCluster = aWon ? b : a;
      CastFailedException failed = (CastFailedException) (aWon ? outcomeB : outcomeA);
      ResourceRef shared = ResourceRef.of(Kind.CONFIG_MAP, ns, name);

      Release won = a.store.latestRecord(ns, winner).orElseThrow().release();
      assertThat(won.status()).isEqualTo(ReleaseStatus.DEPLOYED);
      assertThat(won.owns()).extracting(OwnedResource::ref).containsExactly(shared);
      Release lost = a.store.latestRecord(ns, loser).orElseThrow().release();
      assertThat(lost.status()).isEqualTo(ReleaseStatus.FAILED);
      assertThat(lost.owns()).isEmpty();
      String reason =
          "ConfigMap/"
              + ns
              + "/"
              + name
              + " was created by release "
              + ns
              + "/"
              + winner
              + " since the plan; not taken";
      assertThat(lost.failure()).isEqualTo(reason);
      assertThat(failed.result().release()).isEqualTo(lost);

      V1ConfigMap live = a.core.readNamespacedConfigMap(name, ns).execute();
      assertThat(live.getMetadata().getAnnotations())
          .containsEntry("capstan.dev/release", ns + "/" + winner)
          .containsEntry("capstan.dev/release-id", won.id());
      assertThat(live.getData()).containsExactly(Map.entry("from", aWon ? "a" : "b"));
      // The loser's only request on the object: the refused create (a server-side apply).
      assertThat(ReleaseLifecycleIT.objectWrites(loserCluster))
          .containsExactly("PATCH configmaps " + ns + "/" + name);
      // The winner's create left its fields in Capstan's apply entry.
      assertThat(a.managedFields("", "v1", "configmaps", ns, name))
          .extracting(V1ManagedFieldsEntry::getManager, V1ManagedFieldsEntry::getOperation)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("capstan", "Apply"));
    }
  }

  /**
   * The server's dry run of a write whose precondition no longer holds (the object appeared since a
   * create was planned, or changed since the observation) is the write being fenced, not the object
   * refused: the plan then says what happened, as the fence does (FencedWriteTest).
   */
  @Test
  void aDryRunWhosePreconditionNoLongerHoldsIsFencedAsTheWriteWouldBe(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ResourceRef ref = ResourceRef.of(Kind.CONFIG_MAP, ns, "appeared");
    Manifest desired = ConfigMapSpec.of(ns, "appeared", Map.of("k", "mine")).render().get(0);
    assertThat(cluster.orchestrator.verifyApply(desired, null, Precondition.absent())).isEmpty();

    V1ConfigMap created =
        cluster
            .core
            .createNamespacedConfigMap(
                ns,
                new V1ConfigMap()
                    .metadata(new V1ObjectMeta().name("appeared"))
                    .data(Map.of("k", "theirs")))
            .execute();

    PreconditionFailedException create =
        catchThrowableOfType(
            PreconditionFailedException.class,
            () -> cluster.orchestrator.verifyApply(desired, null, Precondition.absent()));
    assertThat(create.ref()).isEqualTo(ref);
    assertThat(create.status()).isEqualTo(409);
    assertThat(create.precondition()).isEqualTo(Precondition.absent());

    Precondition stale = Precondition.observed(created.getMetadata().getUid(), "1");
    PreconditionFailedException update =
        catchThrowableOfType(
            PreconditionFailedException.class,
            () -> cluster.orchestrator.verifyApply(desired, null, stale));
    assertThat(update.ref()).isEqualTo(ref);
    assertThat(update.precondition()).isEqualTo(stale);
    // a dry run: the object is as its creator left it
    assertThat(cluster.core.readNamespacedConfigMap("appeared", ns).execute().getData())
        .containsExactly(Map.entry("k", "theirs"));
  }

  private static ReleaseController racer(Cluster cluster, String name, CyclicBarrier planned) {
    return cluster
        .controllerPausingBeforeTheFirstWrite(() -> planned.await(60, TimeUnit.SECONDS))
        .holder("caster-" + name)
        .build();
  }

  private static CompletableFuture<Object> race(
      ReleaseController controller, ReleaseSpec spec, Payloads payloads) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return controller.cast(spec, payloads);
          } catch (CastFailedException e) {
            return e;
          }
        });
  }

  @Test
  void anUpdatePlannedOnAStaleViewIsFencedAndTheEditStays(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Payloads v1 = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    cluster.controller().build().cast(ReleaseSpec.of(ns, "app", v1), v1);
    LiveObject planned =
        cluster.orchestrator.observe(Kind.CONFIG_MAP, ns, Set.of("settings")).get(0);
    Payloads v2 = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "green")));
    ReleaseController controller =
        cluster
            .controllerPausingBeforeTheFirstWrite(
                () ->
                    cluster.applyConfigMapAs(
                        "kubectl-edit", ns, "settings", Map.of("color", "red"), true))
            .build();
    cluster.requests().reset();

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class, () -> controller.cast(ReleaseSpec.of(ns, "app", v2), v2));

    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().failure())
        .isEqualTo(
            "ConfigMap/"
                + ns
                + "/settings changed since the plan (uid "
                + planned.uid()
                + ", resourceVersion "
                + planned.resourceVersion()
                + "): it was modified, it carries the stamp of release "
                + ns
                + "/app; not updated");
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsExactly(Map.entry("color", "red"));
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactly("PATCH configmaps " + ns + "/settings"); // the refused apply
  }

  @Test
  void aPruneOfAnOwnedObjectEditedSinceThePlanIsRefusedLookedAtAgainAndDeleted(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Payloads v1 =
        Payloads.of(
            ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")),
            ConfigMapSpec.of(ns, "old", Map.of("k", "v")));
    cluster.controller().build().cast(ReleaseSpec.of(ns, "app", v1), v1);
    // v2 drops "old": the cast plans to prune it; a controller edits it before the delete, and
    // it is still the same object, still the release's
    Payloads v2 = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    ReleaseController controller =
        cluster
            .controllerPausingBeforeTheFirstWrite(
                () ->
                    cluster.applyConfigMapAs(
                        "kubectl-edit", ns, "old", Map.of("k", "edited"), true))
            .build();
    cluster.requests().reset();

    CastResult result = controller.cast(ReleaseSpec.of(ns, "app", v2), v2);

    assertThat(result.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.core.listNamespacedConfigMap(ns).execute().getItems())
        .extracting(c -> c.getMetadata().getName())
        .doesNotContain("old");
    // refused on the version it was planned at, then deleted on the look that found it the
    // release's still
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactly("DELETE configmaps " + ns + "/old", "DELETE configmaps " + ns + "/old");
  }

  @Test
  void aPruneAndAnUninstallPlannedOnAStaleViewOfAnObjectNoLongerTheReleasesAreFenced(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Payloads v1 =
        Payloads.of(
            ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")),
            ConfigMapSpec.of(ns, "old", Map.of("k", "v")));
    cluster.controller().build().cast(ReleaseSpec.of(ns, "app", v1), v1);
    LiveObject planned = cluster.orchestrator.observe(Kind.CONFIG_MAP, ns, Set.of("old")).get(0);
    // v2 drops "old": the cast plans to prune it; before the delete, someone stamps it as another
    // release's (ownership moved, not only the version)
    Payloads v2 = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    ReleaseController controller =
        cluster
            .controllerPausingBeforeTheFirstWrite(() -> restampAsOtherRelease(cluster, ns, "old"))
            .build();
    cluster.requests().reset();

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class, () -> controller.cast(ReleaseSpec.of(ns, "app", v2), v2));

    assertThat(failed.result().release().failure())
        .isEqualTo(
            "ConfigMap/"
                + ns
                + "/old changed since the plan (uid "
                + planned.uid()
                + ", resourceVersion "
                + planned.resourceVersion()
                + "): it was modified, it carries the stamp of release "
                + ns
                + "/other; not deleted");
    assertThat(
            cluster
                .core
                .readNamespacedConfigMap("old", ns)
                .execute()
                .getMetadata()
                .getAnnotations())
        .containsEntry(Stamps.RELEASE, ns + "/other");
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactly("DELETE configmaps " + ns + "/old"); // the refused delete

    // The delete answers without decoding the object; a missing object is "not there", not an
    // error, and a delete on the current view goes through.
    LiveObject now = cluster.orchestrator.observe(Kind.CONFIG_MAP, ns, Set.of("old")).get(0);
    ResourceRef old = now.ref();
    Release owner = controller.get(ns, "app").orElseThrow();
    Precondition observed =
        Precondition.observed(
            Objects.requireNonNull(now.uid()), Objects.requireNonNull(now.resourceVersion()));
    assertThat(cluster.orchestrator.delete(old, owner.identity(), observed)).isTrue();
    assertThat(cluster.core.listNamespacedConfigMap(ns).execute().getItems())
        .extracting(c -> c.getMetadata().getName())
        .doesNotContain("old");
    assertThat(cluster.orchestrator.delete(old, owner.identity(), observed)).isFalse();
  }

  /**
   * A JSON merge patch stamping an object as release {@code other}'s (field manager kubectl-edit).
   */
  private static void restampAsOtherRelease(Cluster cluster, String ns, String name) {
    String json =
        "{\"metadata\":{\"labels\":{\""
            + Stamps.LABEL_NAME
            + "\":\"other\",\""
            + Stamps.LABEL_ID
            + "\":\"id-9\"},\"annotations\":{\""
            + Stamps.RELEASE
            + "\":\""
            + ns
            + "/other\",\""
            + Stamps.RELEASE_ID
            + "\":\"id-9\"}}}";
    try {
      PatchUtils.patch(
          V1ConfigMap.class,
          () ->
              cluster
                  .core
                  .patchNamespacedConfigMap(name, ns, new V1Patch(json))
                  .fieldManager("kubectl-edit")
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          cluster.client());
    } catch (ApiException e) {
      throw new IllegalStateException(e);
    }
  }
}
