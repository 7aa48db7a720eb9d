package dev.capstan.release;

import dev.capstan.release.model.Release;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A {@link Store} that passes every call to another one: a test overrides only the calls it steps
 * into (to race another cast, or to hold a renewal halfway). It keeps no lease intents ({@link
 * Store#keepsLeaseIntents()} is not passed on): a cast over it records {@code PENDING} first.
 */
class ForwardingStore implements Store {
  private final Store delegate;

  ForwardingStore(Store delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    return delegate.latestRecord(namespace, name);
  }

  @Override
  public List<StoredRelease> records(String namespace, String name) {
    return delegate.records(namespace, name);
  }

  @Override
  public List<RecordEntry> recordEntries(String namespace, String name) {
    return delegate.recordEntries(namespace, name);
  }

  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    return delegate.latestRecords(namespace);
  }

  @Override
  public List<StoredRelease> latestRecordsInAllNamespaces() {
    return delegate.latestRecordsInAllNamespaces();
  }

  @Override
  public StoredRelease createRecord(Release release) {
    return delegate.createRecord(release);
  }

  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    return delegate.updateRecord(release, expectedVersion);
  }

  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    delegate.deleteRecord(namespace, name, revision);
  }

  @Override
  public void deleteRecords(String namespace, String name) {
    delegate.deleteRecords(namespace, name);
  }

  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    return delegate.acquireLease(namespace, name, holder, now, ttl);
  }

  @Override
  public Optional<HeldLease> heldLease(String namespace, String name) {
    return delegate.heldLease(namespace, name);
  }

  @Override
  public String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    return delegate.renewLease(namespace, name, holder, version, now, ttl);
  }

  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    delegate.releaseLease(namespace, name, holder, forget);
  }
}
