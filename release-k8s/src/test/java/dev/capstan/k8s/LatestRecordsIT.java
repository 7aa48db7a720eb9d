package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code release list} and {@code get} read only what they show: a list is one LIST that leaves
 * superseded revisions out by label selector ({@code status!=superseded}) and decodes the newest
 * head of each release; a read of the latest decodes one revision. A revision is stored superseded
 * only after a newer one exists (by older versions, or a Helm import: the engine now leaves it as
 * stored), so no crash hides a release; heads without a status label (or with any other status) are
 * still listed.
 */
@ControlPlaneTest
class LatestRecordsIT {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** A store on the control plane, its clients and the test's namespace. */
  private static final class Fixture {
    final KubeClients clients;
    final KubernetesStore store;
    final CoreV1Api core;
    final String ns;

    Fixture(ControlPlane plane, TestNamespace namespace) {
      clients = KubeClients.fromKubeconfig(plane.kubeconfig());
      store = new KubernetesStore(clients);
      core = new CoreV1Api(plane.client());
      ns = namespace.name();
    }

    Release release(String name, int revision, ReleaseStatus status) {
      return new Release(
          "id-" + name,
          ns,
          name,
          revision,
          status,
          List.of(),
          List.of(),
          List.of(),
          "it",
          "1.0." + revision,
          null,
          Payloads.of(ConfigMapSpec.of(ns, name + "-settings", Map.of("revision", "" + revision))),
          null,
          T0.plusSeconds(revision),
          T0.plusSeconds(revision),
          null);
    }

    /** A merge PATCH of a record head, as another writer (or an older Capstan) might make. */
    void patch(String name, int revision, String json) throws ApiException {
      PatchUtils.patch(
          V1Secret.class,
          () ->
              core.patchNamespacedSecret(
                      RecordSecrets.headName(name, revision), ns, new V1Patch(json))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          core.getApiClient());
    }

    /** Replaces a head's record with bytes no codec reads: decoding it would fail. */
    void corrupt(String name, int revision) throws ApiException {
      String garbage =
          Base64.getEncoder().encodeToString("not a record".getBytes(StandardCharsets.UTF_8));
      patch(
          name,
          revision,
          "{\"metadata\":{\"annotations\":{\"capstan.dev/record-sha256\":null}},"
              + "\"data\":{\"release\":\""
              + garbage
              + "\"}}");
    }

    List<String> listed() {
      return store.latestRecords(ns).stream()
          .map(s -> s.release().name() + "#" + s.release().revision())
          .toList();
    }
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "app-%02d", i);
  }

  @Test
  void fiftyReleasesOfFiveRevisionsAreListedWithOneListAndReadWithOne(
      ControlPlane plane, TestNamespace namespace) {
    Fixture f = new Fixture(plane, namespace);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      for (int r = 1; r <= 5; r++) {
        f.store.createRecord(
            f.release(name(i), r, r == 5 ? ReleaseStatus.DEPLOYED : ReleaseStatus.SUPERSEDED));
      }
      expected.add(name(i) + "#5");
    }
    f.clients.requests().reset();

    List<StoredRelease> list = f.store.latestRecords(f.ns);

    assertThat(f.clients.requests().counts()).containsExactly(entry("LIST secrets", 1L));
    assertThat(list)
        .extracting(s -> s.release().name() + "#" + s.release().revision())
        .containsExactlyElementsOf(expected);
    assertThat(list.get(7).release()).isEqualTo(f.release(name(7), 5, ReleaseStatus.DEPLOYED));

    f.clients.requests().reset();
    assertThat(f.store.latestRecord(f.ns, name(7)).orElseThrow().release())
        .isEqualTo(f.release(name(7), 5, ReleaseStatus.DEPLOYED));
    assertThat(f.clients.requests().counts()).containsExactly(entry("LIST secrets", 1L));
  }

  @Test
  void fiveHundredReleasesAreStillOneList(ControlPlane plane, TestNamespace namespace) {
    Fixture f = new Fixture(plane, namespace);
    for (int i = 0; i < 500; i++) {
      f.store.createRecord(
          f.release(String.format(Locale.ROOT, "app-%03d", i), 1, ReleaseStatus.DEPLOYED));
    }
    f.clients.requests().reset();

    List<StoredRelease> list = f.store.latestRecords(f.ns);

    // a page of exactly 500 would come with a continue token and a second, empty LIST
    assertThat(f.clients.requests().counts()).containsExactly(entry("LIST secrets", 1L));
    assertThat(list).hasSize(500);
  }

  @Test
  void onlyTheNewestRevisionIsDecodedByAListAndByARead(ControlPlane plane, TestNamespace namespace)
      throws ApiException {
    Fixture f = new Fixture(plane, namespace);
    f.store.createRecord(f.release("web", 1, ReleaseStatus.SUPERSEDED));
    f.store.createRecord(f.release("web", 2, ReleaseStatus.FAILED)); // listed, not superseded
    f.store.createRecord(f.release("web", 3, ReleaseStatus.DEPLOYED));
    f.corrupt("web", 1);
    f.corrupt("web", 2);

    assertThat(f.listed()).containsExactly("web#3");
    assertThat(f.store.latestRecord(f.ns, "web").orElseThrow().release())
        .isEqualTo(f.release("web", 3, ReleaseStatus.DEPLOYED));
  }

  @Test
  void aNewRevisionIsListedAtEveryStepOfACast(ControlPlane plane, TestNamespace namespace) {
    Fixture f = new Fixture(plane, namespace);
    StoredRelease first = f.store.createRecord(f.release("web", 1, ReleaseStatus.PENDING));
    assertThat(f.listed()).containsExactly("web#1");
    f.store.updateRecord(f.release("web", 1, ReleaseStatus.DEPLOYED), first.version());
    assertThat(f.listed()).containsExactly("web#1");

    // revision 2 is recorded pending; a crash here leaves revision 1 deployed beside it
    StoredRelease second = f.store.createRecord(f.release("web", 2, ReleaseStatus.PENDING));
    assertThat(f.listed()).containsExactly("web#2");
    f.store.updateRecord(f.release("web", 2, ReleaseStatus.DEPLOYED), second.version());
    assertThat(f.listed()).containsExactly("web#2");

    // a record stored superseded (older versions' housekeeping) exists only once revision 2 does
    StoredRelease old = f.store.records(f.ns, "web").get(1);
    f.store.updateRecord(f.release("web", 1, ReleaseStatus.SUPERSEDED), old.version());
    assertThat(f.listed()).containsExactly("web#2");

    f.store.deleteRecord(f.ns, "web", 1);
    assertThat(f.listed()).containsExactly("web#2");
    f.store.deleteRecord(f.ns, "web", 2);
    assertThat(f.listed()).isEmpty();
  }

  @Test
  void headsWithoutAStatusLabelAreListed(ControlPlane plane, TestNamespace namespace)
      throws ApiException {
    Fixture f = new Fixture(plane, namespace);
    f.store.createRecord(f.release("legacy", 1, ReleaseStatus.SUPERSEDED));
    f.store.createRecord(f.release("legacy", 2, ReleaseStatus.DEPLOYED));
    f.patch("legacy", 1, "{\"metadata\":{\"labels\":{\"status\":null}}}");
    f.patch("legacy", 2, "{\"metadata\":{\"labels\":{\"status\":null}}}");

    assertThat(f.listed()).containsExactly("legacy#2");
  }
}
