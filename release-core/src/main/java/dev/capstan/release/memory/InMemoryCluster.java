package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.CrdGate;
import dev.capstan.release.ReleaseLockedException;
import dev.capstan.release.StaleRecordException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.internal.Json;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A whole cluster in memory: implements both {@link Orchestrator} and {@link Store}, for host
 * applications' tests and for demos. Thread-safe.
 *
 * <p>Beyond the ports it offers what tests need:
 *
 * <ul>
 *   <li>{@link #faults()}: fail the Nth call of an operation, fail a target, add latency, crash
 *       after a call;
 *   <li>changes behind the engine's back: {@link #edit}, {@link #deleteOutOfBand}, {@link #put};
 *   <li>any kind of object; custom kinds once their CRD is applied or {@link #serve served};
 *   <li>workloads that never become healthy: {@link #neverReady(String, String)};
 *   <li>inspection: {@link #object}, {@link #stamp}, {@link #objects()}, and an operation log
 *       ({@link #operations()}, {@link #writes()}) such as {@code apply:Secret/default/creds},
 *       {@code verify}, {@code delete:apps/Deployment/default/web}.
 * </ul>
 *
 * <p>A new cluster has the namespace {@code default} and the storage class {@code standard}.
 * Records are encoded with {@link ReleaseRecordCodec}, exactly as other stores encode them (so a
 * record the codec cannot carry fails here too); reads return the record decoded once.
 */
public final class InMemoryCluster implements Orchestrator, Store {
  private static final String STATE_FORMAT = "capstan.dev/in-memory-cluster.v2";

  private final FaultPlan faults = new FaultPlan();
  private final Map<ResourceRef, StoredObject> objects = new HashMap<>();
  private final Set<String> namespaces = new TreeSet<>();
  private final Set<String> storageClasses = new TreeSet<>();
  private final Map<String, Kind> servedKinds = new HashMap<>();
  private final Map<String, String> neverReady = new HashMap<>();
  private final Map<String, NavigableMap<Integer, Encoded>> records = new HashMap<>();
  private final Map<String, Lease> leases = new HashMap<>();

  /**
   * The {@code status.storedVersions} of each CRD: every storage version it was applied with, as
   * the API server keeps them (they are never removed by an apply).
   */
  private final Map<ResourceRef, List<String>> storedVersions = new HashMap<>();

  /** When each lease was last taken or renewed (for the "locked" message). */
  private final Map<String, Instant> renewed = new HashMap<>();

  /**
   * The version of each lease as last written: a number no earlier write of any lease had, so a
   * lease given up and taken again never repeats a version a stalled holder remembers.
   */
  private final Map<String, Long> leaseVersions = new HashMap<>();

  private long leaseWrites;

  private final List<String> log = new ArrayList<>();
  private final Map<Operation, Integer> counts = new EnumMap<>(Operation.class);
  private long versions;
  private long objectWrites;

  private InMemoryCluster() {
    namespaces.add("default");
    storageClasses.add("standard");
  }

  /** An empty cluster with namespace {@code default} and storage class {@code standard}. */
  public static InMemoryCluster create() {
    return new InMemoryCluster();
  }

  /** The fault plan; add rules to it to make operations fail, slow down or crash. */
  public FaultPlan faults() {
    return faults;
  }

  // ---------------------------------------------------------------- behind the engine's back

  /** Creates a storage class. */
  public synchronized InMemoryCluster createStorageClass(String name) {
    storageClasses.add(ResourceRef.storageClass(name).name());
    return this;
  }

  /** Creates a namespace (without logging it as an engine operation). */
  public synchronized InMemoryCluster addNamespace(String name) {
    namespaces.add(ResourceRef.namespace(name).name());
    return this;
  }

  /**
   * Serves a custom kind, as if its CRD had been installed by someone else. Every built-in kind is
   * served, and so is the kind of every CustomResourceDefinition applied to this cluster.
   */
  public synchronized InMemoryCluster serve(Kind kind) {
    servedKinds.put(kind.key(), requireNonNull(kind, "kind"));
    return this;
  }

  /** Puts the objects of an item unowned, as if someone created them by hand. */
  public InMemoryCluster put(ResourceSpec spec) {
    return put(spec, null);
  }

  /** Puts the objects of an item with the given stamp (or none), as if another tool wrote it. */
  public synchronized InMemoryCluster put(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    for (Manifest object : spec.render()) {
      String hash = ContentHash.of(object);
      store(object.ref(), object, stamp, hash, hash, object);
      learnKind(object);
    }
    return this;
  }

  /**
   * Changes an object's content, keeping its stamp, as an out-of-band edit would (another writer: a
   * person, a controller). Drift is told by what was applied: a field the edit changes or removes
   * that the last stamped write set with a value is drift; a field it fills in that that write did
   * not set, or set to an empty map or list, is not.
   */
  public synchronized InMemoryCluster edit(ResourceRef ref, UnaryOperator<Manifest> change) {
    StoredObject current = objects.get(ref);
    if (current == null) {
      throw new IllegalArgumentException("no object " + ref.key() + " to edit");
    }
    Manifest changed = requireNonNull(change.apply(current.content), "edited object");
    if (!changed.ref().equals(ref)) {
      throw new IllegalArgumentException("an edit must keep the ref " + ref.key());
    }
    store(
        ref, changed, current.stamp, ContentHash.of(changed), current.appliedHash, current.applied);
    return this;
  }

  /**
   * Sets a CustomResourceDefinition's {@code status.storedVersions}, as the status patch that ends
   * a storage migration would (its objects written again at the versions kept).
   */
  public synchronized InMemoryCluster storedVersions(ResourceRef crd, List<String> versions) {
    if (!crd.kind().isCrd() || !objects.containsKey(crd)) {
      throw new IllegalArgumentException("no CustomResourceDefinition " + crd.key());
    }
    storedVersions.put(crd, List.copyOf(versions));
    return this;
  }

  /** Deletes an object whoever owns it, as an out-of-band delete would. */
  public synchronized InMemoryCluster deleteOutOfBand(ResourceRef ref) {
    objects.remove(ref);
    storedVersions.remove(ref);
    return this;
  }

  /**
   * Makes every workload (and pod, and Job) whose pod template runs {@code image} fail its health
   * check with {@code reason}.
   */
  public synchronized InMemoryCluster neverReady(String image, String reason) {
    neverReady.put(requireNonNull(image, "image"), requireNonNull(reason, "reason"));
    return this;
  }

  /** Replaces the stored lease of a release, as a holder that died would leave it. */
  public synchronized InMemoryCluster putLease(String namespace, String name, Lease lease) {
    leases.put(namespace + "/" + name, requireNonNull(lease, "lease"));
    renewed.put(namespace + "/" + name, lease.acquiredAt());
    leaseVersions.put(namespace + "/" + name, ++leaseWrites);
    return this;
  }

  // ---------------------------------------------------------------- inspection

  /** The content of an object, if it exists. */
  public synchronized Optional<Manifest> object(ResourceRef ref) {
    StoredObject o = objects.get(ref);
    return o == null ? Optional.empty() : Optional.of(o.content);
  }

  /** The stamp of an object, if it exists and is stamped. */
  public synchronized Optional<OwnershipStamp> stamp(ResourceRef ref) {
    StoredObject o = objects.get(ref);
    return o == null ? Optional.empty() : Optional.ofNullable(o.stamp);
  }

  /** Every object, in apply order. */
  public synchronized List<ResourceRef> objects() {
    return objects.keySet().stream().sorted(ResourceRef.APPLY_ORDER).toList();
  }

  /** The namespaces. */
  public synchronized Set<String> namespaces() {
    return Set.copyOf(namespaces);
  }

  /** The stored lease of a release, if any. */
  public synchronized Optional<Lease> lease(String namespace, String name) {
    return Optional.ofNullable(leases.get(namespace + "/" + name));
  }

  /** The number of stored record revisions of a release. */
  public synchronized int recordCount(String namespace, String name) {
    NavigableMap<Integer, Encoded> revs = records.get(namespace + "/" + name);
    return revs == null ? 0 : revs.size();
  }

  /** The stored bytes of one record revision (the shared codec's encoding). */
  public synchronized Optional<byte[]> recordBytes(String namespace, String name, int revision) {
    NavigableMap<Integer, Encoded> revs = records.get(namespace + "/" + name);
    Encoded e = revs == null ? null : revs.get(revision);
    return e == null ? Optional.empty() : Optional.of(e.bytes.clone());
  }

  /**
   * Every operation since creation or {@link #clearOperations()}, in order: {@code
   * observe:apps/Deployment/default} (kind and namespace), {@code apply:KEY}, {@code dry-run:KEY},
   * {@code delete:KEY}, {@code unstamp:KEY}, {@code verify}, {@code namespace:NAME}, {@code
   * record:create:NS/NAME#REV:STATUS}, {@code record:update:NS/NAME#REV:STATUS}, {@code
   * record:delete:NS/NAME#REV}, {@code record:read:NS/NAME}, {@code lease:acquire:NS/NAME}, {@code
   * lease:renew:NS/NAME}, {@code lease:release:NS/NAME}.
   */
  public synchronized List<String> operations() {
    return List.copyOf(log);
  }

  /**
   * The operations that wrote objects or verified services, in order (no reads, records, leases).
   */
  public synchronized List<String> writes() {
    return log.stream()
        .filter(
            op ->
                op.startsWith("apply:")
                    || op.startsWith("delete:")
                    || op.startsWith("unstamp:")
                    || op.startsWith("namespace:")
                    || op.equals("verify"))
        .toList();
  }

  /** How many calls of each operation were made (every operation present). */
  public synchronized Map<Operation, Integer> counts() {
    Map<Operation, Integer> copy = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      copy.put(op, counts.getOrDefault(op, 0));
    }
    return copy;
  }

  /** Forgets the operation log and counts. */
  public synchronized void clearOperations() {
    log.clear();
    counts.clear();
  }

  // ---------------------------------------------------------------- persistence

  /**
   * The cluster's state as JSON: objects with their stamps, namespaces, storage classes, served
   * custom kinds, records (the codec's bytes), leases and never-ready images. Faults and the
   * operation log are not included. Records and secret objects hold secret values: keep the bytes
   * as private as the secrets themselves.
   */
  public synchronized byte[] exportState() {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("format", STATE_FORMAT);
    root.set("namespaces", Json.mapper().valueToTree(namespaces));
    root.set("storageClasses", Json.mapper().valueToTree(storageClasses));
    root.set("neverReady", Json.mapper().valueToTree(neverReady));
    ArrayNode kinds = root.putArray("servedKinds");
    new TreeMap<>(servedKinds)
        .values()
        .forEach(
            k -> {
              ObjectNode node = kinds.addObject();
              node.put("apiVersion", k.apiVersion());
              node.put("kind", k.kind());
              node.put("namespaced", k.namespaced());
            });
    ArrayNode objs = root.putArray("objects");
    TreeMap<ResourceRef, StoredObject> sorted = new TreeMap<>(ResourceRef.APPLY_ORDER);
    sorted.putAll(objects);
    for (StoredObject o : sorted.values()) {
      ObjectNode node = objs.addObject();
      node.set("object", Json.mapper().valueToTree(o.content.content()));
      if (o.stamp != null) {
        node.set("stamp", Json.mapper().valueToTree(o.stamp));
      }
      List<String> stored = storedVersions.get(o.content.ref());
      if (stored != null) {
        node.set("storedVersions", Json.mapper().valueToTree(stored));
      }
      if (!o.appliedHash.equals(o.hash)) {
        if (o.applied != null) {
          node.set("applied", Json.mapper().valueToTree(o.applied.content()));
        } else {
          node.put("appliedHash", o.appliedHash);
        }
      }
    }
    ObjectNode recs = root.putObject("records");
    new TreeMap<>(records)
        .forEach(
            (key, revs) -> {
              ObjectNode byRev = recs.putObject(key);
              revs.forEach(
                  (rev, e) ->
                      byRev.put(
                          Integer.toString(rev), Base64.getEncoder().encodeToString(e.bytes)));
            });
    root.set("leases", Json.mapper().valueToTree(new TreeMap<>(leases)));
    return Json.canonical(root);
  }

  /**
   * A cluster holding a state made by {@link #exportState()}.
   *
   * @throws IllegalArgumentException if the bytes are not such a state
   */
  public static InMemoryCluster importState(byte[] state) {
    InMemoryCluster c = new InMemoryCluster();
    try {
      JsonNode root = Json.mapper().readTree(state);
      if (root == null || !STATE_FORMAT.equals(root.path("format").asText())) {
        throw new IllegalArgumentException(
            "in-memory cluster state must have format "
                + STATE_FORMAT
                + " (a state written by an older Capstan cannot be read; remove it to start anew)");
      }
      c.namespaces.clear();
      root.path("namespaces").forEach(n -> c.namespaces.add(n.asText()));
      c.storageClasses.clear();
      root.path("storageClasses").forEach(n -> c.storageClasses.add(n.asText()));
      for (Map.Entry<String, JsonNode> e : root.path("neverReady").properties()) {
        c.neverReady.put(e.getKey(), e.getValue().asText());
      }
      for (JsonNode k : root.path("servedKinds")) {
        c.serve(
            Kind.of(
                k.path("apiVersion").asText(),
                k.path("kind").asText(),
                k.path("namespaced").asBoolean()));
      }
      for (JsonNode node : root.path("objects")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = Json.mapper().treeToValue(node.get("object"), Map.class);
        Manifest spec = Manifest.of(tree);
        OwnershipStamp stamp =
            node.has("stamp")
                ? Json.mapper().treeToValue(node.get("stamp"), OwnershipStamp.class)
                : null;
        c.put(spec, stamp);
        if (node.get("storedVersions") instanceof ArrayNode stored) {
          List<String> versions = new ArrayList<>();
          stored.forEach(v -> versions.add(v.asText()));
          c.storedVersions.put(spec.ref(), List.copyOf(versions));
        }
        StoredObject o = requireNonNull(c.objects.get(spec.ref()));
        if (node.hasNonNull("applied")) {
          @SuppressWarnings("unchecked")
          Map<String, Object> appliedTree =
              Json.mapper().treeToValue(node.get("applied"), Map.class);
          Manifest applied = Manifest.of(appliedTree);
          c.objects.put(
              spec.ref(),
              new StoredObject(
                  o.content, o.stamp, o.hash, ContentHash.of(applied), applied, o.uid, o.version));
        } else {
          // a state from before the applied content was kept: drift by hash alone
          String appliedHash =
              node.hasNonNull("appliedHash")
                  ? node.get("appliedHash").asText()
                  : stamp != null && !ContentHash.isKeyed(stamp.contentHash())
                      ? stamp.contentHash()
                      : null;
          if (appliedHash != null) {
            c.objects.put(
                spec.ref(),
                new StoredObject(o.content, o.stamp, o.hash, appliedHash, null, o.uid, o.version));
          }
        }
      }
      for (Map.Entry<String, JsonNode> release : root.path("records").properties()) {
        NavigableMap<Integer, Encoded> revs = new TreeMap<>();
        for (Map.Entry<String, JsonNode> rev : release.getValue().properties()) {
          byte[] bytes = Base64.getDecoder().decode(rev.getValue().asText());
          revs.put(
              Integer.parseInt(rev.getKey()),
              new Encoded(bytes, ReleaseRecordCodec.decode(bytes), ++c.versions));
        }
        c.records.put(release.getKey(), revs);
      }
      for (Map.Entry<String, JsonNode> e : root.path("leases").properties()) {
        c.leases.put(e.getKey(), Json.mapper().treeToValue(e.getValue(), Lease.class));
        c.leaseVersions.put(e.getKey(), ++c.leaseWrites);
      }
    } catch (java.io.IOException | RuntimeException e) {
      throw new IllegalArgumentException("not an in-memory cluster state: " + e.getMessage(), e);
    }
    return c;
  }

  // ---------------------------------------------------------------- ports

  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    String target = kind.key() + "/" + namespace;
    boolean crash = enter(Operation.OBSERVE, target);
    List<LiveObject> found = new ArrayList<>();
    synchronized (this) {
      log.add("observe:" + target);
      for (String name : new TreeSet<>(names)) {
        ResourceRef ref = ResourceRef.of(kind, namespace, name);
        if (kind.equals(Kind.NAMESPACE)) {
          if (namespaces.contains(name)) {
            found.add(LiveObject.present(ref));
          }
        } else if (kind.equals(Kind.STORAGE_CLASS)) {
          if (storageClasses.contains(name)) {
            found.add(LiveObject.present(ref));
          }
        } else {
          StoredObject o = objects.get(ref);
          if (o != null) {
            String drift =
                o.stamp != null
                        && !o.appliedHash.equals(o.hash)
                        && (o.applied == null || !holds(o.content.content(), o.applied.content()))
                    ? "live content differs from what revision " + o.stamp.revision() + " applied"
                    : null;
            List<String> stored = storedVersions.get(ref);
            found.add(
                new LiveObject(
                    ref,
                    o.content,
                    o.stamp,
                    drift,
                    o.uid,
                    Long.toString(o.version),
                    stored == null ? null : Map.of("storedVersions", stored)));
          }
        }
      }
    }
    crashIf(crash, Operation.OBSERVE, target);
    return found;
  }

  /**
   * {@inheritDoc}
   *
   * <p>A write the precondition fences is logged {@code fenced:apply:KEY} (not a write) and fails
   * as the API server would: a create of an existing object with {@code already exists}, a write on
   * a changed object with {@code the object has been modified}, on a gone or re-created one with
   * {@code uid mismatch}.
   */
  @Override
  public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    String key = object.ref().key();
    boolean crash = enter(Operation.APPLY, key);
    synchronized (this) {
      String fenced = fenced(object.ref(), precondition, false);
      if (fenced != null) {
        log.add("fenced:apply:" + key);
        throw new PreconditionFailedException(
            precondition instanceof Precondition.Absent ? "create" : "apply",
            object.ref(),
            precondition,
            409,
            fenced,
            null);
      }
      log.add("apply:" + key);
      String hash = ContentHash.of(object);
      store(object.ref(), object, stamp, hash, hash, object);
      learnKind(object);
    }
    crashIf(crash, Operation.APPLY, key);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory an object is stored exactly as applied, so the result is {@code object}; the call
   * is logged as {@code dry-run:KEY} and changes nothing.
   */
  @Override
  public synchronized Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    log.add("dry-run:" + object.ref().key());
    return object;
  }

  /**
   * Why the object is not what {@code precondition} requires, as the API server says it, or {@code
   * null} when it is (or, with {@code goneIsFine}, when it is absent).
   */
  private @Nullable String fenced(ResourceRef ref, Precondition precondition, boolean goneIsFine) {
    StoredObject o = objects.get(ref);
    if (precondition instanceof Precondition.Absent) {
      return o == null ? null : ref.kind().kind() + " \"" + ref.name() + "\" already exists";
    }
    if (precondition instanceof Precondition.Observed expected) {
      if (o == null) {
        return goneIsFine
            ? null
            : "uid mismatch: the provided object specified uid "
                + expected.uid()
                + ", and no existing object was found";
      }
      if (!o.uid.equals(expected.uid())) {
        return "uid mismatch: the provided object specified uid "
            + expected.uid()
            + ", found "
            + o.uid;
      }
      if (!Long.toString(o.version).equals(expected.resourceVersion())) {
        return "the object has been modified; please apply your changes to the latest version and"
            + " try again";
      }
    }
    return null;
  }

  /** An applied CRD makes its kind served, and its storage version one of its stored versions. */
  private void learnKind(Manifest object) {
    Kind defined = object.kind().isCrd() ? Kind.definedBy(object.content()) : null;
    if (defined != null) {
      servedKinds.put(defined.key(), defined);
    }
    if (object.kind().isCrd() && object.content().get("spec") instanceof Map<?, ?> spec) {
      @SuppressWarnings("unchecked")
      Map<String, ?> tree = (Map<String, ?>) spec;
      List<String> stored = new ArrayList<>(storedVersions.getOrDefault(object.ref(), List.of()));
      for (String v : CrdGate.storageVersions(tree)) {
        if (!stored.contains(v)) {
          stored.add(v);
        }
      }
      storedVersions.put(object.ref(), List.copyOf(stored));
    }
  }

  @Override
  public synchronized Optional<String> checkKind(Kind kind) {
    if (kind.builtIn()) {
      return Optional.empty();
    }
    Kind served = servedKinds.get(kind.key());
    if (served == null) {
      return Optional.of("the cluster does not serve " + kind.key() + " (no such CRD installed)");
    }
    if (served.namespaced() != kind.namespaced()) {
      return Optional.of(
          "the cluster serves "
              + kind.key()
              + " as "
              + (served.namespaced() ? "namespaced" : "cluster-scoped")
              + ", but the release has it "
              + (kind.namespaced() ? "namespaced" : "cluster-scoped"));
    }
    return Optional.empty();
  }

  /**
   * {@inheritDoc}
   *
   * <p>A delete the precondition fences is logged {@code fenced:delete:KEY}; an absent object is
   * not deleted, with or without a precondition.
   */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    boolean crash = enter(Operation.DELETE, ref.key());
    boolean deleted;
    synchronized (this) {
      String fenced = fenced(ref, precondition, true);
      if (fenced != null) {
        log.add("fenced:delete:" + ref.key());
        throw new PreconditionFailedException("delete", ref, precondition, 409, fenced, null);
      }
      log.add("delete:" + ref.key());
      StoredObject o = objects.get(ref);
      deleted =
          o != null
              && (precondition instanceof Precondition.Observed
                  || (o.stamp != null && o.stamp.ownedBy(owner)));
      if (deleted) {
        objects.remove(ref);
        storedVersions.remove(ref);
      }
    }
    crashIf(crash, Operation.DELETE, ref.key());
    return deleted;
  }

  /**
   * {@inheritDoc}
   *
   * <p>An un-stamp the precondition fences is logged {@code fenced:unstamp:KEY}.
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    boolean crash = enter(Operation.UNSTAMP, ref.key());
    boolean done;
    synchronized (this) {
      String fenced = fenced(ref, precondition, false);
      if (fenced != null) {
        log.add("fenced:unstamp:" + ref.key());
        throw new PreconditionFailedException("unstamp", ref, precondition, 409, fenced, null);
      }
      log.add("unstamp:" + ref.key());
      StoredObject o = objects.get(ref);
      done = false;
      if (o != null && o.stamp != null && o.stamp.ownedBy(owner)) {
        store(ref, o.content, null, o.hash, o.appliedHash, o.applied);
        done = true;
      }
    }
    crashIf(crash, Operation.UNSTAMP, ref.key());
    return done;
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, a delete finishes at once: ready unless one of {@code objects} exists (deleted
   * and re-created since), logged {@code await-deleted}.
   */
  @Override
  public Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    boolean crash = enter(Operation.AWAIT_DELETED, "await-deleted");
    Readiness result;
    synchronized (this) {
      log.add("await-deleted");
      List<ResourceRef> present =
          objects.stream().filter(this.objects::containsKey).sorted().toList();
      result = present.isEmpty() ? Readiness.ready() : Readiness.timedOut(present, timeout);
    }
    crashIf(crash, Operation.AWAIT_DELETED, "await-deleted");
    return result;
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, an object is healthy once it exists, unless its pod template (containers or init
   * containers) runs an image made {@link #neverReady never ready}.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> objects, Duration timeout) {
    boolean crash = enter(Operation.AWAIT_READY, "verify");
    Readiness result = Readiness.ready();
    synchronized (this) {
      log.add("verify");
      for (ResourceRef ref : objects) {
        StoredObject o = this.objects.get(ref);
        if (o == null) {
          result = Readiness.failed(ref, "not found");
          break;
        }
        String reason = unhealthy(o.content);
        if (reason != null) {
          result = Readiness.failed(ref, reason);
          break;
        }
      }
    }
    crashIf(crash, Operation.AWAIT_READY, "verify");
    return result;
  }

  private @Nullable String unhealthy(Manifest object) {
    Object podSpec =
        object.kind().equals(Kind.POD)
            ? object.get("spec")
            : object.kind().equals(Kind.CRON_JOB) ? null : object.get("spec.template.spec");
    if (!(podSpec instanceof Map<?, ?> pod)) {
      return null;
    }
    for (String list : List.of("initContainers", "containers")) {
      if (pod.get(list) instanceof List<?> containers) {
        for (Object c : containers) {
          if (c instanceof Map<?, ?> container
              && container.get("image") instanceof String image
              && neverReady.containsKey(image)) {
            return neverReady.get(image);
          }
        }
      }
    }
    return null;
  }

  @Override
  public void createNamespace(String name) {
    boolean crash = enter(Operation.CREATE_NAMESPACE, name);
    synchronized (this) {
      log.add("namespace:" + name);
      namespaces.add(ResourceRef.namespace(name).name());
    }
    crashIf(crash, Operation.CREATE_NAMESPACE, name);
  }

  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.RECORD_READ, key);
    Optional<StoredRelease> result;
    synchronized (this) {
      log.add("record:read:" + key);
      NavigableMap<Integer, Encoded> revs = records.get(key);
      result =
          revs == null || revs.isEmpty()
              ? Optional.empty()
              : Optional.of(revs.lastEntry().getValue().decode());
    }
    crashIf(crash, Operation.RECORD_READ, key);
    return result;
  }

  @Override
  public List<StoredRelease> records(String namespace, String name) {
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.RECORD_READ, key);
    List<StoredRelease> result = new ArrayList<>();
    synchronized (this) {
      log.add("record:read:" + key);
      NavigableMap<Integer, Encoded> revs = records.get(key);
      if (revs != null) {
        revs.descendingMap().values().forEach(e -> result.add(e.decode()));
      }
    }
    crashIf(crash, Operation.RECORD_READ, key);
    return result;
  }

  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    boolean crash = enter(Operation.RECORD_READ, namespace);
    List<StoredRelease> result = new ArrayList<>();
    synchronized (this) {
      log.add("record:read:" + namespace);
      new TreeMap<>(records)
          .forEach(
              (key, revs) -> {
                if (key.startsWith(namespace + "/") && !revs.isEmpty()) {
                  result.add(revs.lastEntry().getValue().decode());
                }
              });
    }
    crashIf(crash, Operation.RECORD_READ, namespace);
    return result;
  }

  @Override
  public StoredRelease createRecord(Release release) {
    String key = release.qualifiedName();
    boolean crash = enter(Operation.RECORD_CREATE, key);
    StoredRelease stored;
    synchronized (this) {
      log.add("record:create:" + key + "#" + release.revision() + ":" + release.status().id());
      NavigableMap<Integer, Encoded> revs = records.computeIfAbsent(key, k -> new TreeMap<>());
      if (revs.containsKey(release.revision())) {
        throw new StaleRecordException(key, release.revision(), "the revision already exists");
      }
      Encoded e = new Encoded(ReleaseRecordCodec.encode(release), release, ++versions);
      revs.put(release.revision(), e);
      stored = new StoredRelease(release, Long.toString(e.version));
    }
    crashIf(crash, Operation.RECORD_CREATE, key);
    return stored;
  }

  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    String key = release.qualifiedName();
    boolean crash = enter(Operation.RECORD_UPDATE, key);
    StoredRelease stored;
    synchronized (this) {
      log.add("record:update:" + key + "#" + release.revision() + ":" + release.status().id());
      NavigableMap<Integer, Encoded> revs = records.get(key);
      Encoded current = revs == null ? null : revs.get(release.revision());
      if (revs == null || current == null) {
        throw new StaleRecordException(key, release.revision(), "the revision does not exist");
      }
      if (!Long.toString(current.version).equals(expectedVersion)) {
        throw new StaleRecordException(
            key,
            release.revision(),
            "expected version " + expectedVersion + ", found " + current.version);
      }
      Encoded e = new Encoded(ReleaseRecordCodec.encode(release), release, ++versions);
      revs.put(release.revision(), e);
      stored = new StoredRelease(release, Long.toString(e.version));
    }
    crashIf(crash, Operation.RECORD_UPDATE, key);
    return stored;
  }

  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.RECORD_DELETE, key);
    synchronized (this) {
      log.add("record:delete:" + key + "#" + revision);
      NavigableMap<Integer, Encoded> revs = records.get(key);
      if (revs != null) {
        revs.remove(revision);
        if (revs.isEmpty()) {
          records.remove(key);
        }
      }
    }
    crashIf(crash, Operation.RECORD_DELETE, key);
  }

  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.LEASE_ACQUIRE, key);
    LeaseGrant grant;
    synchronized (this) {
      log.add("lease:acquire:" + key);
      Lease current = leases.get(key);
      Lease takenOver = null;
      if (current != null && !current.holder().equals(holder)) {
        if (!current.expiredAt(now)) {
          throw new ReleaseLockedException(
              key,
              current.holder(),
              renewed.getOrDefault(key, current.acquiredAt()),
              current.expiresAt(),
              now);
        }
        takenOver = current;
      }
      Lease lease = new Lease(holder, now, now.plus(ttl));
      leases.put(key, lease);
      renewed.put(key, now);
      long version = ++leaseWrites;
      leaseVersions.put(key, version);
      grant = new LeaseGrant(lease, takenOver, Long.toString(version));
    }
    crashIf(crash, Operation.LEASE_ACQUIRE, key);
    return grant;
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
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.LEASE_RENEW, key);
    long next;
    synchronized (this) {
      log.add("lease:renew:" + key);
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
    crashIf(crash, Operation.LEASE_RENEW, key);
    return Long.toString(next);
  }

  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    String key = namespace + "/" + name;
    boolean crash = enter(Operation.LEASE_RELEASE, key);
    synchronized (this) {
      log.add("lease:release:" + key);
      Lease current = leases.get(key);
      if (current != null && current.holder().equals(holder)) {
        leases.remove(key);
        leaseVersions.remove(key);
      }
    }
    crashIf(crash, Operation.LEASE_RELEASE, key);
  }

  private boolean enter(Operation operation, String target) {
    synchronized (this) {
      counts.merge(operation, 1, Integer::sum);
    }
    return faults.before(operation, target);
  }

  private static void crashIf(boolean crash, Operation operation, String target) {
    if (crash) {
      throw new SimulatedCrash(operation, target);
    }
  }

  /**
   * Stores an object as a write to the API server would: a new uid when it did not exist, the same
   * uid otherwise, and a new resource version either way.
   */
  private void store(
      ResourceRef ref,
      Manifest content,
      @Nullable OwnershipStamp stamp,
      String hash,
      String appliedHash,
      @Nullable Manifest applied) {
    StoredObject current = objects.get(ref);
    long version = ++objectWrites;
    String uid = current == null ? "uid-" + version : current.uid;
    objects.put(ref, new StoredObject(content, stamp, hash, appliedHash, applied, uid, version));
  }

  /**
   * Whether the live tree still holds every value the applied one set: maps key by key (an empty
   * map or list applied holds nothing, so a writer may fill it), lists whose items all carry a
   * {@code name} item by name, other lists and values as a whole.
   */
  private static boolean holds(@Nullable Object live, @Nullable Object applied) {
    if (applied instanceof Map<?, ?> want) {
      if (want.isEmpty()) {
        return true;
      }
      if (!(live instanceof Map<?, ?> have)) {
        return false;
      }
      for (Map.Entry<?, ?> e : want.entrySet()) {
        if (!holds(have.get(e.getKey()), e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (applied instanceof List<?> want) {
      if (want.isEmpty()) {
        return true;
      }
      if (!(live instanceof List<?> have)) {
        return false;
      }
      if (!want.stream()
          .allMatch(i -> i instanceof Map<?, ?> m && m.get("name") instanceof String)) {
        return want.equals(have);
      }
      for (Object item : want) {
        Object name = requireNonNull(((Map<?, ?>) item).get("name"));
        Object match =
            have.stream()
                .filter(i -> i instanceof Map<?, ?> m && name.equals(m.get("name")))
                .findFirst()
                .orElse(null);
        if (!holds(match, item)) {
          return false;
        }
      }
      return true;
    }
    return applied == null || applied.equals(live);
  }

  /**
   * An object, its stamp, the hash of its content, and the content last written with a stamp
   * ({@code apply}, {@code put}) with its hash: they differ once an out-of-band edit changed it,
   * and it drifted when the edit changed what was applied ({@link #holds}). Drift is not read from
   * the stamp's hash, since a Secret's is keyed per release. The applied content is {@code null}
   * only in a state imported from before it was kept (then any change is drift). The uid and
   * version are what the API server would report.
   */
  private static final class StoredObject {
    final Manifest content;
    final @Nullable OwnershipStamp stamp;
    final String hash;
    final String appliedHash;
    final @Nullable Manifest applied;
    final String uid;
    final long version;

    StoredObject(
        Manifest content,
        @Nullable OwnershipStamp stamp,
        String hash,
        String appliedHash,
        @Nullable Manifest applied,
        String uid,
        long version) {
      this.content = content;
      this.stamp = stamp;
      this.hash = hash;
      this.appliedHash = appliedHash;
      this.applied = applied;
      this.uid = uid;
      this.version = version;
    }
  }

  /**
   * A stored record: the codec's bytes (what other stores keep, exported as state) and the record
   * they encode, decoded once, since records are immutable values.
   */
  private static final class Encoded {
    final byte[] bytes;
    final Release release;
    final long version;

    Encoded(byte[] bytes, Release release, long version) {
      this.bytes = bytes;
      this.release = release;
      this.version = version;
    }

    StoredRelease decode() {
      return new StoredRelease(release, Long.toString(version));
    }
  }
}
