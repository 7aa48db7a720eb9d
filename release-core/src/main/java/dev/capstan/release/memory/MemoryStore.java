package dev.capstan.release.memory;

import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Release;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Store} half of an {@link InMemoryCluster}: its records and leases ({@link
 * MemoryRecords}) as the port and the tests see them. Not API on its own: {@link InMemoryCluster}
 * is the one class that extends it, and its methods are the cluster's. Guarded by the cluster's
 * monitor, as the cluster's other halves are.
 */
abstract sealed class MemoryStore implements Store permits InMemoryCluster {
  final Calls calls = new Calls(this);
  final MemoryRecords records = new MemoryRecords(this, calls, this::namespaceExists);

  /** A request to yield a release's lease: the holder asked, and who asks. */
  private record YieldRequest(String holder, String requester) {}

  /** The requests to yield a release's lease, by release ({@code namespace/name}). */
  private final Map<String, YieldRequest> yieldRequests = new java.util.HashMap<>();

  MemoryStore() {}

  /** Whether the cluster has {@code namespace}: a release's lease lives there. */
  abstract boolean namespaceExists(String namespace);

  /** The stored lease of a release, if any. */
  public synchronized Optional<Lease> lease(String namespace, String name) {
    return records.lease(namespace, name);
  }

  /** The intent the stored lease of a release names ({@link Store#keepsLeaseIntents()}), if any. */
  public synchronized Optional<String> leaseIntent(String namespace, String name) {
    return records.leaseIntent(namespace, name);
  }

  /** The number of stored record revisions of a release. */
  public synchronized int recordCount(String namespace, String name) {
    return records.recordCount(namespace, name);
  }

  /** The stored bytes of one record revision (the shared codec's encoding). */
  public synchronized Optional<byte[]> recordBytes(String namespace, String name, int revision) {
    return records.recordBytes(namespace, name, revision);
  }

  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    return records.latestRecord(namespace, name);
  }

  @Override
  public List<StoredRelease> records(String namespace, String name) {
    return records.records(namespace, name);
  }

  /** {@inheritDoc} One read, logged {@code record:read:NS/{A,B}} (the names sorted). */
  @Override
  public Map<String, List<RecordEntry>> recordEntries(String namespace, Set<String> names) {
    return records.recordEntries(namespace, names);
  }

  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    return records.latestRecords(namespace);
  }

  @Override
  public List<StoredRelease> latestRecordsInAllNamespaces() {
    return records.latestRecordsInAllNamespaces();
  }

  @Override
  public StoredRelease createRecord(Release release) {
    return records.createRecord(release);
  }

  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    return records.updateRecord(release, expectedVersion);
  }

  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    records.deleteRecord(namespace, name, revision);
  }

  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    return records.acquireLease(namespace, name, holder, null, now, ttl);
  }

  /** {@inheritDoc} The in-memory cluster keeps them, and its state file too. */
  @Override
  public boolean keepsLeaseIntents() {
    return true;
  }

  @Override
  public LeaseGrant acquireLease(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    return records.acquireLease(namespace, name, holder, intent, now, ttl);
  }

  @Override
  public synchronized Optional<HeldLease> heldLease(String namespace, String name) {
    return records
        .lease(namespace, name)
        .map(l -> new HeldLease(l, records.leaseIntent(namespace, name).orElse(null)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Conditioned on the version of the holder's last write, not on the expiry: a lease that
   * lapsed without anyone taking it is renewed.
   */
  @Override
  public String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    return records.renewLease(namespace, name, holder, version, now, ttl);
  }

  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    records.releaseLease(namespace, name, holder, forget);
  }

  /** {@inheritDoc} The in-memory cluster does, within its process (not in its state file). */
  @Override
  public boolean carriesYieldRequests() {
    return true;
  }

  @Override
  public synchronized void requestYield(
      String namespace, String name, String holder, String requester, Instant at) {
    yieldRequests.put(namespace + "/" + name, new YieldRequest(holder, requester));
  }

  @Override
  public synchronized Optional<String> yieldRequested(
      String namespace, String name, String holder) {
    YieldRequest request = yieldRequests.get(namespace + "/" + name);
    return request != null && request.holder().equals(holder)
        ? Optional.of(request.requester())
        : Optional.empty();
  }

  @Override
  public synchronized void withdrawYieldRequest(String namespace, String name, String requester) {
    YieldRequest request = yieldRequests.get(namespace + "/" + name);
    if (request != null && request.requester().equals(requester)) {
      yieldRequests.remove(namespace + "/" + name);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@code true}: as a Kubernetes store does, the in-memory cluster keeps a release's records
   * and lease in its namespace, and refuses the lease of a release whose namespace does not exist
   * (404).
   */
  @Override
  public boolean recordsInNamespace() {
    return true;
  }
}
