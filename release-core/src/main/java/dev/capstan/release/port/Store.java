package dev.capstan.release.port;

import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Release;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The persistence: release records (read, history, create, compare-and-set, delete) and the
 * operation lease, nothing else, so a host can keep records where it likes while objects go to the
 * cluster ({@link Orchestrator}). Records are encoded by the shared {@code ReleaseRecordCodec}, so
 * every store writes the same bytes. Implementations: {@code InMemoryCluster} (release-core),
 * {@code KubernetesStore} (release-k8s), {@code JdbcStore} (release-jdbc); {@code StoreContract}
 * (release-store-tck) is the behaviour each must have.
 */
public interface Store {

  /** The longest lease intent, in characters, a store must keep ({@link #keepsLeaseIntents()}). */
  int MAX_LEASE_INTENT = 65_536;

  /**
   * Whether this store keeps a release's records and its lease in the release's home namespace of
   * the cluster (a Kubernetes store: Secrets and a Lease), which must then exist before the lease
   * is taken. The controller then references the home namespace in every plan: a missing one is
   * refused by the plan, or created first with {@code createNamespace}. The default is {@code
   * false}: a store outside the cluster (a database) needs no namespace.
   */
  default boolean recordsInNamespace() {
    return false;
  }

  /** The latest revision of a release, if any. */
  Optional<StoredRelease> latestRecord(String namespace, String name);

  /** Every stored revision of a release, newest first. */
  List<StoredRelease> records(String namespace, String name);

  /**
   * Every stored revision of a release, newest first, as {@link #records} lists them, each decoded
   * only when its {@link RecordEntry#stored()} is asked for: a cast reads them all under its lease
   * and decodes the latest alone, where every revision records the whole release. The default
   * decodes every one ({@link #records}); a store that knows each revision's number and status
   * without decoding (the Kubernetes store: its record Secrets' labels) overrides it.
   */
  default List<RecordEntry> recordEntries(String namespace, String name) {
    return records(namespace, name).stream().map(RecordEntry::of).toList();
  }

  /**
   * Every stored revision of each release of {@code namespace} named in {@code names}, as {@link
   * #recordEntries(String, String)} lists them (newest first), by release name; a release with no
   * revision has no entry. Many releases' casts read their records this way together, under their
   * leases ({@code ReleaseController.castAll}). The default reads each release alone; a store that
   * reads them at once (the Kubernetes store: one LIST) overrides it.
   */
  default Map<String, List<RecordEntry>> recordEntries(String namespace, Set<String> names) {
    Map<String, List<RecordEntry>> out = new TreeMap<>();
    for (String name : new TreeSet<>(names)) {
      List<RecordEntry> entries = recordEntries(namespace, name);
      if (!entries.isEmpty()) {
        out.put(name, entries);
      }
    }
    return out;
  }

  /** The latest revision of every release in {@code namespace}, ordered by name. */
  List<StoredRelease> latestRecords(String namespace);

  /**
   * The latest revision of every release in {@code namespace}, by release name in order, each
   * decoded only when its {@link RecordEntry#stored()} is asked for: a record that cannot be read
   * fails alone, and a listing shows the others beside it. The default decodes them all ({@link
   * #latestRecords}); a store that knows each head's revision and status without decoding (the
   * Kubernetes store: its record Secrets' labels; the SQL store: its columns) overrides it.
   */
  default SortedMap<String, RecordEntry> latestEntries(String namespace) {
    SortedMap<String, RecordEntry> out = new TreeMap<>();
    for (StoredRelease r : latestRecords(namespace)) {
      out.put(r.release().name(), RecordEntry.of(r));
    }
    return out;
  }

  /**
   * The latest revision of every release in every namespace, by namespace, then release name, as
   * {@link #latestEntries} gives one namespace's: a record that cannot be read fails alone. The
   * default decodes them all ({@link #latestRecordsInAllNamespaces}); the Kubernetes store reads
   * each head's revision and status from its labels and decodes a record when it is asked for.
   *
   * @throws UnsupportedOperationException if this store cannot read every namespace at once
   */
  default SortedMap<String, SortedMap<String, RecordEntry>> latestEntriesInAllNamespaces() {
    SortedMap<String, SortedMap<String, RecordEntry>> out = new TreeMap<>();
    for (StoredRelease r : latestRecordsInAllNamespaces()) {
      out.computeIfAbsent(r.release().namespace(), n -> new TreeMap<>())
          .put(r.release().name(), RecordEntry.of(r));
    }
    return out;
  }

  /**
   * How a person deletes the record of one revision from this store, for the advice given when it
   * cannot be read: the Kubernetes store names the {@code kubectl} command, the SQL store the
   * statement. The default names {@link #deleteRecord}.
   */
  default String recordRemoval(String namespace, String name, int revision) {
    return "delete revision "
        + revision
        + " of release "
        + namespace
        + "/"
        + name
        + " from the store (Store.deleteRecord)";
  }

