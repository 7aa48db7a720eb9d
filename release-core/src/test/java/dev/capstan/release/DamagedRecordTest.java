package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.result.ReleaseListing;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A record that cannot be read fails only its own release: the namespace's listing shows it as
 * unreadable beside the healthy ones, and every read of it says which record to delete; deleting
 * it, as the message says, lets the release go on.
 */
class DamagedRecordTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();

  /**
   * A store whose record of one revision of one release cannot be read, until mended; or, when
   * {@code deleted}, is deleted between its listing and its read.
   */
  private final class Damaging extends ForwardingStore {
    String release = "";
    int revision;
    boolean deleted;

    Damaging() {
      super(cluster);
    }

    private RecordEntry damaged(String name, RecordEntry e) {
      if (!name.equals(release) || e.revision() != revision) {
        return e;
      }
      return RecordEntry.lazy(
          e.revision(),
          e.status(),
          () -> {
            if (deleted) {
              throw new StaleRecordException(
                  NS + "/" + name, e.revision(), "its record was deleted while it was read");
            }
            throw new RecordFormatException(
                "release record is not gzip data: Not in GZIP format", null);
          });
    }

    @Override
    public List<RecordEntry> recordEntries(String namespace, String name) {
      return super.recordEntries(namespace, name).stream().map(e -> damaged(name, e)).toList();
    }

    @Override
    public SortedMap<String, RecordEntry> latestEntries(String namespace) {
      SortedMap<String, RecordEntry> out = new TreeMap<>();
      super.latestEntries(namespace).forEach((name, e) -> out.put(name, damaged(name, e)));
      return out;
    }

    @Override
    public SortedMap<String, SortedMap<String, RecordEntry>> latestEntriesInAllNamespaces() {
      SortedMap<String, SortedMap<String, RecordEntry>> out = new TreeMap<>();
      super.latestEntriesInAllNamespaces()
          .forEach(
              (namespace, entries) -> {
                SortedMap<String, RecordEntry> damagedOnes = new TreeMap<>();
                entries.forEach((name, e) -> damagedOnes.put(name, damaged(name, e)));
                out.put(namespace, damagedOnes);
              });
      return out;
    }
  }

  private final Damaging store = new Damaging();
  private final ReleaseController controller =
      ReleaseController.builder(cluster, store).holder("me").build();

  private void cast(String name, Payloads p) {
    controller.cast(spec(name, p), p);
  }

  @Test
  void aCorruptRecordFailsOnlyItsReleaseAndTheDeletionItAdvisesLetsItGoOn() {
    cast("a", payloads(configMap("a", "1")));
    cast("b", payloads(configMap("b", "1")));
    cast("b", payloads(configMap("b", "2")));
    store.release = "b";
    store.revision = 2;
    String advice =
        "release default/b: the record of revision 2 cannot be read (release record is not gzip"
            + " data: Not in GZIP format); to recover, delete that record (delete revision 2 of"
            + " release default/b from the store (Store.deleteRecord)): the release then reads as"
            + " revision 1, and the next cast records its revision 2 again";

    List<ReleaseListing> listed = controller.listing(NS, false);

    assertThat(listed).hasSize(2);
    assertThat(listed.get(0)).isInstanceOf(ReleaseListing.Recorded.class);
    assertThat(listed.get(0).name()).isEqualTo("a");
    assertThat(listed.get(1)).isEqualTo(new ReleaseListing.Unreadable(NS, "b", 2, advice));
    assertThat(controller.list(NS, false)).extracting(Release::name).containsExactly("a");
    assertThatThrownBy(() -> controller.get(NS, "b")).hasMessage(advice);
    assertThatThrownBy(() -> controller.history(NS, "b")).hasMessage(advice);
    assertThatThrownBy(() -> cast("b", payloads(configMap("b", "3")))).hasMessage(advice);
    // nothing was written for the refused cast
    assertThat(
            cluster
                .object(dev.capstan.release.model.ResourceRef.parse("ConfigMap/default/b"))
                .orElseThrow()
                .get("data.value"))
        .isEqualTo("2");

    // as advised: delete that record
    cluster.deleteRecord(NS, "b", 2);
    store.release = "";
    assertThat(controller.get(NS, "b").orElseThrow().revision()).isEqualTo(1);
    cast("b", payloads(configMap("b", "3")));
    assertThat(controller.get(NS, "b").orElseThrow())
        .extracting(Release::revision, Release::status)
        .containsExactly(2, ReleaseStatus.DEPLOYED);
  }

  @Test
  void aCorruptRecordFailsOnlyItsReleaseInTheListingOfEveryNamespace() {
    cast("a", payloads(configMap("a", "1")));
    cast("b", payloads(configMap("b", "1")));
    cast("b", payloads(configMap("b", "2")));
    store.release = "b";
    store.revision = 2;

    List<ReleaseListing> listed = controller.listingInAllNamespaces(false);

    assertThat(listed).extracting(ReleaseListing::name).containsExactly("a", "b");
    assertThat(listed.get(0)).isInstanceOf(ReleaseListing.Recorded.class);
    assertThat(listed.get(1)).isEqualTo(controller.listing(NS, false).get(1));
    assertThat(listed.get(1)).isInstanceOf(ReleaseListing.Unreadable.class);
    assertThat(controller.listInAllNamespaces(false))
        .extracting(Release::name)
        .containsExactly("a");
  }

  @Test
  void aReleaseUninstalledWhileTheListingReadsItIsLeftOutOfIt() {
    cast("a", payloads(configMap("a", "1")));
    cast("b", payloads(configMap("b", "1")));
    store.release = "b";
    store.revision = 1;
    store.deleted = true;

    assertThat(controller.listing(NS, true)).extracting(ReleaseListing::name).containsExactly("a");
    assertThat(controller.listingInAllNamespaces(true))
        .extracting(ReleaseListing::name)
        .containsExactly("a");
  }

  @Test
  void anUnreadableFirstRevisionAdvisesTakingItsObjectsBackWithAdopt() {
    cast("c", payloads(configMap("c", "1")));
    store.release = "c";
    store.revision = 1;

    assertThat(controller.listing(NS, false))
        .singleElement()
        .satisfies(
            l ->
                assertThat(((ReleaseListing.Unreadable) l).problem())
                    .endsWith(
                        ": its objects then read as an earlier install's, which the next cast"
                            + " takes back with adopt (the CLI's --adopt)"));

    cluster.deleteRecord(NS, "c", 1);
    store.release = "";
    Payloads p = payloads(configMap("c", "1"));
    assertThatThrownBy(() -> cast("c", p))
        .hasMessageContaining("owned by an earlier install of this release");
    controller.cast(spec("c", p).withAdopt(true), p);
    assertThat(controller.get(NS, "c").orElseThrow().status()).isEqualTo(ReleaseStatus.DEPLOYED);
  }
}
