package dev.capstan.release.memory;

import dev.capstan.common.ClusterException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Release;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The {@link dev.capstan.release.port.Store} half of an {@link InMemoryCluster}: release records
 * (the codec's bytes, decoded once) and operation leases. Guarded by the cluster's monitor.
 */
final class MemoryRecords {
  private final Object lock;
  private final Calls calls;
  private final Predicate<String> namespaceExists;

  final Map<String, NavigableMap<Integer, StoredRecord>> records = new HashMap<>();
  final Map<String, Lease> leases = new HashMap<>();

  /** The intent each held lease names, when it names one. */
  final Map<String, String> leaseIntents = new HashMap<>();

  /** When each lease was last taken or renewed (for the "locked" message). */
  final Map<String, Instant> renewed = new HashMap<>();

  /**
   * The version of each lease as last written: a number no earlier write of any lease had, so a
   * lease given up and taken again never repeats a version a stalled holder remembers.
   */
  final Map<String, Long> leaseVersions = new HashMap<>();

  long leaseWrites;
  long versions;

  /** {@code namespaceExists} is asked with the lock held. */
  MemoryRecords(Object lock, Calls calls, Predicate<String> namespaceExists) {
    this.lock = lock;
    this.calls = calls;
    this.namespaceExists = namespaceExists;
  }

  /** Replaces the stored lease of a release, naming no intent; the caller holds the lock. */
  void putLease(String namespace, String name, Lease lease) {
    leases.put(namespace + "/" + name, lease);
    leaseIntents.remove(namespace + "/" + name);
    renewed.put(namespace + "/" + name, lease.acquiredAt());
    leaseVersions.put(namespace + "/" + name, ++leaseWrites);
  }

  /** The stored lease of a release; the caller holds the lock. */
  Optional<Lease> lease(String namespace, String name) {
    return Optional.ofNullable(leases.get(namespace + "/" + name));
  }

  /** The intent the stored lease of a release names; the caller holds the lock. */
  Optional<String> leaseIntent(String namespace, String name) {
    return Optional.ofNullable(leaseIntents.get(namespace + "/" + name));
  }

  /** The number of stored revisions of a release; the caller holds the lock. */
  int recordCount(String namespace, String name) {
    NavigableMap<Integer, StoredRecord> revs = records.get(namespace + "/" + name);
    return revs == null ? 0 : revs.size();
  }

  /** The stored bytes of one revision; the caller holds the lock. */
  Optional<byte[]> recordBytes(String namespace, String name, int revision) {
    NavigableMap<Integer, StoredRecord> revs = records.get(namespace + "/" + name);
    StoredRecord e = revs == null ? null : revs.get(revision);
    return e == null ? Optional.empty() : Optional.of(e.bytes.clone());
  }

  Optional<StoredRelease> latestRecord(String namespace, String name) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.RECORD_READ, key);
    Optional<StoredRelease> result;
    synchronized (lock) {
      calls.log("record:read:" + key);
      NavigableMap<Integer, StoredRecord> revs = records.get(key);
      result =
          revs == null || revs.isEmpty()
              ? Optional.empty()
              : Optional.of(revs.lastEntry().getValue().decode());
    }
    Calls.crashIf(crash, Operation.RECORD_READ, key);
    return result;
  }

  List<StoredRelease> records(String namespace, String name) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.RECORD_READ, key);
    List<StoredRelease> result = new ArrayList<>();
    synchronized (lock) {
      calls.log("record:read:" + key);
      NavigableMap<Integer, StoredRecord> revs = records.get(key);
      if (revs != null) {
        revs.descendingMap().values().forEach(e -> result.add(e.decode()));
      }
    }
    Calls.crashIf(crash, Operation.RECORD_READ, key);
    return result;
  }

  /**
   * Every revision of each of {@code names}, by name, in one read ({@code record:read:NS/{A,B}}).
   */
  Map<String, List<RecordEntry>> recordEntries(String namespace, Set<String> names) {
    SortedSet<String> sorted = new TreeSet<>(names);
    String key = namespace + "/{" + String.join(",", sorted) + "}";
    boolean crash = calls.enter(Operation.RECORD_READ, key);
    Map<String, List<RecordEntry>> result = new TreeMap<>();
    synchronized (lock) {
      calls.log("record:read:" + key);
      for (String name : sorted) {
        NavigableMap<Integer, StoredRecord> revs = records.get(namespace + "/" + name);
        if (revs != null && !revs.isEmpty()) {
          List<RecordEntry> entries = new ArrayList<>();
          revs.descendingMap().values().forEach(e -> entries.add(RecordEntry.of(e.decode())));
          result.put(name, List.copyOf(entries));
        }
      }
    }
    Calls.crashIf(crash, Operation.RECORD_READ, key);
    return result;
  }

  List<StoredRelease> latestRecords(String namespace) {
    boolean crash = calls.enter(Operation.RECORD_READ, namespace);
    List<StoredRelease> result = new ArrayList<>();
    synchronized (lock) {
      calls.log("record:read:" + namespace);
      new TreeMap<>(records)
          .forEach(
              (key, revs) -> {
                if (key.startsWith(namespace + "/") && !revs.isEmpty()) {
                  result.add(revs.lastEntry().getValue().decode());
                }
              });
    }
    Calls.crashIf(crash, Operation.RECORD_READ, namespace);
    return result;
  }

  List<StoredRelease> latestRecordsInAllNamespaces() {
    boolean crash = calls.enter(Operation.RECORD_READ, "*");
    List<StoredRelease> result = new ArrayList<>();
    synchronized (lock) {
      calls.log("record:read:*");
      records.forEach(
          (key, revs) -> {
            if (!revs.isEmpty()) {
              result.add(revs.lastEntry().getValue().decode());
            }
          });
    }
    Calls.crashIf(crash, Operation.RECORD_READ, "*");
    result.sort(StoredRelease.BY_NAMESPACE_AND_NAME);
    return result;
  }

  StoredRelease createRecord(Release release) {
    String key = release.qualifiedName();
    boolean crash = calls.enter(Operation.RECORD_CREATE, key);
    StoredRelease stored;
    synchronized (lock) {
      calls.log("record:create:" + key + "#" + release.revision() + ":" + release.status().id());
      NavigableMap<Integer, StoredRecord> revs = records.computeIfAbsent(key, k -> new TreeMap<>());
      if (revs.containsKey(release.revision())) {
        throw new StaleRecordException(key, release.revision(), "the revision already exists");
      }
      StoredRecord e = new StoredRecord(ReleaseRecordCodec.encode(release), release, ++versions);
      revs.put(release.revision(), e);
      stored = new StoredRelease(release, Long.toString(e.version));
    }
    Calls.crashIf(crash, Operation.RECORD_CREATE, key);
    return stored;
  }

  StoredRelease updateRecord(Release release, String expectedVersion) {
    String key = release.qualifiedName();
    boolean crash = calls.enter(Operation.RECORD_UPDATE, key);
    StoredRelease stored;
    synchronized (lock) {
      calls.log("record:update:" + key + "#" + release.revision() + ":" + release.status().id());
      NavigableMap<Integer, StoredRecord> revs = records.get(key);
      StoredRecord current = revs == null ? null : revs.get(release.revision());
      if (revs == null || current == null) {
        throw new StaleRecordException(key, release.revision(), "the revision does not exist");
      }
      if (!Long.toString(current.version).equals(expectedVersion)) {
        throw new StaleRecordException(
            key,
            release.revision(),
            "expected version " + expectedVersion + ", found " + current.version);
      }
      StoredRecord e = new StoredRecord(ReleaseRecordCodec.encode(release), release, ++versions);
      revs.put(release.revision(), e);
      stored = new StoredRelease(release, Long.toString(e.version));
    }
    Calls.crashIf(crash, Operation.RECORD_UPDATE, key);
    return stored;
  }

  void deleteRecord(String namespace, String name, int revision) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.RECORD_DELETE, key);
    synchronized (lock) {
      calls.log("record:delete:" + key + "#" + revision);
      NavigableMap<Integer, StoredRecord> revs = records.get(key);
      if (revs != null) {
        revs.remove(revision);
        if (revs.isEmpty()) {
          records.remove(key);
        }
      }
    }
    Calls.crashIf(crash, Operation.RECORD_DELETE, key);
  }

  LeaseGrant acquireLease(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.LEASE_ACQUIRE, key);
    LeaseGrant grant;
    synchronized (lock) {
      calls.log("lease:acquire:" + key);
      if (!namespaceExists.test(namespace)) {
        // as on Kubernetes, where the lease (and the records) live in the release's namespace
        throw new ClusterException(
            "create",
            "coordination.k8s.io/Lease",
            namespace,
            name,
            404,
            "namespaces \"" + namespace + "\" not found",
            null);
      }
      Lease current = leases.get(key);
      Lease takenOver = null;
      if (current != null && !current.holder().equals(holder) && !current.expiredAt(now)) {
        throw new ReleaseLockedException(
            key,
            current.holder(),
            renewed.getOrDefault(key, current.acquiredAt()),
            current.expiresAt(),
            now);
      }
      if (current != null && (!current.holder().equals(holder) || current.expiredAt(now))) {
        // another holder's expired lease, or this holder's own left expired by an operation that
        // stopped without giving it up: its intent is handed over
        takenOver = current;
      }
      String takenOverIntent = takenOver == null ? null : leaseIntents.get(key);
      Lease lease = new Lease(holder, now, now.plus(ttl));
      leases.put(key, lease);
      if (intent == null) {
        leaseIntents.remove(key);
      } else {
        leaseIntents.put(key, intent);
      }
      renewed.put(key, now);
      long version = ++leaseWrites;
      leaseVersions.put(key, version);
      grant = new LeaseGrant(lease, takenOver, false, Long.toString(version), takenOverIntent);
    }
    Calls.crashIf(crash, Operation.LEASE_ACQUIRE, key);
    return grant;
  }

  /**
   * Conditioned on the version of the holder's last write, not on the expiry: a lease that lapsed
   * without anyone taking it is renewed.
   */
  String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.LEASE_RENEW, key);
    long next;
    synchronized (lock) {
      calls.log("lease:renew:" + key);
      Lease current = leases.get(key);
      if (current == null
          || !current.holder().equals(holder)
          || !Long.toString(leaseVersions.getOrDefault(key, 0L)).equals(version)) {
        throw new ReleaseLockedException(
            key,
            current == null ? "nobody" : current.holder(),
            current == null ? now : current.expiresAt());
      }
      leases.put(key, new Lease(holder, current.acquiredAt(), now.plus(ttl)));
      renewed.put(key, now);
      next = ++leaseWrites;
      leaseVersions.put(key, next);
    }
    Calls.crashIf(crash, Operation.LEASE_RENEW, key);
    return Long.toString(next);
  }

  void releaseLease(String namespace, String name, String holder, boolean forget) {
    String key = namespace + "/" + name;
    boolean crash = calls.enter(Operation.LEASE_RELEASE, key);
    synchronized (lock) {
      calls.log("lease:release:" + key);
      Lease current = leases.get(key);
      if (current != null && current.holder().equals(holder)) {
        leases.remove(key);
        leaseIntents.remove(key);
        leaseVersions.remove(key);
      }
    }
    Calls.crashIf(crash, Operation.LEASE_RELEASE, key);
  }
}
