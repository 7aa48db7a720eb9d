package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Release;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.jspecify.annotations.Nullable;

/**
 * The release engine's {@link Store} on Kubernetes: release records as Secrets and the operation
 * lease as a {@code coordination.k8s.io/v1} Lease, both in the release's namespace; the Lease keeps
 * the intent its holder named as an annotation ({@link #keepsLeaseIntents()}). Objects go to the
 * cluster through {@link KubernetesOrchestrator}. See {@code release-k8s/README.md} for the
 * requests each call makes and the RBAC it needs.
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; a lost compare-and-set of a record a {@link StaleRecordException}; a lease held by
 * another a {@link ReleaseLockedException}. Secret values never appear in exceptions. An
 * interrupted request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesStore implements Store {
  private final ReleaseRecords records;
  private final ReleaseLeases leases;
  private final LeaseYieldRequests yieldRequests;
  private final RequestCounter requests;

  /** A store on the given clients. */
  public KubernetesStore(KubeClients clients) {
    this(clients, ReleaseRecords.CHUNK_BYTES, RecordLimits.DEFAULT);
  }

  /**
   * A store on the given clients that decodes no record beyond {@code limits}: one over is read as
   * unreadable ({@link dev.capstan.release.codec.RecordFormatException}), its release failing
   * alone. For a host that reads records others may write (the Release controller, whose tenants
   * may write the Secrets their records live in) on a shared heap.
   */
  public KubernetesStore(KubeClients clients, RecordLimits limits) {
    this(clients, ReleaseRecords.CHUNK_BYTES, limits);
  }

  /** A store that splits records larger than {@code chunkBytes} (tests use small chunks). */
  KubernetesStore(KubeClients clients, int chunkBytes) {
    this(clients, chunkBytes, RecordLimits.DEFAULT);
  }

  private KubernetesStore(KubeClients clients, int chunkBytes, RecordLimits limits) {
    requireNonNull(clients, "clients");
    this.requests = clients.requests();
    this.records =
        new ReleaseRecords(
            new ResourceApi<>(clients, ApiResource.SECRET),
            new CoreV1Api(clients.apiClient()),
            chunkBytes,
            requireNonNull(limits, "limits"));
    ResourceApi<V1Lease, V1LeaseList> leaseApi = new ResourceApi<>(clients, ApiResource.LEASE);
    this.leases = new ReleaseLeases(leaseApi);
    this.yieldRequests = new LeaseYieldRequests(leaseApi);
  }

  /**
   * {@inheritDoc} {@code true}: the record Secrets and the Lease live in the release's namespace.
   */
  @Override
  public boolean recordsInNamespace() {
    return true;
  }

  /**
   * {@inheritDoc} One LIST of the metadata of the release's record Secrets, then a GET of the
   * newest head (and a LIST of its chunks, if any) unless this store decoded that record since it
   * was last written; only the newest is decoded.
   */
  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    return records.latest(namespace, name);
  }

  /** {@inheritDoc} One LIST of the release's record Secrets. */
  @Override
  public List<StoredRelease> records(String namespace, String name) {
    return records.all(namespace, name);
  }

  /**
   * {@inheritDoc} One LIST of the metadata of the release's record Secrets, which sends none of
   * their bytes: each revision and status comes from its head's labels, written with it. A record
   * is read, verified and decoded when it is asked for: the newest by a GET of its head (and a LIST
   * of its chunks), older ones from one LIST of every revision's Secrets, shared by the entries; a
   * record whose Secrets were not written since this store decoded it is not read again.
   */
  @Override
  public List<RecordEntry> recordEntries(String namespace, String name) {
    return records.entries(namespace, name);
  }

  /**
   * {@inheritDoc} One LIST (of 500 a page) of the record Secrets of those releases, selected by the
   * set of their names ({@code name in (...)}), while their bytes fit one record's share of this
   * store's memory ({@link RecordLimits}); beyond it, each release is read as {@link
   * #recordEntries(String, String)} reads it.
   */
  @Override
  public Map<String, List<RecordEntry>> recordEntries(String namespace, Set<String> names) {
    return records.entries(namespace, names);
  }

  /**
   * {@inheritDoc} One LIST of the record heads in the namespace that are not superseded (label
   * {@code status!=superseded}), and one LIST of chunks per chunked latest record; one decode per
   * release. The engine marks a revision superseded only once a newer one is recorded, so a
   * release's newest revision is never left out (see {@code release-k8s/README.md}).
   */
  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    return records.latestOfEach(namespace);
  }

  /**
   * {@inheritDoc} One LIST of the record heads that are not superseded, as {@link #latestRecords};
   * each head decoded (and its chunks listed) when asked for.
   */
  @Override
  public SortedMap<String, RecordEntry> latestEntries(String namespace) {
    return records.latestEntries(namespace);
  }

  /**
   * {@inheritDoc} {@code kubectl -n NAMESPACE delete secret -l
   * owner=capstan,name=NAME,version=REVISION}: the record's head Secret and its chunks.
   */
  @Override
  public String recordRemoval(String namespace, String name, int revision) {
    return ReleaseRecords.removal(namespace, name, revision);
  }

  /**
   * {@inheritDoc} As {@link #latestRecords(String)}, with one LIST across namespaces (the right to
   * list Secrets in every namespace is needed, as for {@code helm list -A}).
   */
  @Override
  public List<StoredRelease> latestRecordsInAllNamespaces() {
    return records.latestOfEach(null);
  }

  /** {@inheritDoc} One LIST of the heads across namespaces; each record decoded when asked for. */
  @Override
  public SortedMap<String, SortedMap<String, RecordEntry>> latestEntriesInAllNamespaces() {
    return records.latestEntriesInAllNamespaces();
  }

  /** {@inheritDoc} One CREATE (plus one per chunk). */
  @Override
  public StoredRelease createRecord(Release release) {
    return records.create(requireNonNull(release, "release"));
  }

  /**
   * {@inheritDoc} One UPDATE of the head, conditioned on its resourceVersion (plus chunk writes).
   */
  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    return records.update(
        requireNonNull(release, "release"), requireNonNull(expectedVersion, "expectedVersion"));
  }

  /** {@inheritDoc} One DELETECOLLECTION of the revision's head and chunks. */
  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    records.delete(namespace, name, revision);
  }

  /** {@inheritDoc} One DELETECOLLECTION of the release's record Secrets by label. */
  @Override
  public void deleteRecords(String namespace, String name) {
    records.deleteAll(namespace, name);
  }

  /**
   * {@inheritDoc} As {@link #acquireLease(String, String, String, String, Instant, Duration)} with
   * no intent: the Lease then names none, also when it is taken over or taken again.
   */
  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    return acquireLease(namespace, name, holder, null, now, ttl);
  }

  /**
   * {@inheritDoc} {@code true}: the intent is the Lease's annotation {@code
   * capstan.dev/lease-intent}, kept by renewals and deleted with the Lease when it is given up.
   */
  @Override
  public boolean keepsLeaseIntents() {
    return true;
  }

  /**
   * {@inheritDoc} One CREATE of the Lease when the release is free (it has none), the intent among
   * its annotations; else the CREATE refused, a GET and an UPDATE (compare-and-set) that sets the
   * annotation to the intent or removes it, and hands over the one it replaced when the Lease was
   * another holder's and expired.
   *
   * @throws IllegalArgumentException if {@code intent} is longer than {@link #MAX_LEASE_INTENT}
   *     characters (nothing is sent)
   */
  @Override
  public LeaseGrant acquireLease(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    return leases.acquire(namespace, name, holder, intent, now, ttl);
  }

  /** {@inheritDoc} One GET of the Lease; the intent is its annotation. */
  @Override
  public Optional<HeldLease> heldLease(String namespace, String name) {
    return leases.held(namespace, name);
  }

  /**
   * {@inheritDoc} One UPDATE of the Lease on the resourceVersion of the holder's last write, its
   * annotations (the intent) as that write left them (a GET first only when this store did not make
   * that write); when it is refused, a GET names who holds the Lease now. They are counted as
   * background requests ({@link RequestCounter#backgroundCounts()}): how many renewals an operation
   * makes depends on its duration.
   */
  @Override
  public String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    return requests.background(() -> leases.renew(namespace, name, holder, version, now, ttl));
  }

  /**
   * {@inheritDoc} {@code true}: a request is a Lease of its own beside the release's ({@code
   * capstan.yield.v1.<name>}), never the release's Lease.
   */
  @Override
  public boolean carriesYieldRequests() {
    return true;
  }

  /** {@inheritDoc} One CREATE of the request Lease (a GET and an UPDATE when one exists). */
  @Override
  public void requestYield(
      String namespace, String name, String holder, String requester, Instant at) {
    yieldRequests.request(namespace, name, holder, requester, at);
  }

  /**
   * {@inheritDoc} One GET of the request Lease, counted as a background request ({@link
   * RequestCounter#backgroundCounts()}): how often a holder asks depends on how long it waits.
   */
  @Override
  public Optional<String> yieldRequested(String namespace, String name, String holder) {
    return requests.background(() -> yieldRequests.requested(namespace, name, holder));
  }

  /** {@inheritDoc} One GET, and a conditioned DELETE when the request is still the requester's. */
  @Override
  public void withdrawYieldRequest(String namespace, String name, String requester) {
    yieldRequests.withdraw(namespace, name, requester);
  }

  /**
   * {@inheritDoc} One DELETE of the Lease, its intent with it, conditioned on the uid and
   * resourceVersion of the holder's last write of it (so the next operation takes it with one
   * CREATE); when the Lease was written since, a GET and such a DELETE only if it is still the
   * holder's.
   */
  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    leases.release(namespace, name, holder, forget);
  }
}
