package dev.capstan.controller;

import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Leases in a map, with the API server's rules for them: a CREATE of an existing Lease is refused
 * with 409, a replace on another resourceVersion with 409, one of a missing Lease with 404; every
 * write gets a new resourceVersion. Callers get copies, never the stored object.
 *
 * <p>Records each request in a shared log as {@code GET}, {@code CREATE <holder>} or {@code REPLACE
 * <holder>} ({@code -} for none), with {@code (HTTP n)} appended when it was refused. A test makes
 * requests fail with {@link #failNext}, and lets another writer in between a read and a write with
 * {@link #beforeNextWrite}; {@link #put} and {@link #delete} change the Lease behind the elector's
 * back. Thread-safe.
 */
final class InMemoryLeaseApi implements LeaseApi {
  private final List<String> log;
  private final Map<String, V1Lease> stored = new HashMap<>();
  private final Deque<Integer> failures = new ArrayDeque<>();
  private @Nullable Runnable beforeNextWrite;
  private long versions;

  /** Leases logging into {@code log}, which a recording listener may share. */
  InMemoryLeaseApi(List<String> log) {
    this.log = log;
  }

  /**
   * Makes the next requests fail, one status each: an HTTP status, or 0 for a request that got no
   * response.
   */
  synchronized void failNext(Integer... statuses) {
    failures.addAll(List.of(statuses));
  }

  /** Runs {@code action} once, just before the next CREATE or REPLACE is applied. */
  synchronized void beforeNextWrite(Runnable action) {
    this.beforeNextWrite = action;
  }

  /** Stores {@code lease} as if another writer wrote it (a new resourceVersion), unlogged. */
  synchronized V1Lease put(String namespace, V1Lease lease) {
    V1Lease copy = copy(lease);
    V1ObjectMeta meta = Objects.requireNonNull(copy.getMetadata());
    meta.namespace(namespace).uid("uid-" + meta.getName()).resourceVersion(nextVersion());
    stored.put(key(namespace, meta.getName()), copy);
    return copy(copy);
  }

  /** Deletes the Lease, unlogged. */
  synchronized void delete(String namespace, String name) {
    stored.remove(key(namespace, name));
  }

  /** The Lease as stored, or {@code null}. */
  synchronized @Nullable V1Lease lease(String namespace, String name) {
    V1Lease lease = stored.get(key(namespace, name));
    return lease == null ? null : copy(lease);
  }

  @Override
  public synchronized @Nullable V1Lease get(String namespace, String name) {
    failIfAsked("get", "GET", namespace, name);
    log.add("GET");
    return lease(namespace, name);
  }

  @Override
  public V1Lease create(String namespace, V1Lease lease) {
    String name = Objects.requireNonNull(lease.getMetadata().getName());
    String request = "CREATE " + holder(lease);
    runBeforeWrite();
    synchronized (this) {
      failIfAsked("create", request, namespace, name);
      if (stored.containsKey(key(namespace, name))) {
        throw refused("create", request, namespace, name, 409, "already exists");
      }
      log.add(request);
      return put(namespace, lease);
    }
  }

  @Override
  public V1Lease replace(String namespace, String name, V1Lease lease) {
    String request = "REPLACE " + holder(lease);
    runBeforeWrite();
    synchronized (this) {
      failIfAsked("replace", request, namespace, name);
      V1Lease current = stored.get(key(namespace, name));
      if (current == null) {
        throw refused("replace", request, namespace, name, 404, "not found");
      }
      String expected = current.getMetadata().getResourceVersion();
      if (!expected.equals(lease.getMetadata().getResourceVersion())) {
        throw refused("replace", request, namespace, name, 409, "the object has been modified");
      }
      log.add(request);
      V1Lease copy = copy(lease);
      copy.getMetadata().uid(current.getMetadata().getUid()).resourceVersion(nextVersion());
      stored.put(key(namespace, name), copy);
      return copy(copy);
    }
  }

  private void runBeforeWrite() {
    Runnable action;
    synchronized (this) {
      action = beforeNextWrite;
      beforeNextWrite = null;
    }
    if (action != null) {
      action.run();
    }
  }

  private void failIfAsked(String operation, String request, String namespace, String name) {
    Integer status = failures.poll();
    if (status != null) {
      throw refused(operation, request, namespace, name, status, "injected");
    }
  }

  private ClusterException refused(
      String operation, String request, String namespace, String name, int status, String why) {
    log.add(request + " (HTTP " + status + ")");
    return new ClusterException(
        operation,
        "Lease",
        namespace,
        name,
        status,
        status == 0 ? "no response: injected" : why,
        null);
  }

  private String nextVersion() {
    return Long.toString(++versions);
  }

  private static String holder(V1Lease lease) {
    String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    return holder == null ? "-" : holder;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static V1Lease copy(V1Lease lease) {
    return JSON.deserialize(JSON.serialize(lease), V1Lease.class);
  }
}
