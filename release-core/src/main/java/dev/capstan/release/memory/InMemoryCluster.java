package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.CrdGate;
import dev.capstan.release.ClusterException;
import dev.capstan.release.ReleaseLockedException;
import dev.capstan.release.StaleRecordException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.health.Health;
import dev.capstan.release.health.HealthRules;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.internal.Json;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.EnsuredNamespace;
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
import dev.capstan.release.port.ReadinessWait;
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
 *   <li>objects that report a status, judged by the health rules as on Kubernetes: {@link
 *       #reportStatus}, {@link #reportCondition};
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
  private final Map<String, NamespaceState> namespaces = new TreeMap<>();
  private final Set<String> storageClasses = new TreeSet<>();
  private final Map<String, Kind> servedKinds = new HashMap<>();
  private final Map<String, String> neverReady = new HashMap<>();
  private final Map<ResourceRef, Map<String, Object>> statuses = new HashMap<>();
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

  /**
   * Versions of namespaces, counted apart so that objects' uids and versions do not depend on them.
   */
  private long namespaceWrites;

  private InMemoryCluster() {
    namespaces.put("default", new NamespaceState(++namespaceWrites));
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
    namespaces.computeIfAbsent(
        ResourceRef.namespace(name).name(), n -> new NamespaceState(++namespaceWrites));
    return this;
  }

  /**
   * Sets labels and annotations of a namespace (creating it when missing) as field manager {@code
   * manager} would by server-side apply: what that manager set before and leaves out now is removed
   * unless another manager holds it too. The manager of a release's ensured namespaces is {@code
   * EnsuredNamespace.fieldManager(ns, name)}; any other name stands for another tool.
   */
  public synchronized InMemoryCluster applyNamespace(
      String name, String manager, Map<String, String> labels, Map<String, String> annotations) {
    NamespaceState state =
        namespaces.computeIfAbsent(
            ResourceRef.namespace(name).name(), n -> new NamespaceState(++namespaceWrites));
    state.apply(manager, labels, annotations, ++namespaceWrites);
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

  /**
   * Makes {@code ref} report {@code status} (its {@code status} field, as its controller would
   * write it): its health is then judged from its content and this status by the rules of {@code
   * dev.capstan.release.health}, as on Kubernetes ({@code Ready=False} waits, {@code Stalled=True}
   * fails, an APIService that stays {@code Available=False} fails, a LoadBalancer Service without
   * {@code loadBalancer.ingress} waits...), instead of being healthy once it exists. It may be set
   * before the object is written, and lasts, through applies and deletes of the object, until it is
   * set again or {@linkplain #clearStatus cleared}. An in-memory wait never waits: what would still
   * be pending after the whole timeout with nothing changing times out at once.
   *
   * @param ref the object
   * @param status the status tree (nested maps, lists, strings, numbers, booleans)
   * @return this cluster
   */
  public synchronized InMemoryCluster reportStatus(ResourceRef ref, Map<String, ?> status) {
    statuses.put(requireNonNull(ref, "ref"), deepCopy(requireNonNull(status, "status")));
    return this;
  }

  /**
   * Makes {@code ref} report the condition {@code type} in {@code status.conditions} (replacing one
   * of that type, keeping the others and the rest of a status reported before), as {@link
   * #reportStatus} does.
   *
   * @param ref the object
   * @param type the condition type, e.g. {@code Ready}
   * @param status {@code True}, {@code False} or {@code Unknown}
   * @param reason a one-word reason, e.g. {@code FailedDiscoveryCheck}
   * @param message a sentence for people
   * @return this cluster
   */
  public synchronized InMemoryCluster reportCondition(
      ResourceRef ref, String type, String status, String reason, String message) {
    Map<String, Object> tree =
        new java.util.LinkedHashMap<>(statuses.getOrDefault(requireNonNull(ref, "ref"), Map.of()));
    List<Object> conditions = new ArrayList<>();
    if (tree.get("conditions") instanceof List<?> list) {
      for (Object c : list) {
        if (!(c instanceof Map<?, ?> m && type.equals(m.get("type")))) {
          conditions.add(c);
        }
      }
    }
    conditions.add(
        Map.of(
            "type",
            requireNonNull(type, "type"),
            "status",
            requireNonNull(status, "status"),
            "reason",
            requireNonNull(reason, "reason"),
            "message",
            requireNonNull(message, "message")));
    tree.put("conditions", conditions);
    statuses.put(ref, deepCopy(tree));
    return this;
  }

  /** Stops {@code ref} reporting a status: it is healthy once it exists again. */
  public synchronized InMemoryCluster clearStatus(ResourceRef ref) {
    statuses.remove(requireNonNull(ref, "ref"));
    return this;
  }

  private static Map<String, Object> deepCopy(Map<String, ?> tree) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = Json.mapper().convertValue(tree, Map.class);
    return java.util.Collections.unmodifiableMap(copy);
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
    return Set.copyOf(namespaces.keySet());
  }

  /**
   * A namespace as observed: its name, labels and annotations (every manager's), or empty when it
   * does not exist.
   */
  public synchronized Optional<Manifest> namespace(String name) {
    NamespaceState state = namespaces.get(name);
    return state == null ? Optional.empty() : Optional.of(state.manifest(name));
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
                    || op.startsWith("ensure:")
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
   * custom kinds, records (the codec's bytes), leases, never-ready images and reported statuses.
   * Faults and the operation log are not included. Records and secret objects hold secret values:
   * keep the bytes as private as the secrets themselves.
   */
  public synchronized byte[] exportState() {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("format", STATE_FORMAT);
    root.set("namespaces", Json.mapper().valueToTree(namespaces.keySet()));
    ObjectNode fields = root.putObject("namespaceFields");
    namespaces.forEach(
        (name, state) -> {
          if (!state.labels.isEmpty() || !state.annotations.isEmpty()) {
            ObjectNode byManager = fields.putObject(name);
            new TreeSet<>(state.managers())
                .forEach(
                    m -> {
                      ObjectNode node = byManager.putObject(m);
                      node.set(
                          "labels",
                          Json.mapper().valueToTree(state.labels.getOrDefault(m, Map.of())));
                      node.set(
                          "annotations",
                          Json.mapper().valueToTree(state.annotations.getOrDefault(m, Map.of())));
                    });
          }
        });
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
    if (!statuses.isEmpty()) {
      ArrayNode reported = root.putArray("statuses");
      TreeMap<ResourceRef, Map<String, Object>> byRef = new TreeMap<>(ResourceRef.APPLY_ORDER);
      byRef.putAll(statuses);
      byRef.forEach(
          (ref, status) -> {
            ObjectNode node = reported.addObject();
            node.set("ref", Json.mapper().valueToTree(ref));
            node.set("status", Json.mapper().valueToTree(status));
          });
    }
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
      root.path("namespaces").forEach(n -> c.addNamespace(n.asText()));
      for (Map.Entry<String, JsonNode> ns : root.path("namespaceFields").properties()) {
        for (Map.Entry<String, JsonNode> m : ns.getValue().properties()) {
          c.applyNamespace(
              ns.getKey(),
              m.getKey(),
              strings(m.getValue().path("labels")),
              strings(m.getValue().path("annotations")));
        }
      }
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
      for (JsonNode node : root.path("statuses")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> status = Json.mapper().treeToValue(node.get("status"), Map.class);
        c.reportStatus(Json.mapper().treeToValue(node.get("ref"), ResourceRef.class), status);
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
          NamespaceState state = namespaces.get(name);
          if (state != null) {
            found.add(
                new LiveObject(
                    ref,
                    state.manifest(name),
                    null,
                    null,
                    state.uid,
                    Long.toString(state.version),
                    state.ensuredBy(),
                    null));
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
                    List.of(),
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
    if (ref.kind().equals(Kind.NAMESPACE)) {
      NamespaceState ns = namespaces.get(ref.name());
      if (precondition instanceof Precondition.Observed expected
          && ns != null
          && (!ns.uid.equals(expected.uid())
              || !Long.toString(ns.version).equals(expected.resourceVersion()))) {
        return "the object has been modified; please apply your changes to the latest version and"
            + " try again";
      }
      return null;
    }
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
      if (ref.kind().equals(Kind.NAMESPACE)) {
        // a namespace takes everything in it along, whoever owns it
        deleted =
            precondition instanceof Precondition.Observed && namespaces.containsKey(ref.name());
        if (deleted) {
          namespaces.remove(ref.name());
          objects.keySet().removeIf(r -> r.namespace().equals(ref.name()));
        }
      } else {
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
   * containers) runs an image made {@link #neverReady never ready}, or it {@linkplain #reportStatus
   * reports a status}: then the health rules judge it (its content and that status) as {@code
   * WaveHealth} does on Kubernetes. Nothing changes while an in-memory wait would wait, so one is
   * decided at once: as it is now, else as it would be after the whole timeout (an APIService whose
   * condition outlasts its patience fails, anything else pending times out, with its reason). No
   * progress is reported, and a missing object fails with {@code not found}.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
    requireNonNull(wait, "wait");
    boolean crash = enter(Operation.AWAIT_READY, "verify");
    Readiness result = null;
    synchronized (this) {
      log.add("verify");
      Instant start = Instant.EPOCH;
      List<ResourceRef> judged =
          objects.stream()
              .filter(r -> statuses.containsKey(r) && this.objects.containsKey(r))
              .toList();
      WaveHealth health = new WaveHealth(judged, wait.waitForLoadBalancer(), start);
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
        Map<String, Object> status = statuses.get(ref);
        if (status != null) {
          Map<String, Object> tree = new java.util.LinkedHashMap<>(o.content.content());
          tree.put("status", status);
          if (health.observe(ref, tree, List.of(), HealthRules.VolumeBinding.IMMEDIATE, start)
              instanceof Health.Failed f) {
            result = Readiness.failed(ref, f.reason());
            break;
          }
        }
      }
      if (result == null) {
        result = health.decide(start);
      }
      if (result == null) {
        result = health.decide(start.plus(wait.timeout()));
      }
      if (result == null) {
        result = health.timedOut(wait.timeout());
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
      addNamespace(name);
    }
    crashIf(crash, Operation.CREATE_NAMESPACE, name);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Logged {@code ensure:NAME}; the labels and annotations are held per field manager as
   * server-side apply holds them (see {@link #applyNamespace}).
   */
  @Override
  public void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    String name = namespace.name();
    boolean crash = enter(Operation.ENSURE_NAMESPACE, name);
    synchronized (this) {
      log.add("ensure:" + name);
      applyNamespace(
          name,
          EnsuredNamespace.fieldManager(releaseNamespace, releaseName),
          namespace.labels(),
          namespace.annotations());
    }
    crashIf(crash, Operation.ENSURE_NAMESPACE, name);
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
      if (!namespaces.containsKey(namespace)) {
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

  private static Map<String, String> strings(JsonNode node) {
    Map<String, String> out = new TreeMap<>();
    node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
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
   * A namespace: its identity and the labels and annotations each field manager holds, as
   * server-side apply keeps them (a value is one manager's or shared by managers that applied the
   * same value; a forced apply of another value takes it from them).
   */
  private static final class NamespaceState {
    final String uid;
    long version;
    final Map<String, Map<String, String>> labels = new TreeMap<>();
    final Map<String, Map<String, String>> annotations = new TreeMap<>();

    NamespaceState(long version) {
      this.uid = "uid-ns-" + version;
      this.version = version;
    }

    void apply(
        String manager, Map<String, String> labels, Map<String, String> annotations, long version) {
      set(this.labels, manager, labels);
      set(this.annotations, manager, annotations);
      this.version = version;
    }

    private static void set(
        Map<String, Map<String, String>> fields, String manager, Map<String, String> values) {
      fields.remove(manager);
      for (Map<String, String> other : fields.values()) {
        // a forced apply of another value takes the field; the same value is shared
        values.forEach(
            (key, value) -> {
              if (other.containsKey(key) && !value.equals(other.get(key))) {
                other.remove(key);
              }
            });
      }
      fields.values().removeIf(Map::isEmpty);
      if (!values.isEmpty()) {
        fields.put(manager, new TreeMap<>(values));
      }
    }

    Set<String> managers() {
      Set<String> out = new TreeSet<>(labels.keySet());
      out.addAll(annotations.keySet());
      return out;
    }

    List<String> ensuredBy() {
      List<String> out = new ArrayList<>();
      for (String m : managers()) {
        EnsuredNamespace.releaseOf(m).ifPresent(out::add);
      }
      return out;
    }

    Manifest manifest(String name) {
      Map<String, String> allLabels = new TreeMap<>();
      allLabels.put("kubernetes.io/metadata.name", name);
      this.labels.values().forEach(allLabels::putAll);
      Map<String, String> allAnnotations = new TreeMap<>();
      this.annotations.values().forEach(allAnnotations::putAll);
      Map<String, Object> metadata = new java.util.LinkedHashMap<>();
      metadata.put("name", name);
      metadata.put("labels", allLabels);
      if (!allAnnotations.isEmpty()) {
        metadata.put("annotations", allAnnotations);
      }
      return Manifest.of(Map.of("apiVersion", "v1", "kind", "Namespace", "metadata", metadata));
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
