package dev.capstan.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Store}: records (round trip, history order, listing, compare-and-set,
 * delete) and the operation lease (exclusivity, expiry and takeover, renew, release, and the intent
 * a store that {@link Store#keepsLeaseIntents() keeps intents} hands over). Extend it, implement
 * {@link #newStore()}, and run it as a test class.
 *
 * <p>Every test works in namespaces of its own ({@link #namespace()}, {@link #otherNamespace()}),
 * so {@link #newStore()} may return stores that share one database or cluster. Instants are whole
 * milliseconds and lease durations whole seconds, which every store keeps exactly (a Kubernetes
 * Lease keeps microseconds and seconds).
 */
public abstract class StoreContract {
  /** The instant the tests' clocks start at. */
  protected static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** The lease duration the tests use. */
  protected static final Duration TTL = Duration.ofSeconds(30);

  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private @Nullable Store store;
  private @Nullable String namespace;
  private @Nullable String otherNamespace;

  /** For subclasses. */
  protected StoreContract() {}

  /**
   * A store to test, called before each test. It may hold records of other namespaces, but none in
   * the namespaces this test uses.
   */
  protected abstract Store newStore();

  /**
   * A namespace no other test uses; override where a store needs namespaces to exist first.
   *
   * @param index 0 for the test's main namespace, 1 for its second one
   */
  protected String newNamespace(int index) {
    return "tck-" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet();
  }

  /** Creates the store and the test's namespaces. */
  @BeforeEach
  public final void createStore() {
    namespace = newNamespace(0);
    otherNamespace = newNamespace(1);
    store = newStore();
  }

  /** The store under test. */
  protected final Store store() {
    if (store == null) {
      throw new IllegalStateException("the store is created before each test");
    }
    return store;
  }

  /** The test's main namespace. */
  protected final String namespace() {
    if (namespace == null) {
      throw new IllegalStateException("the namespace is chosen before each test");
    }
    return namespace;
  }

  /** The test's second namespace. */
  protected final String otherNamespace() {
    if (otherNamespace == null) {
      throw new IllegalStateException("the namespace is chosen before each test");
    }
    return otherNamespace;
  }

  /** A small record of {@code name} at {@code revision}, in the test's namespace. */
  protected final Release release(String name, int revision, ReleaseStatus status) {
    return release(namespace(), name, revision, status);
  }

  /** A small record with one ConfigMap payload. */
  protected static Release release(
      String namespace, String name, int revision, ReleaseStatus status) {
    return release(
        namespace,
        name,
        revision,
        status,
        Payloads.of(
            ConfigMapSpec.of(
                namespace, name + "-settings", Map.of("revision", Integer.toString(revision)))));
  }

  private static Release release(
      String namespace, String name, int revision, ReleaseStatus status, Payloads payloads) {
    return new Release(
        "id-" + name,
        namespace,
        name,
        revision,
        status,
        List.of(),
        List.of(),
        List.of(),
        "tck",
        "1.0." + revision,
        "revision " + revision,
        payloads,
        null,
        T0.plusSeconds(revision),
        T0.plusSeconds(revision),
        null);
  }

  private String qualified(String name) {
    return namespace() + "/" + name;
  }

  // ------------------------------------------------------------------------------ records

  /** A created record reads back equal, with the version token the create returned. */
  @Test
  public void createdRecordReadsBackEqualWithItsVersion() {
    Release app = release("app", 1, ReleaseStatus.PENDING);

    StoredRelease created = store().createRecord(app);

    assertThat(created.release()).isEqualTo(app);
    assertThat(created.version()).isNotBlank();
    assertThat(store().latestRecord(namespace(), "app")).contains(created);
    assertThat(store().records(namespace(), "app")).containsExactly(created);
  }

  /** A record whose encoding is larger than 1 MiB round-trips unchanged. */
  @Test
  public void recordLargerThanOneMebibyteRoundTrips() {
    byte[] noise = new byte[1200 * 1024];
    new Random(15).nextBytes(noise);
    Release big =
        release(
            namespace(),
            "big",
            1,
            ReleaseStatus.DEPLOYED,
            Payloads.of(
                ConfigMapSpec.of(
                    namespace(),
                    "blob",
                    Map.of("noise", Base64.getEncoder().encodeToString(noise)))));
    assertThat(ReleaseRecordCodec.encode(big).length).isGreaterThan(1024 * 1024);

    StoredRelease created = store().createRecord(big);

    assertThat(store().latestRecord(namespace(), "big").orElseThrow().release()).isEqualTo(big);
    StoredRelease updated =
        store().updateRecord(big.withStatus(ReleaseStatus.SUPERSEDED, T0), created.version());
    assertThat(store().records(namespace(), "big")).containsExactly(updated);
  }

  /**
   * A record of objects the release let go of, with the uid of each (which object a later cast may
   * re-adopt), reads back equal: in its history, as its latest record, and in the listing.
   */
  @Test
  public void retainedObjectsReadBackWithTheirUids() {
    ResourceRef data = ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, namespace(), "data");
    ResourceRef crd = ResourceRef.of(Kind.CUSTOM_RESOURCE_DEFINITION, "", "widgets.example.com");
    Release tombstone =
        release("app", 1, ReleaseStatus.UNINSTALLED)
            .withRetained(
                List.of(data, crd),
                List.of(new RetainedUid(data, "5f0c9a4e-1b2d-4c3e-8f70-0a1b2c3d4e5f")));

    StoredRelease created = store().createRecord(tombstone);

    assertThat(created.release()).isEqualTo(tombstone);
    assertThat(store().latestRecord(namespace(), "app").orElseThrow().release())
        .isEqualTo(tombstone);
    assertThat(store().records(namespace(), "app"))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.release().retainedUid(data))
                    .contains("5f0c9a4e-1b2d-4c3e-8f70-0a1b2c3d4e5f"));
    assertThat(store().latestRecords(namespace()))
        .extracting(StoredRelease::release)
        .containsExactly(tombstone);
  }

  /** A release nobody stored has no latest record, no history, and is not listed. */
  @Test
  public void unknownReleaseHasNoRecords() {
    assertThat(store().latestRecord(namespace(), "ghost")).isEmpty();
    assertThat(store().records(namespace(), "ghost")).isEmpty();
    assertThat(store().latestRecords(namespace())).isEmpty();
  }

  /** History is newest revision first, whatever order the revisions were created in. */
  @Test
  public void historyIsNewestFirst() {
    store().createRecord(release("app", 2, ReleaseStatus.SUPERSEDED));
    store().createRecord(release("app", 1, ReleaseStatus.SUPERSEDED));
    store().createRecord(release("app", 3, ReleaseStatus.DEPLOYED));
    store().createRecord(release("other", 7, ReleaseStatus.DEPLOYED));

    assertThat(store().records(namespace(), "app"))
        .extracting(s -> s.release().revision())
        .containsExactly(3, 2, 1);
    assertThat(store().latestRecord(namespace(), "app").orElseThrow().release())
        .isEqualTo(release("app", 3, ReleaseStatus.DEPLOYED));
  }

  /**
   * Record entries list every revision as {@code records} does, newest first, each with the
   * revision and status of its record, which they decode to the stored record when asked.
   */
  @Test
  public void recordEntriesListEveryRevisionWithItsStatus() {
    StoredRelease first = store().createRecord(release("app", 1, ReleaseStatus.DEPLOYED));
    StoredRelease superseded =
        store()
            .updateRecord(
                first.release().withStatus(ReleaseStatus.SUPERSEDED, T0), first.version());
    StoredRelease failed = store().createRecord(release("app", 2, ReleaseStatus.FAILED));
    StoredRelease deployed = store().createRecord(release("app", 3, ReleaseStatus.DEPLOYED));
    store().createRecord(release("application", 4, ReleaseStatus.DEPLOYED));

    List<RecordEntry> entries = store().recordEntries(namespace(), "app");

    assertThat(entries)
        .extracting(RecordEntry::revision, RecordEntry::status)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.FAILED),
            tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(entries)
        .extracting(RecordEntry::stored)
        .containsExactly(deployed, failed, superseded)
        .isEqualTo(store().records(namespace(), "app"));
    assertThat(store().recordEntries(namespace(), "ghost")).isEmpty();
  }

  /**
   * Record entries of several releases read together are, for each release named, exactly its own
   * entries read alone; a release without records and one not named are absent.
   */
  @Test
  public void recordEntriesOfSeveralReleasesAreEachReleasesOwn() {
    StoredRelease first = store().createRecord(release("app", 1, ReleaseStatus.DEPLOYED));
    store().updateRecord(first.release().withStatus(ReleaseStatus.SUPERSEDED, T0), first.version());
    store().createRecord(release("app", 2, ReleaseStatus.DEPLOYED));
    store().createRecord(release("application", 1, ReleaseStatus.FAILED));
    store().createRecord(release("other", 1, ReleaseStatus.DEPLOYED));

    Map<String, List<RecordEntry>> entries =
        store().recordEntries(namespace(), Set.of("app", "application", "ghost"));

    assertThat(entries).containsOnlyKeys("app", "application");
    assertThat(entries.get("app"))
        .extracting(RecordEntry::revision, RecordEntry::status)
        .containsExactly(tuple(2, ReleaseStatus.DEPLOYED), tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(entries.get("app"))
        .extracting(RecordEntry::stored)
        .isEqualTo(store().records(namespace(), "app"));
    assertThat(entries.get("application"))
        .extracting(RecordEntry::stored)
        .isEqualTo(store().records(namespace(), "application"));
    assertThat(store().recordEntries(namespace(), Set.of())).isEmpty();
  }

  /**
   * The latest records of a namespace are the newest revision of each release there, ordered by
   * name as Java orders strings (so {@code db < db-a < dba}, whatever the database's collation).
   */
  @Test
  public void latestRecordsArePerNamespaceOrderedByName() {
    store().createRecord(release("web", 1, ReleaseStatus.SUPERSEDED));
    store().createRecord(release("web", 2, ReleaseStatus.DEPLOYED));
    store().createRecord(release("dba", 1, ReleaseStatus.FAILED));
    store().createRecord(release("db-a", 4, ReleaseStatus.DEPLOYED));
    store().createRecord(release("db", 1, ReleaseStatus.UNINSTALLED));
    store().createRecord(release(otherNamespace(), "api", 1, ReleaseStatus.DEPLOYED));

    assertThat(store().latestRecords(namespace()))
        .extracting(s -> s.release().name() + "#" + s.release().revision())
        .containsExactly("db#1", "db-a#4", "dba#1", "web#2");
    assertThat(store().latestRecords(otherNamespace()))
        .extracting(s -> s.release().qualifiedName())
        .containsExactly(otherNamespace() + "/api");
  }

  /**
   * The latest records of every namespace are the newest revision of each release, ordered by
   * namespace, then name; a store other tests share may hold more namespaces, so the test's own two
   * are picked out of a list that must be in that order as a whole.
   */
  @Test
  public void latestRecordsInAllNamespacesAreOrderedByNamespaceThenName() {
    store().createRecord(release("web", 1, ReleaseStatus.SUPERSEDED));
    store().createRecord(release("web", 2, ReleaseStatus.DEPLOYED));
    store().createRecord(release("db", 1, ReleaseStatus.UNINSTALLED));
    store().createRecord(release(otherNamespace(), "api", 3, ReleaseStatus.FAILED));

    List<StoredRelease> all = store().latestRecordsInAllNamespaces();

    assertThat(all).isSortedAccordingTo(StoredRelease.BY_NAMESPACE_AND_NAME);
    List<String> mine =
        all.stream()
            .map(StoredRelease::release)
            .filter(
                r -> r.namespace().equals(namespace()) || r.namespace().equals(otherNamespace()))
            .map(r -> r.qualifiedName() + "#" + r.revision())
            .toList();
    List<String> expected =
        new ArrayList<>(
            List.of(namespace() + "/db#1", namespace() + "/web#2", otherNamespace() + "/api#3"));
    if (otherNamespace().compareTo(namespace()) < 0) {
      expected.add(0, expected.remove(2));
    }
    assertThat(mine).containsExactlyElementsOf(expected);
  }

  /** Creating a revision that exists is refused and leaves the stored one as it was. */
  @Test
  public void createOfAnExistingRevisionIsRefused() {
    StoredRelease first = store().createRecord(release("app", 1, ReleaseStatus.PENDING));

    assertThatThrownBy(() -> store().createRecord(release("app", 1, ReleaseStatus.DEPLOYED)))
        .isInstanceOf(StaleRecordException.class)
        .hasMessage(
            "release "
                + qualified("app")
                + " revision 1 was changed concurrently: the revision already exists");
    assertThat(store().records(namespace(), "app")).containsExactly(first);
  }

  /** An update at the current version replaces the record and hands back a new version. */
  @Test
  public void updateAtTheCurrentVersionReplacesTheRecord() {
    Release app = release("app", 1, ReleaseStatus.PENDING);
    StoredRelease created = store().createRecord(app);
    Release deployed = app.withStatus(ReleaseStatus.DEPLOYED, T0.plusSeconds(60));

    StoredRelease updated = store().updateRecord(deployed, created.version());

    assertThat(updated.release()).isEqualTo(deployed);
    assertThat(updated.version()).isNotEqualTo(created.version());
    assertThat(store().latestRecord(namespace(), "app")).contains(updated);
  }

  /** An update at a version that has since changed is refused and changes nothing. */
  @Test
  public void updateAtAStaleVersionIsRefused() {
    Release app = release("app", 1, ReleaseStatus.PENDING);
    StoredRelease created = store().createRecord(app);
    StoredRelease deployed =
        store().updateRecord(app.withStatus(ReleaseStatus.DEPLOYED, T0), created.version());

    assertThatThrownBy(
            () -> store().updateRecord(app.withStatus(ReleaseStatus.FAILED, T0), created.version()))
        .isInstanceOf(StaleRecordException.class)
        .hasMessageStartingWith(
            "release "
                + qualified("app")
                + " revision 1 was changed concurrently: expected version "
                + created.version());
    assertThat(store().records(namespace(), "app")).containsExactly(deployed);
  }

  /** Updating a revision that was never created is refused. */
  @Test
  public void updateOfAMissingRevisionIsRefused() {
    StoredRelease created = store().createRecord(release("app", 1, ReleaseStatus.DEPLOYED));

    assertThatThrownBy(
            () ->
                store().updateRecord(release("app", 2, ReleaseStatus.DEPLOYED), created.version()))
        .isInstanceOf(StaleRecordException.class)
        .hasMessage(
            "release "
                + qualified("app")
                + " revision 2 was changed concurrently: the revision does not exist");
    assertThat(store().records(namespace(), "app")).containsExactly(created);
  }

  /** Deleting a revision removes that one only; deleting an absent one does nothing. */
  @Test
  public void deleteRemovesOneRevision() {
    store().createRecord(release("app", 1, ReleaseStatus.SUPERSEDED));
    StoredRelease second = store().createRecord(release("app", 2, ReleaseStatus.DEPLOYED));

    store().deleteRecord(namespace(), "app", 1);
    store().deleteRecord(namespace(), "app", 9);
    store().deleteRecord(namespace(), "ghost", 1);

    assertThat(store().records(namespace(), "app")).containsExactly(second);
    store().deleteRecord(namespace(), "app", 2);
    assertThat(store().records(namespace(), "app")).isEmpty();
    assertThat(store().latestRecord(namespace(), "app")).isEmpty();
    assertThat(store().latestRecords(namespace())).isEmpty();
  }

  /** Deleting a release's records removes every revision of that release and nothing else. */
  @Test
  public void deleteRecordsRemovesEveryRevisionOfOneReleaseOnly() {
    store().createRecord(release("app", 1, ReleaseStatus.SUPERSEDED));
    store().createRecord(release("app", 2, ReleaseStatus.DEPLOYED));
    StoredRelease other = store().createRecord(release("application", 1, ReleaseStatus.DEPLOYED));

    store().deleteRecords(namespace(), "app");
    store().deleteRecords(namespace(), "ghost");

    assertThat(store().records(namespace(), "app")).isEmpty();
    assertThat(store().latestRecord(namespace(), "app")).isEmpty();
    assertThat(store().latestRecords(namespace())).containsExactly(other);
  }

  // ------------------------------------------------------------------------------- leases

  /** A free lease is granted for the duration asked, taking over nothing. */
  @Test
  public void freeLeaseIsGranted() {
    LeaseGrant grant = store().acquireLease(namespace(), "app", "alice", T0, TTL);

    // (whether the grant proves the release's namespace is the store's own: a Kubernetes Lease
    // does)
    assertThat(grant.lease()).isEqualTo(new Lease("alice", T0, T0.plus(TTL)));
    assertThat(grant.takenOver()).isNull();
  }

  /** While one holder's lease runs, another is refused with the holder and expiry named. */
  @Test
  public void leaseIsExclusiveUntilItExpires() {
    store().acquireLease(namespace(), "app", "alice", T0, TTL);
    Instant justBefore = T0.plus(TTL).minusMillis(1);

    assertThatThrownBy(() -> store().acquireLease(namespace(), "app", "bob", justBefore, TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class,
            e -> {
              assertThat(e.release()).isEqualTo(qualified("app"));
              assertThat(e.holder()).isEqualTo("alice");
              assertThat(e.expiresAt()).isEqualTo(T0.plus(TTL));
            })
        .hasMessageStartingWith("release " + qualified("app") + " is locked by alice (")
        .hasMessageEndingWith("expires in 1 s); pass --wait (waitForLease) to queue behind it");
  }

  /** Leases are per release: one release's holder does not lock another release. */
  @Test
  public void leasesArePerRelease() {
    store().acquireLease(namespace(), "app", "alice", T0, TTL);

    assertThat(store().acquireLease(namespace(), "web", "bob", T0, TTL).takenOver()).isNull();
    assertThat(store().acquireLease(otherNamespace(), "app", "bob", T0, TTL).takenOver()).isNull();
  }

  /** The holder may acquire its own lease again; that is not a takeover. */
  @Test
  public void holderReacquiresItsOwnLease() {
    store().acquireLease(namespace(), "app", "alice", T0, TTL);
    Instant later = T0.plusSeconds(10);

    LeaseGrant again = store().acquireLease(namespace(), "app", "alice", later, TTL);

    assertThat(again.takenOver()).isNull();
    assertThat(again.lease().holder()).isEqualTo("alice");
    assertThat(again.lease().expiresAt()).isEqualTo(later.plus(TTL));
  }

  /** From the instant it expires, another holder takes the lease over and is told whose it was. */
  @Test
  public void expiredLeaseIsTakenOver() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    Instant expiry = T0.plus(TTL);

    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", expiry, TTL);

    assertThat(bob.lease()).isEqualTo(new Lease("bob", expiry, expiry.plus(TTL)));
    assertThat(bob.takenOver()).isEqualTo(alice.lease());
    assertThatThrownBy(
            () -> store().acquireLease(namespace(), "app", "alice", expiry.plusSeconds(1), TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("bob"));
  }

  /** Renewing moves the expiry to {@code now + ttl}; others stay locked out until then. */
  @Test
  public void renewExtendsTheLease() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    Instant renewedAt = T0.plusSeconds(20);

    store().renewLease(namespace(), "app", "alice", alice.version(), renewedAt, TTL);

    Instant afterFirstExpiry = T0.plus(TTL).plusSeconds(1);
    assertThatThrownBy(() -> store().acquireLease(namespace(), "app", "bob", afterFirstExpiry, TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class,
            e -> assertThat(e.expiresAt()).isEqualTo(renewedAt.plus(TTL)));
    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", renewedAt.plus(TTL), TTL);
    assertThat(bob.takenOver()).isNotNull();
    assertThat(bob.takenOver().holder()).isEqualTo("alice");
    assertThat(bob.takenOver().expiresAt()).isEqualTo(renewedAt.plus(TTL));
  }

  /** Someone who does not hold the lease cannot renew it, and learns who does. */
  @Test
  public void renewByANonHolderIsRefused() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);

    assertThatThrownBy(
            () ->
                store()
                    .renewLease(namespace(), "app", "bob", alice.version(), T0.plusSeconds(1), TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class,
            e -> {
              assertThat(e.holder()).isEqualTo("alice");
              assertThat(e.expiresAt()).isEqualTo(T0.plus(TTL));
            });
  }

  /** Renewing a lease nobody holds is refused, naming {@code nobody}. */
  @Test
  public void renewOfAFreeLeaseIsRefused() {
    String version = store().acquireLease(otherNamespace(), "app", "alice", T0, TTL).version();

    assertThatThrownBy(() -> store().renewLease(namespace(), "app", "alice", version, T0, TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("nobody"));
  }

  /** Once a holder lost its lease to a takeover, it cannot renew it. */
  @Test
  public void renewAfterATakeoverIsRefused() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    store().acquireLease(namespace(), "app", "bob", T0.plus(TTL), TTL);

    assertThatThrownBy(
            () ->
                store()
                    .renewLease(
                        namespace(),
                        "app",
                        "alice",
                        alice.version(),
                        T0.plus(TTL).plusSeconds(1),
                        TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("bob"));
  }

  /** A release by someone who does not hold the lease changes nothing. */
  @Test
  public void releaseByANonHolderIsANoOp() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);

    store().releaseLease(namespace(), "app", "bob", false);
    store().releaseLease(namespace(), "app", "bob", true);
    store().releaseLease(namespace(), "ghost", "bob", true);

    assertThatThrownBy(
            () -> store().acquireLease(namespace(), "app", "bob", T0.plusSeconds(1), TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("alice"));
    store().renewLease(namespace(), "app", "alice", alice.version(), T0.plusSeconds(2), TTL);
  }

  /** A released lease is free at once for anyone, and is no takeover; kept or forgotten alike. */
  @Test
  public void releasedLeaseIsFreeForAnyone() {
    for (boolean forget : new boolean[] {false, true}) {
      String name = "app-" + Boolean.toString(forget).toLowerCase(Locale.ROOT);
      LeaseGrant alice = store().acquireLease(namespace(), name, "alice", T0, TTL);

      store().releaseLease(namespace(), name, "alice", forget);

      assertThatThrownBy(
              () ->
                  store()
                      .renewLease(
                          namespace(), name, "alice", alice.version(), T0.plusSeconds(1), TTL))
          .isInstanceOfSatisfying(
              ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("nobody"));
      LeaseGrant bob = store().acquireLease(namespace(), name, "bob", T0.plusSeconds(1), TTL);
      assertThat(bob.takenOver()).isNull();
      assertThat(bob.lease().holder()).isEqualTo("bob");
    }
  }

  /**
   * A holder whose renewal runs late, after its lease expired, keeps the lease when nobody took it
   * meanwhile: the renewal is conditioned on the holder's own last write, not on the expiry.
   */
  @Test
  public void aLateRenewalKeepsALeaseNobodyTook() {
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    Instant late = T0.plus(TTL).plusSeconds(25);

    String renewed = store().renewLease(namespace(), "app", "alice", alice.version(), late, TTL);

    assertThat(renewed).isNotEqualTo(alice.version());
    assertThatThrownBy(
            () ->
                store()
                    .acquireLease(namespace(), "app", "bob", late.plus(TTL).minusSeconds(1), TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class,
            e -> {
              assertThat(e.holder()).isEqualTo("alice");
              assertThat(e.expiresAt()).isEqualTo(late.plus(TTL));
            });
    // and each renewal is conditioned on the one before: the next goes on from its version
    store().renewLease(namespace(), "app", "alice", renewed, late.plusSeconds(5), TTL);
  }

  /**
   * A renewal on a version the holder wrote before its last write is refused: the lease was written
   * since (here by another process under the same holder name, which took it again), so the holder
   * cannot tell it still has it.
   */
  @Test
  public void aRenewalOnAnEarlierVersionIsRefused() {
    LeaseGrant first = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    LeaseGrant again = store().acquireLease(namespace(), "app", "alice", T0.plusSeconds(1), TTL);

    assertThat(again.version()).isNotEqualTo(first.version());
    assertThatThrownBy(
            () ->
                store()
                    .renewLease(
                        namespace(), "app", "alice", first.version(), T0.plusSeconds(2), TTL))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("alice"));
    String renewed =
        store().renewLease(namespace(), "app", "alice", again.version(), T0.plusSeconds(2), TTL);
    assertThatThrownBy(
            () ->
                store()
                    .renewLease(
                        namespace(), "app", "alice", again.version(), T0.plusSeconds(3), TTL))
        .isInstanceOf(ReleaseLockedException.class);
    store().renewLease(namespace(), "app", "alice", renewed, T0.plusSeconds(3), TTL);
  }

  /**
   * A stalled holder whose expired lease another holder took over, used and gave up cannot renew it
   * on waking, though the lease is free again (kept or forgotten alike): nor is the lease taken
   * again by that refused renewal.
   */
  @Test
  public void aLateRenewalAfterATakeoverThatEndedIsRefused() {
    for (boolean forget : new boolean[] {false, true}) {
      String name = "app-" + Boolean.toString(forget).toLowerCase(Locale.ROOT);
      LeaseGrant alice = store().acquireLease(namespace(), name, "alice", T0, TTL);
      store().acquireLease(namespace(), name, "bob", T0.plus(TTL), TTL);
      store().releaseLease(namespace(), name, "bob", forget);

      assertThatThrownBy(
              () ->
                  store()
                      .renewLease(
                          namespace(),
                          name,
                          "alice",
                          alice.version(),
                          T0.plus(TTL).plusSeconds(5),
                          TTL))
          .isInstanceOfSatisfying(
              ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("nobody"));
      LeaseGrant carol =
          store().acquireLease(namespace(), name, "carol", T0.plus(TTL).plusSeconds(6), TTL);
      assertThat(carol.takenOver()).isNull();
    }
  }

  /**
   * A lease given up and taken again by the same holder has a version its earlier grant never had,
   * so a renewal remembered from before the give-up is refused.
   */
  @Test
  public void aLeaseTakenAgainAfterItsGiveUpHasAFreshVersion() {
    for (boolean forget : new boolean[] {false, true}) {
      String name = "app-" + Boolean.toString(forget).toLowerCase(Locale.ROOT);
      LeaseGrant before = store().acquireLease(namespace(), name, "alice", T0, TTL);
      store().releaseLease(namespace(), name, "alice", forget);
      LeaseGrant after = store().acquireLease(namespace(), name, "alice", T0.plusSeconds(1), TTL);

      assertThat(after.version()).isNotEqualTo(before.version());
      assertThatThrownBy(
              () ->
                  store()
                      .renewLease(
                          namespace(), name, "alice", before.version(), T0.plusSeconds(2), TTL))
          .isInstanceOf(ReleaseLockedException.class);
    }
  }

  // ------------------------------------------------------------------------ lease intents

  /** Skips the test unless the store keeps lease intents. */
  private void assumeIntentsKept() {
    assumeTrue(store().keepsLeaseIntents(), "the store keeps no lease intents");
  }

  /**
   * Whoever takes over an expired lease gets the intent it named, and a takeover replaces it with
   * the taker's own; a free lease taken hands over none.
   */
  @Test
  public void aTakeoverOfAnExpiredLeaseHandsOverTheIntentItNamed() {
    assumeIntentsKept();
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", "cast 2", T0, TTL);
    Instant expiry = T0.plus(TTL);

    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", "uninstall", expiry, TTL);
    LeaseGrant carol =
        store().acquireLease(namespace(), "app", "carol", null, expiry.plus(TTL), TTL);

    assertThat(alice.takenOver()).isNull();
    assertThat(alice.takenOverIntent()).isNull();
    assertThat(bob.takenOver()).isEqualTo(alice.lease());
    assertThat(bob.takenOverIntent()).isEqualTo("cast 2");
    assertThat(carol.takenOver()).isEqualTo(bob.lease());
    assertThat(carol.takenOverIntent()).isEqualTo("uninstall");
  }

  /** Renewals leave the intent as the holder named it when it took the lease. */
  @Test
  public void theIntentSurvivesRenewals() {
    assumeIntentsKept();
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", "cast 2", T0, TTL);
    String renewed =
        store().renewLease(namespace(), "app", "alice", alice.version(), T0.plusSeconds(10), TTL);
    store().renewLease(namespace(), "app", "alice", renewed, T0.plusSeconds(20), TTL);
    Instant expiry = T0.plusSeconds(20).plus(TTL);

    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", null, expiry, TTL);

    assertThat(bob.takenOver()).isEqualTo(new Lease("alice", T0, expiry));
    assertThat(bob.takenOverIntent()).isEqualTo("cast 2");
  }

  /** A lease taken without an intent, named {@code null} or not at all, hands over none. */
  @Test
  public void aLeaseTakenWithoutAnIntentHandsOverNone() {
    assumeIntentsKept();
    LeaseGrant quiet = store().acquireLease(namespace(), "app", "alice", T0, TTL);
    LeaseGrant none = store().acquireLease(namespace(), "web", "alice", null, T0, TTL);

    LeaseGrant app = store().acquireLease(namespace(), "app", "bob", "cast 1", T0.plus(TTL), TTL);
    LeaseGrant web = store().acquireLease(namespace(), "web", "bob", "cast 1", T0.plus(TTL), TTL);

    assertThat(app.takenOver()).isEqualTo(quiet.lease());
    assertThat(app.takenOverIntent()).isNull();
    assertThat(web.takenOver()).isEqualTo(none.lease());
    assertThat(web.takenOverIntent()).isNull();
  }

  /**
   * A lease given up, kept or forgotten, takes its intent with it: the next holder, even after the
   * lease would have expired, is handed nothing, and the intent it names is the one a later
   * takeover gets.
   */
  @Test
  public void aLeaseGivenUpHandsOverNoIntent() {
    assumeIntentsKept();
    for (boolean forget : new boolean[] {false, true}) {
      String name = "app-" + Boolean.toString(forget).toLowerCase(Locale.ROOT);
      store().acquireLease(namespace(), name, "alice", "cast 2", T0, TTL);
      store().releaseLease(namespace(), name, "alice", forget);
      Instant later = T0.plus(TTL).plusSeconds(1);

      LeaseGrant bob = store().acquireLease(namespace(), name, "bob", "cast 3", later, TTL);
      LeaseGrant carol =
          store().acquireLease(namespace(), name, "carol", null, later.plus(TTL), TTL);

      assertThat(bob.takenOver()).isNull();
      assertThat(bob.takenOverIntent()).isNull();
      assertThat(carol.takenOver()).isEqualTo(bob.lease());
      assertThat(carol.takenOverIntent()).isEqualTo("cast 3");
    }
  }

  /**
   * A holder taking its own lease again before it expired is handed nothing, and the intent it
   * names now (or none) replaces the one it named before. After it expired, the holder takes it
   * over as anyone would: an operation of that holder stopped without giving it up (a process that
   * died under the same holder name, or one that could not record its outcome and kept its intent),
   * so the expired lease and its intent are handed over.
   */
  @Test
  public void aHolderTakingItsOwnLeaseAgainReplacesTheIntentAndTakesAnExpiredOneOver() {
    assumeIntentsKept();
    LeaseGrant app0 = store().acquireLease(namespace(), "app", "alice", "cast 2", T0, TTL);
    LeaseGrant web0 = store().acquireLease(namespace(), "web", "alice", "cast 2", T0, TTL);
    Instant before = T0.plusSeconds(5);
    Instant after = T0.plus(TTL).plusSeconds(5);

    LeaseGrant appAgain = store().acquireLease(namespace(), "app", "alice", "cast 3", before, TTL);
    LeaseGrant webAgain = store().acquireLease(namespace(), "web", "alice", after, TTL);

    assertThat(app0.takenOver()).isNull();
    assertThat(appAgain.takenOver()).isNull();
    assertThat(appAgain.takenOverIntent()).isNull();
    assertThat(webAgain.takenOver()).isEqualTo(web0.lease());
    assertThat(webAgain.takenOverIntent()).isEqualTo("cast 2");
    LeaseGrant app = store().acquireLease(namespace(), "app", "bob", null, before.plus(TTL), TTL);
    LeaseGrant web = store().acquireLease(namespace(), "web", "bob", null, after.plus(TTL), TTL);
    assertThat(app.takenOver()).isEqualTo(appAgain.lease());
    assertThat(app.takenOverIntent()).isEqualTo("cast 3");
    assertThat(web.takenOver()).isEqualTo(webAgain.lease());
    assertThat(web.takenOverIntent()).isNull();
  }

  /**
   * A renewal to {@code now} (a zero duration) ends the lease at once, or within the store's
   * smallest duration (a Kubernetes Lease counts whole seconds), keeping its intent: an operation
   * that could not record its outcome leaves it so, and the next holder takes it over with the
   * intent.
   */
  @Test
  public void aLeaseRenewedForNoTimeIsTakenOverWithItsIntent() {
    assumeIntentsKept();
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", "cast 2", T0, TTL);
    Instant now = T0.plusSeconds(3);

    store().renewLease(namespace(), "app", "alice", alice.version(), now, Duration.ZERO);
    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", null, now.plusSeconds(1), TTL);

    assertThat(bob.takenOver()).isNotNull();
    assertThat(bob.takenOver().holder()).isEqualTo("alice");
    assertThat(bob.takenOver().expiresAt()).isBetween(now, now.plusSeconds(1));
    assertThat(bob.takenOverIntent()).isEqualTo("cast 2");
  }

  /**
   * An intent of {@link Store#MAX_LEASE_INTENT} characters, JSON with line breaks, is handed over
   * exactly as named.
   */
  @Test
  public void theLongestIntentRoundTripsUnchanged() {
    assumeIntentsKept();
    String chunk = "{\"op\":\"cast\",\"objects\":[\"ConfigMap/shop/settings\",\"a\\\\b\"]},\n";
    StringBuilder text = new StringBuilder(Store.MAX_LEASE_INTENT + chunk.length());
    while (text.length() < Store.MAX_LEASE_INTENT) {
      text.append(chunk);
    }
    text.setLength(Store.MAX_LEASE_INTENT);
    String intent = text.toString();
    store().acquireLease(namespace(), "app", "alice", intent, T0, TTL);

    LeaseGrant bob = store().acquireLease(namespace(), "app", "bob", null, T0.plus(TTL), TTL);

    assertThat(bob.takenOverIntent()).hasSize(Store.MAX_LEASE_INTENT).isEqualTo(intent);
  }

  /**
   * A store that keeps intents also shows the lease held, with its intent: as taken, as renewed,
   * still once expired (its holder stopped without giving it up), and no more once given up.
   */
  @Test
  public void theHeldLeaseIsShownWithItsIntentUntilItIsGivenUp() {
    assumeIntentsKept();
    assertThat(store().heldLease(namespace(), "app")).isEmpty();

    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", "cast 2", T0, TTL);
    assertThat(store().heldLease(namespace(), "app"))
        .contains(new HeldLease(alice.lease(), "cast 2"));

    store().renewLease(namespace(), "app", "alice", alice.version(), T0.plusSeconds(10), TTL);
    HeldLease renewed =
        new HeldLease(new Lease("alice", T0, T0.plusSeconds(10).plus(TTL)), "cast 2");
    assertThat(store().heldLease(namespace(), "app")).contains(renewed);
    assertThat(store().heldLease(namespace(), "web")).isEmpty();
    assertThat(store().heldLease(otherNamespace(), "app")).isEmpty();

    store().releaseLease(namespace(), "app", "alice", false);
    assertThat(store().heldLease(namespace(), "app")).isEmpty();
    store().acquireLease(namespace(), "app", "bob", null, T0.plusSeconds(20), TTL);
    assertThat(store().heldLease(namespace(), "app").orElseThrow().intent()).isNull();
  }

  /**
   * A request to yield the lease ({@link Store#requestYield}) is kept beside the lease, not in it:
   * the holder reads it, its renewals go on, and only its requester withdraws it.
   */
  @Test
  public void aYieldRequestIsReadByTheHolderItNamesAndLeavesTheLeaseAlone() {
    assumeTrue(store().carriesYieldRequests(), "the store carries no yield requests");
    LeaseGrant alice = store().acquireLease(namespace(), "app", "alice", T0, TTL);

    store().requestYield(namespace(), "app", "alice", "bob", T0);

    assertThat(store().yieldRequested(namespace(), "app", "alice")).contains("bob");
    assertThat(store().yieldRequested(namespace(), "app", "carol")).isEmpty();
    assertThat(store().yieldRequested(namespace(), "web", "alice")).isEmpty();
    // the lease was not written: alice's renewal on her grant's version goes through
    store().renewLease(namespace(), "app", "alice", alice.version(), T0.plusSeconds(5), TTL);
    store().withdrawYieldRequest(namespace(), "app", "carol");
    assertThat(store().yieldRequested(namespace(), "app", "alice")).contains("bob");
    store().withdrawYieldRequest(namespace(), "app", "bob");
    assertThat(store().yieldRequested(namespace(), "app", "alice")).isEmpty();
    store().withdrawYieldRequest(namespace(), "app", "bob");
  }

  /** A newer request replaces the older one: one request per release, naming one holder. */
  @Test
  public void aNewerYieldRequestReplacesTheOlderOne() {
    assumeTrue(store().carriesYieldRequests(), "the store carries no yield requests");
    store().acquireLease(namespace(), "app", "alice", T0, TTL);

    store().requestYield(namespace(), "app", "alice", "bob", T0);
    store().requestYield(namespace(), "app", "dave", "carol", T0.plusSeconds(1));

    assertThat(store().yieldRequested(namespace(), "app", "alice")).isEmpty();
    assertThat(store().yieldRequested(namespace(), "app", "dave")).contains("carol");
    store().withdrawYieldRequest(namespace(), "app", "bob");
    assertThat(store().yieldRequested(namespace(), "app", "dave")).contains("carol");
  }
}