  /**
   * The latest revision of every release in every namespace, ordered by namespace, then name (what
   * {@code capstan release list -A} shows). Every store Capstan ships answers in one read (the
   * Kubernetes store: one LIST across namespaces, which needs the right to list Secrets in all of
   * them); the default refuses.
   *
   * @throws UnsupportedOperationException if this store cannot read every namespace at once
   */
  default List<StoredRelease> latestRecordsInAllNamespaces() {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " cannot list the releases of every namespace");
  }

  /**
   * Stores a new revision.
   *
   * @throws StaleRecordException if that revision already exists
   */
  StoredRelease createRecord(Release release);

  /**
   * Replaces a revision if it is still at {@code expectedVersion}.
   *
   * @throws StaleRecordException if it changed since
   */
  StoredRelease updateRecord(Release release, String expectedVersion);

  /** Deletes one revision's record; nothing happens if it is absent. */
  void deleteRecord(String namespace, String name, int revision);

  /**
   * Deletes every record of a release (an uninstall's purge); nothing happens if it has none. The
   * default deletes the revisions one by one; a store that can delete them in one request (one
   * Kubernetes DELETECOLLECTION, one SQL DELETE) overrides it.
   */
  default void deleteRecords(String namespace, String name) {
    for (StoredRelease r : records(namespace, name)) {
      deleteRecord(namespace, name, r.release().revision());
    }
  }

  /**
   * Takes the operation lease on a release for {@code ttl}, taking over a lease that expired.
   *
   * @throws ReleaseLockedException if another holder has an unexpired lease
   */
  LeaseGrant acquireLease(String namespace, String name, String holder, Instant now, Duration ttl);

  /**
   * Whether this store keeps the intent an operation names when it takes the lease ({@link
   * #acquireLease(String, String, String, String, Instant, Duration)}): unchanged by renewals, gone
   * when the holder gives the lease up, and handed to whoever takes the lease over after it expired
   * ({@link LeaseGrant#takenOverIntent()}). The controller then records a cast once, when it ends,
   * instead of also recording it {@code PENDING} before its first object write, and an uninstall
   * once, when it ends: after a crash the expired lease says what was under way. The default is
   * {@code false}: the controller records the intent as a {@code PENDING} (or {@code UNINSTALLING})
   * revision first.
   */
  default boolean keepsLeaseIntents() {
    return false;
  }

  /**
   * Takes the lease as {@link #acquireLease(String, String, String, Instant, Duration)} does, and
   * keeps {@code intent} with it when this store {@link #keepsLeaseIntents()}: an opaque text of at
   * most {@link #MAX_LEASE_INTENT} characters that the controller writes and reads; the store only
   * keeps it. Taking a lease without an intent ({@code null}) leaves none. The default ignores the
   * intent.
   *
   * @throws ReleaseLockedException if another holder has an unexpired lease
   */
  default LeaseGrant acquireLease(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    return acquireLease(namespace, name, holder, now, ttl);
  }

  /**
   * The lease on a release as this store keeps it, with the intent its holder named, while anyone
   * holds it: an operation under way, or one whose holder stopped without giving it up (its expiry
   * has passed). Empty when nobody holds it, and by default (a store that cannot tell).
   */
  default Optional<HeldLease> heldLease(String namespace, String name) {
    return Optional.empty();
  }

  /**
   * Extends a held lease to {@code now + ttl}, conditioned on the holder's own last write of it:
   * only if the lease is still at {@code version} (the {@link LeaseGrant#version()} of the grant,
   * or what the previous renewal returned), whatever its expiry. A holder whose renewals ran late
   * (a starved process) thus keeps a lease nobody else took, while any write of the lease since (a
   * takeover, a give-up, a deletion and re-creation, another process under the same holder name)
   * makes the renewal fail: the version of every write is one no earlier write had.
   *
   * @param version the version of the holder's last write of the lease
   * @return the lease's version after this renewal
   * @throws ReleaseLockedException if the lease is not at {@code version} or not {@code holder}'s,
   *     naming who holds it now ({@code nobody} when nobody does)
   */
  String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl);

  /**
   * Whether this store carries a request from an operation waiting for a release's lease to the one
   * holding it, to yield it ({@link #requestYield}, {@link #yieldRequested}, {@link
   * #withdrawYieldRequest}): {@code InMemoryCluster} and {@code KubernetesStore} do. The default is
   * {@code false}: then nobody can be asked to yield, and the other methods are not called.
   */
  default boolean carriesYieldRequests() {
    return false;
  }

  /**
   * Asks the operation holding the lease on a release as {@code holder} to yield it to {@code
   * requester}: the request is kept beside the lease, not in it (the lease and its version are
   * untouched, so the holder's renewals go on as before), until {@code requester} withdraws it or a
   * request for another holder replaces it. The holder reads it ({@link #yieldRequested}) and
   * decides; a request naming a holder that is gone is never read as meant for another. {@code at}
   * is when it was asked, by the requester's clock (kept for whoever reads the store by hand).
   *
   * @throws UnsupportedOperationException when this store does not {@link #carriesYieldRequests()
   *     carry yield requests} (the default)
   */
  default void requestYield(
      String namespace, String name, String holder, String requester, Instant at) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " carries no request to yield a release's lease");
  }

  /**
   * Who asked the operation holding the lease on a release as {@code holder} to yield it ({@link
   * #requestYield}), if anyone did and the request is still kept. The default: nobody.
   */
  default Optional<String> yieldRequested(String namespace, String name, String holder) {
    return Optional.empty();
  }

  /**
   * Withdraws the request {@code requester} made to yield the lease on a release, if it is still
   * kept and still {@code requester}'s; nothing happens otherwise (the default).
   */
  default void withdrawYieldRequest(String namespace, String name, String requester) {}

  /** Gives the lease up if {@code holder} still holds it; deletes it when {@code forget}. */
  void releaseLease(String namespace, String name, String holder, boolean forget);
}
