package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.capstan.common.ManualClock;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A cast reads every revision of its release under the lease but decodes only the records it uses
 * ({@code Store.recordEntries}): the latest, which it plans against. Every revision records the
 * whole release, so decoding the history cost a re-cast of a large bundle more than anything else;
 * a rollback decodes the revision it returns to as well, and no other.
 */
class RecordDecodingTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final CountingStore store = new CountingStore(cluster);
  private final ReleaseController controller =
      ReleaseController.builder(cluster, store)
          .clock(ManualClock.at(Instant.parse("2026-01-01T00:00:00Z")))
          .maxHistory(3)
          .build();

  /** Decodes counted by revision, and calls of {@code records}, which decodes every revision. */
  private static final class CountingStore extends ForwardingStore {
    final List<Integer> decoded = new CopyOnWriteArrayList<>();
    final AtomicInteger recordsCalls = new AtomicInteger();

    CountingStore(InMemoryCluster delegate) {
      super(delegate);
    }

    @Override
    public List<StoredRelease> records(String namespace, String name) {
      recordsCalls.incrementAndGet();
      return super.records(namespace, name);
    }

    @Override
    public List<RecordEntry> recordEntries(String namespace, String name) {
      return super.recordEntries(namespace, name).stream()
          .map(
              e ->
                  RecordEntry.lazy(
                      e.revision(),
                      e.status(),
                      () -> {
                        decoded.add(e.revision());
                        return e.stored();
                      }))
          .toList();
    }

    void reset() {
      decoded.clear();
      recordsCalls.set(0);
    }
  }

  private void cast(String value) {
    Payloads p = payloads(configMap("a", value));
    controller.cast(spec("app", p), p);
  }

  @Test
  void aReCastDecodesOnlyTheLatestRecordAndTrimsTheRestUndecoded() {
    for (int i = 1; i <= 4; i++) {
      cast(Integer.toString(i));
    }
    store.reset();

    cast("4");

    // revision 4: planned against, decoded once; 3 kept, 2 deleted, unread; 4 and 3 read superseded
    assertThat(store.decoded).containsExactly(4);
    assertThat(store.recordsCalls).hasValue(0);
    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(5, ReleaseStatus.DEPLOYED),
            tuple(4, ReleaseStatus.SUPERSEDED),
            tuple(3, ReleaseStatus.SUPERSEDED));
    assertThat(cluster.recordCount(NS, "app")).isEqualTo(3);
  }

  @Test
  void afterAFailedRevisionTheDeployedOneBeforeItReadsSupersededUndecoded() {
    cast("1");
    cast("2");
    cluster.faults().failOn(Operation.APPLY, "ConfigMap/default/a");
    assertThatThrownBy(() -> cast("3")).isInstanceOf(CastFailedException.class);
    cluster.faults().clear();
    store.reset();

    cast("3");

    // 3 failed: planned against; 2 still deployed, left as stored, read superseded; 1 deleted
    assertThat(store.decoded).containsExactly(3);
    assertThat(store.recordsCalls).hasValue(0);
    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(4, ReleaseStatus.DEPLOYED),
            tuple(3, ReleaseStatus.FAILED),
            tuple(2, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void aRollbackDecodesTheRevisionItReturnsToAndTheLatestUnderTheLeaseOnly() {
    cast("1");
    cast("2");
    cast("3");
    store.reset();

    controller.rollback(NS, "app", 1);

    // 1: its spec and payloads, read before the lease; 3: planned against under it; 2 never
    assertThat(store.decoded).containsExactly(1, 3);
    assertThat(store.recordsCalls).hasValue(0);
    assertThat(cluster.latestRecord(NS, "app").orElseThrow().release())
        .extracting(Release::revision, Release::description)
        .containsExactly(4, "rollback to 1");
    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(4, ReleaseStatus.DEPLOYED),
            tuple(3, ReleaseStatus.SUPERSEDED),
            tuple(2, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void anEntryDecodesItsRecordOnceWhenFirstAsked() {
    cast("1");
    StoredRelease stored = cluster.latestRecord(NS, "app").orElseThrow();
    AtomicInteger decodes = new AtomicInteger();
    RecordEntry entry =
        RecordEntry.lazy(
            1,
            ReleaseStatus.DEPLOYED,
            () -> {
              decodes.incrementAndGet();
              return stored;
            });

    assertThat(entry.revision()).isEqualTo(1);
    assertThat(entry.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(decodes).hasValue(0);
    assertThat(entry.stored()).isEqualTo(stored);
    assertThat(entry.stored()).isSameAs(entry.stored());
    assertThat(decodes).hasValue(1);
    assertThat(entry).hasToString("RecordEntry[revision=1, status=deployed]");
  }

  @Test
  void anEntryWhoseRecordIsNotWhatItWasListedAsIsRefused() {
    cast("1");
    StoredRelease stored = cluster.latestRecord(NS, "app").orElseThrow();

    assertThatThrownBy(() -> RecordEntry.lazy(2, ReleaseStatus.DEPLOYED, () -> stored).stored())
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release record default/app was listed as revision 2 deployed but holds revision 1"
                + " deployed");
    assertThatThrownBy(() -> RecordEntry.lazy(1, ReleaseStatus.FAILED, () -> stored).stored())
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release record default/app was listed as revision 1 failed but holds revision 1"
                + " deployed");
  }
}
