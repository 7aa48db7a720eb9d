package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class ReleaseRecordsIT {

  /** Three Secrets of 700 KB of random bytes: their record is over 2 MB even compressed. */
  private static Payloads large(String ns, long seed) {
    Random random = new Random(seed);
    Payloads.Builder b = Payloads.builder();
    for (int i = 0; i < 3; i++) {
      byte[] bytes = new byte[700_000];
      random.nextBytes(bytes);
      SortedMap<String, SecretValue> data =
          new TreeMap<>(Map.of("blob", SecretValue.ofBytes(bytes)));
      b.secret(new SecretSpec(ns, "blob-" + i, "Opaque", data, new TreeMap<>(), new TreeMap<>()));
    }
    return b.build();
  }

  @Test
  void aReleaseWhosePayloadsExceedOneMebibyteRoundTripsThroughChunkedRecordSecrets(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads payloads = large(ns, 1);

    controller.cast(ReleaseSpec.of(ns, "big", payloads), payloads);

    V1Secret head = readSecret(cluster, ns, "capstan.release.v1.big.v1");
    assertThat(head.getType()).isEqualTo("capstan.dev/release.v1");
    assertThat(head.getMetadata().getLabels())
        .containsEntry("owner", "capstan")
        .containsEntry("name", "big")
        .containsEntry("status", "deployed")
        .containsEntry("version", "1");
    int chunks =
        Integer.parseInt(head.getMetadata().getAnnotations().get("capstan.dev/record-chunks"));
    assertThat(chunks).isGreaterThanOrEqualTo(3);
    assertThat(Integer.parseInt(head.getMetadata().getAnnotations().get("capstan.dev/record-size")))
        .isGreaterThan(2_000_000);
    assertThat(head.getData()).isNullOrEmpty();
    assertThat(chunkNames(cluster, ns)).hasSize(chunks);

    Release read = controller.get(ns, "big").orElseThrow();
    assertThat(read.payloads()).isEqualTo(payloads);
    assertThat(read.status()).isEqualTo(ReleaseStatus.DEPLOYED);

    // Revision 2 is recorded; revision 1 is left as stored, and read superseded.
    Payloads changed = large(ns, 2);
    controller.cast(ReleaseSpec.of(ns, "big", changed), changed);

    assertThat(controller.history(ns, "big"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(controller.get(ns, "big").orElseThrow().payloads()).isEqualTo(changed);
    assertThat(controller.history(ns, "big").get(1).payloads()).isEqualTo(payloads);
    int chunks2 =
        Integer.parseInt(
            readSecret(cluster, ns, "capstan.release.v1.big.v2")
                .getMetadata()
                .getAnnotations()
                .get("capstan.dev/record-chunks"));
    assertThat(chunkNames(cluster, ns)).hasSize(chunks + chunks2);
    // A chunked revision rewritten (as earlier builds' housekeeping rewrote it superseded): its old
    // chunks are replaced by the new content's, and nothing is left behind.
    StoredRelease first = cluster.store.records(ns, "big").get(1);
    cluster.store.updateRecord(
        first.release().withStatus(ReleaseStatus.SUPERSEDED, Instant.now()), first.version());
    assertThat(cluster.store.records(ns, "big").get(1).release().payloads()).isEqualTo(payloads);
    assertThat(chunkNames(cluster, ns)).hasSize(chunks + chunks2); // nothing left behind
    assertThat(cluster.store.latestRecords(ns))
        .extracting(r -> r.release().name() + "#" + r.release().revision())
        .containsExactly("big#2");

    controller.uninstall(ns, "big", UninstallOptions.defaults().withPurge(true));

    assertThat(cluster.recordSecrets(ns)).isEmpty();
  }

  @Test
  void aDamagedOrMissingChunkFailsVerificationOnRead(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    KubernetesStore store = new KubernetesStore(cluster.kube, 1000);
    Release release = release(ns, "small", 1, ReleaseStatus.DEPLOYED, Payloads.of(config(ns, 40)));
    store.createRecord(release);
    List<String> chunks = chunkNames(cluster, ns);
    assertThat(chunks).hasSizeGreaterThan(1);
    assertThat(store.latestRecord(ns, "small").orElseThrow().release()).isEqualTo(release);

    String chunk = chunks.get(0);
    PatchUtils.patch(
        V1Secret.class,
        () ->
            cluster
                .core
                .patchNamespacedSecret(chunk, ns, new V1Patch("{\"data\":{\"chunk\":\"AAAA\"}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());

    RecordFormatException damaged =
        catchThrowableOfType(RecordFormatException.class, () -> store.latestRecord(ns, "small"));
    assertThat(damaged)
        .hasMessageStartingWith(
            "release record Secret capstan.release.v1.small.v1 fails verification");

    cluster.core.deleteNamespacedSecret(chunk, ns).execute();

    RecordFormatException missing =
        catchThrowableOfType(RecordFormatException.class, () -> store.records(ns, "small"));
    assertThat(missing)
        .hasMessage(
            "release record Secret capstan.release.v1.small.v1 is missing chunk 1 of "
                + chunks.size()
                + " ("
                + chunk
                + ")");
  }

  /**
   * A namespace cloned or restored under another name (a Velero namespace mapping, a copy by hand)
   * carries the release's record Secrets and stamped objects. The copied record names the original
   * release, so a cast or an uninstall of the same name in the copy would take the original's
   * objects for its own and prune or delete them: the record is refused instead, and nothing of the
   * original is touched.
   */
  @Test
  void aRecordCopiedFromAnotherNamespaceIsRefusedAndTheOriginalIsLeftAlone(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String copy = ns + "-copy";
    ReleaseController releases = cluster.controller().build();
    Payloads original = Payloads.of(config(ns, 2));
    releases.cast(ReleaseSpec.of(ns, "web", original), original);
    cluster
        .core
        .createNamespace(
            new io.kubernetes.client.openapi.models.V1Namespace()
                .metadata(new io.kubernetes.client.openapi.models.V1ObjectMeta().name(copy)))
        .execute();
    try {
      for (V1Secret s :
          cluster
              .core
              .listNamespacedSecret(ns)
              .labelSelector("owner=capstan,name=web")
              .execute()
              .getItems()) {
        cluster
            .core
            .createNamespacedSecret(
                copy,
                new V1Secret()
                    .metadata(
                        new io.kubernetes.client.openapi.models.V1ObjectMeta()
                            .name(s.getMetadata().getName())
                            .labels(s.getMetadata().getLabels())
                            .annotations(s.getMetadata().getAnnotations()))
                    .type(s.getType())
                    .data(s.getData()))
            .execute();
      }
      String refused =
          "release record Secret "
              + copy
              + "/capstan.release.v1.web.v1 records release "
              + ns
              + "/web, not "
              + copy
              + "/web: a record copied from another namespace (a restore or a clone) or written"
              + " by hand is not read, since this release would take that one's objects for its"
              + " own; the records of "
              + copy
              + "/web are its Secrets labelled owner=capstan,name=web";

      assertThat(
              catchThrowableOfType(
                  ReleaseException.class,
                  () -> new KubernetesStore(cluster.kube).latestRecord(copy, "web")))
          .hasMessage(refused);
      Payloads other = Payloads.of(config(copy, 1));
      assertThat(
              catchThrowableOfType(
                  ReleaseException.class,
                  () -> releases.cast(ReleaseSpec.of(copy, "web", other), other)))
          .hasMessage(refused);
      assertThat(
              catchThrowableOfType(
                  ReleaseException.class,
                  () -> releases.uninstall(copy, "web", UninstallOptions.defaults())))
          .hasMessage(refused);

      String cfg = config(ns, 2).name();
      assertThat(cluster.core.readNamespacedConfigMap(cfg, ns).execute().getData())
          .as("the original's object, untouched")
          .isEqualTo(config(ns, 2).data());
      assertThat(cluster.store.latestRecord(ns, "web").orElseThrow().release().status())
          .isEqualTo(ReleaseStatus.DEPLOYED);
    } finally {
      // the copies first: a namespace's deletion takes its Secrets later, and a test listing every
      // namespace's records after this one would meet them
      cluster
          .core
          .deleteCollectionNamespacedSecret(copy)
          .labelSelector("owner=capstan,name=web")
          .execute();
      cluster.core.deleteNamespace(copy).execute();
    }
  }

  /**
   * A read lists the record Secrets' metadata only and fetches the one record it decodes: the
   * newest by a GET of its head, an older one from a LIST of every revision (once for all of them);
   * a record whose Secrets the store wrote or decoded since their last write is not fetched at all,
   * and one written since by another store is fetched again.
   */
  @Test
  void aReadFetchesOnlyTheRecordItDecodesAndNoneItKnowsUnchanged(
      ControlPlane plane, TestNamespace tns) {
    Cluster writer = new Cluster(plane);
    String ns = tns.name();
    writer.store.createRecord(
        release(ns, "app", 1, ReleaseStatus.DEPLOYED, Payloads.of(config(ns, 4))));
    writer.store.createRecord(
        release(ns, "app", 2, ReleaseStatus.DEPLOYED, Payloads.of(config(ns, 8))));
    Release third = release(ns, "app", 3, ReleaseStatus.DEPLOYED, Payloads.of(config(ns, 16)));
    StoredRelease written = writer.store.createRecord(third);
    Cluster reader = new Cluster(plane);
    RequestCounter requests = reader.kube.requests();

    assertThat(reader.store.latestRecord(ns, "app")).contains(written);
    assertThat(requests.log())
        .containsExactly("LIST secrets " + ns, "GET secrets " + ns + "/capstan.release.v1.app.v3");

    requests.reset();
    List<RecordEntry> entries = reader.store.recordEntries(ns, "app");
    assertThat(entries).extracting(RecordEntry::revision).containsExactly(3, 2, 1);
    assertThat(entries.get(0).stored()).isEqualTo(written);
    assertThat(requests.log()).containsExactly("LIST secrets " + ns); // decoded, unchanged since

    requests.reset();
    assertThat(entries.get(1).stored().release().revision()).isEqualTo(2);
    assertThat(entries.get(2).stored().release().revision()).isEqualTo(1);
    assertThat(requests.log()).containsExactly("LIST secrets " + ns); // every revision, once

    // the store that wrote a record knows it too
    writer.kube.requests().reset();
    assertThat(writer.store.latestRecord(ns, "app")).contains(written);
    assertThat(writer.kube.requests().log()).containsExactly("LIST secrets " + ns);

    // written since by another store: fetched again, and read as it is now
    StoredRelease failed =
        writer.store.updateRecord(
            third.withStatus(ReleaseStatus.FAILED, Instant.parse("2030-01-02T00:00:00Z")),
            written.version());
    requests.reset();
    assertThat(reader.store.latestRecord(ns, "app")).contains(failed);
    assertThat(requests.log())
        .containsExactly("LIST secrets " + ns, "GET secrets " + ns + "/capstan.release.v1.app.v3");
  }

  /**
   * Record entries come from one LIST, their revisions and statuses from the heads' labels, and
   * decode a record only when it is asked for: a damaged old revision does not keep the newest from
   * being read (a cast decodes no other), and fails verification when it is asked for itself.
   */
  @Test
  void recordEntriesDecodeOnlyTheRecordsAskedFor(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    KubernetesStore store = new KubernetesStore(cluster.kube);
    store.createRecord(release(ns, "app", 1, ReleaseStatus.SUPERSEDED, Payloads.of(config(ns, 4))));
    Release latest = release(ns, "app", 2, ReleaseStatus.DEPLOYED, Payloads.of(config(ns, 8)));
    StoredRelease created = store.createRecord(latest);
    PatchUtils.patch(
        V1Secret.class,
        () ->
            cluster
                .core
                .patchNamespacedSecret(
                    "capstan.release.v1.app.v1",
                    ns,
                    new V1Patch("{\"data\":{\"release\":\"AAAA\"}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());

    List<RecordEntry> entries = store.recordEntries(ns, "app");

    assertThat(entries)
        .extracting(RecordEntry::revision, RecordEntry::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(entries.get(0).stored()).isEqualTo(created);
    assertThat(catchThrowableOfType(RecordFormatException.class, () -> entries.get(1).stored()))
        .hasMessageStartingWith(
            "release record Secret capstan.release.v1.app.v1 fails verification");
    // records decodes every revision, the damaged one too
    assertThat(catchThrowableOfType(RecordFormatException.class, () -> store.records(ns, "app")))
        .hasMessageStartingWith(
            "release record Secret capstan.release.v1.app.v1 fails verification");
  }

  @Test
  void recordsAreWrittenWithCompareAndSetOnTheHeadsResourceVersion(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    for (int chunkBytes : List.of(ReleaseRecords.CHUNK_BYTES, 1000)) {
      KubernetesStore store = new KubernetesStore(cluster.kube, chunkBytes);
      String name = "cas-" + chunkBytes;
      Release pending = release(ns, name, 1, ReleaseStatus.PENDING, Payloads.of(config(ns, 40)));
      StoredRelease created = store.createRecord(pending);

      StaleRecordException again =
          catchThrowableOfType(StaleRecordException.class, () -> store.createRecord(pending));
      assertThat(again).hasMessageEndingWith("the revision already exists");

      Release deployed =
          pending.withStatus(ReleaseStatus.DEPLOYED, Instant.parse("2030-01-01T00:00:01Z"));
      StoredRelease updated = store.updateRecord(deployed, created.version());
      assertThat(updated.version()).isNotEqualTo(created.version());

      StaleRecordException stale =
          catchThrowableOfType(
              StaleRecordException.class,
              () -> store.updateRecord(deployed.withFailure("late writer"), created.version()));
      assertThat(stale).hasMessageContaining("expected version " + created.version());

      StoredRelease read = store.latestRecord(ns, name).orElseThrow();
      assertThat(read.release()).isEqualTo(deployed);
      assertThat(read.version()).isEqualTo(updated.version());
      assertThat(
              readSecret(cluster, ns, "capstan.release.v1." + name + ".v1")
                  .getMetadata()
                  .getLabels())
          .containsEntry("status", "deployed");

      store.deleteRecord(ns, name, 1);
      assertThat(store.records(ns, name)).isEmpty();
    }
    assertThat(cluster.recordSecrets(ns)).isEmpty();
  }

  static ConfigMapSpec config(String ns, int keys) {
    Map<String, String> data = new TreeMap<>();
    Random random = new Random(keys);
    for (int i = 0; i < keys; i++) {
      data.put(
          "key-" + i, Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()));
    }
    return ConfigMapSpec.of(ns, "config", data);
  }

  static Release release(
      String ns, String name, int revision, ReleaseStatus status, Payloads payloads) {
    Instant at = Instant.parse("2030-01-01T00:00:00Z");
    return new Release(
        "id-" + name,
        ns,
        name,
        revision,
        status,
        List.of(),
        List.of(),
        List.of(),
        null,
        null,
        null,
        payloads,
        null,
        at,
        at,
        null);
  }

  private static V1Secret readSecret(Cluster cluster, String ns, String name) throws ApiException {
    return cluster.core.readNamespacedSecret(name, ns).execute();
  }

  private static List<String> chunkNames(Cluster cluster, String ns) throws ApiException {
    return cluster
        .core
        .listNamespacedSecret(ns)
        .labelSelector("capstan.dev/record=chunk")
        .execute()
        .getItems()
        .stream()
        .peek(s -> assertThat(s.getType()).isEqualTo("capstan.dev/release.v1.chunk"))
        .map(s -> s.getMetadata().getName())
        .sorted()
        .toList();
  }
}
