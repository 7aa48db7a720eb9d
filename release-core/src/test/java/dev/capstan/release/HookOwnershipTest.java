package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which live object a hook's {@code before-hook-creation} may delete: only one marked as a hook
 * object of its own release (name and id), never one that carries a release's ownership stamp,
 * whatever its annotations say; a mark from before marks carried an id is read by its name.
 */
class HookOwnershipTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private final ResourceRef shared = ResourceRef.parse("ConfigMap/" + NS + "/shared");

  private static Manifest hook(String owner) {
    return yaml(
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: shared
          annotations: {helm.sh/hook: pre-install}
        data: {owner: %s}
        """
            .formatted(owner));
  }

  @Test
  void aHookNeverDeletesAnObjectAnotherReleaseOwnsEvenWhenItCarriesTheHookMark() {
    // release db owns ConfigMap shared; its manifest carries web's hook mark (copied from a live
    // object with kubectl get -o yaml, or forged)
    Payloads db =
        Payloads.of(
            yaml(
                """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: shared
                  annotations: {capstan.dev/hook-of: default/web, capstan.dev/hook-of-id: id-2}
                data: {owner: db}
                """));
    h.cast("db", db);
    int writes = h.cluster.writes().size();

    CastFailedException e =
        catchThrowableOfType(
            CastFailedException.class, () -> h.cast("web", Payloads.of(hook("web-hook"))));

    assertThat(e)
        .hasMessageContaining(
            "pre-install hook ConfigMap/default/shared failed: ConfigMap/default/shared carries"
                + " the ownership stamp of release default/db (id id-1): a hook never deletes a"
                + " release's object; not deleted: rename the hook");
    assertThat(h.cluster.writes()).hasSize(writes);
    assertThat(h.cluster.stamp(shared).orElseThrow().owner().name()).isEqualTo("db");
    assertThat(h.cluster.object(shared).orElseThrow().content().get("data"))
        .isEqualTo(java.util.Map.of("owner", "db"));
  }

  @Test
  void aHookObjectOfAReleaseOfTheSameNameInAnotherStoreIsNotDeleted() {
    h.cast("web", Payloads.of(hook("first")));
    assertThat(h.cluster.object(shared).orElseThrow().annotations())
        .containsEntry("capstan.dev/hook-of", "default/web")
        .containsEntry("capstan.dev/hook-of-id", "id-1");
    ReleaseController elsewhere =
        ReleaseController.builder(h.cluster, InMemoryCluster.create())
            .clock(h.clock)
            .holder("elsewhere")
            .leaseDuration(Duration.ofMinutes(2))
            .ids(() -> "other-id")
            .build();
    Payloads second = Payloads.of(hook("second"));

    CastFailedException e =
        catchThrowableOfType(
            CastFailedException.class, () -> elsewhere.cast(spec("web", second), second));

    assertThat(e)
        .hasMessageContaining(
            "pre-install hook ConfigMap/default/shared failed: ConfigMap/default/shared exists and"
                + " is not a hook object of release default/web (no annotation"
                + " capstan.dev/hook-of: default/web with capstan.dev/hook-of-id: other-id); not"
                + " deleted");
    assertThat(h.cluster.object(shared).orElseThrow().content().get("data"))
        .isEqualTo(java.util.Map.of("owner", "first"));
  }

  @Test
  void aHookObjectMarkedBeforeMarksCarriedAnIdIsStillReplacedByItsRelease() {
    h.cluster.put(
        yaml(
            """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: shared
              annotations: {helm.sh/hook: pre-install, capstan.dev/hook-of: default/web}
            data: {owner: old}
            """));

    h.cast("web", Payloads.of(hook("new")));

    assertThat(h.cluster.operations())
        .contains("delete:ConfigMap/default/shared", "apply:ConfigMap/default/shared");
    assertThat(h.cluster.object(shared).orElseThrow().annotations())
        .containsEntry("capstan.dev/hook-of-id", "id-1");
    assertThat(h.cluster.object(shared).orElseThrow().content().get("data"))
        .isEqualTo(java.util.Map.of("owner", "new"));
  }
}
