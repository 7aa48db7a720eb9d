package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.common.CrdGate;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.diff.AppliedFields;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.ImmutableFields;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.plan.FieldDrift;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The {@link dev.capstan.release.port.Orchestrator} half of an {@link InMemoryCluster}: its objects
 * with their stamps, namespaces, storage classes, served kinds, never-ready images and reported
 * statuses, and what the engine and tests do to them; each method does what the {@link
 * InMemoryCluster} method of its name documents. Guarded by the cluster's monitor: a port method (a
 * call the fault plan sees) takes it itself, after its faults; the others expect it held.
 */
final class MemoryObjects {
  private final Object lock;
  private final Calls calls;
  final Map<ResourceRef, StoredObject> objects = new HashMap<>();
  final Map<String, NamespaceState> namespaces = new TreeMap<>();
  final Set<String> storageClasses = new TreeSet<>();
  final Map<String, Kind> servedKinds = new HashMap<>();
  final Map<String, String> neverReady = new HashMap<>();
  final Map<String, String> failToComplete = new HashMap<>();
  final Map<ResourceRef, Map<String, Object>> statuses = new HashMap<>();

  /**
   * The {@code status.storedVersions} of each CRD: every storage version it was applied with, as
   * the API server keeps them (they are never removed by an apply).
   */
  final Map<ResourceRef, List<String>> storedVersions = new HashMap<>();

  private long objectWrites;

  /**
   * Versions of namespaces, counted apart so that objects' uids and versions do not depend on them.
   */
  private long namespaceWrites;

  MemoryObjects(Object lock, Calls calls) {
    this.lock = lock;
    this.calls = calls;
    namespaces.put("default", new NamespaceState(++namespaceWrites));
    storageClasses.add("standard");
  }

  void createStorageClass(String name) {
    storageClasses.add(ResourceRef.storageClass(name).name());
  }

  void addNamespace(String name) {
    namespaces.computeIfAbsent(
        ResourceRef.namespace(name).name(), n -> new NamespaceState(++namespaceWrites));
  }

  void applyNamespace(
      String name, String manager, Map<String, String> labels, Map<String, String> annotations) {
    NamespaceState state =
        namespaces.computeIfAbsent(
            ResourceRef.namespace(name).name(), n -> new NamespaceState(++namespaceWrites));
    state.apply(manager, labels, annotations, ++namespaceWrites);
  }

  void serve(Kind kind) {
    servedKinds.put(kind.key(), requireNonNull(kind, "kind"));
  }

  void put(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    for (Manifest object : spec.render()) {
      String hash = ContentHash.of(object);
      store(object.ref(), object, stamp, hash, hash, object);
      learnKind(object);
    }
  }

  void edit(ResourceRef ref, StoredObject.Writer writer, UnaryOperator<Manifest> change) {
    StoredObject current = objects.get(ref);
    if (current == null) {
      throw new IllegalArgumentException("no object " + ref.key() + " to edit");
    }
    Manifest changed = requireNonNull(change.apply(current.content), "edited object");
    if (!changed.ref().equals(ref)) {
      throw new IllegalArgumentException("an edit must keep the ref " + ref.key());
    }
    // as server-side apply's managed fields do: each field this edit sets or changes is the
    // writer's now, one it removes is nobody's
    Map<String, StoredObject.Writer> takenBy = new HashMap<>(current.takenBy);
    changedLeaves("", current.content.content(), changed.content(), writer, takenBy);
    store(
        ref,
        changed,
        current.stamp,
        ContentHash.of(changed),
        current.appliedHash,
        current.applied,
        takenBy);
  }

  void storedVersions(ResourceRef crd, List<String> versions) {
    if (!crd.kind().isCrd() || !objects.containsKey(crd)) {
      throw new IllegalArgumentException("no CustomResourceDefinition " + crd.key());
    }
    storedVersions.put(crd, List.copyOf(versions));
  }

  void deleteOutOfBand(ResourceRef ref) {
    objects.remove(ref);
    storedVersions.remove(ref);
  }

  void neverReady(String image, String reason) {
    neverReady.put(requireNonNull(image, "image"), requireNonNull(reason, "reason"));
  }

  void reportStatus(ResourceRef ref, Map<String, ?> status) {
    statuses.put(requireNonNull(ref, "ref"), deepCopy(requireNonNull(status, "status")));
  }

  void reportCondition(ResourceRef ref, String type, String status, String reason, String message) {
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
  }

  void clearStatus(ResourceRef ref) {
    statuses.remove(requireNonNull(ref, "ref"));
  }

  private static Map<String, Object> deepCopy(Map<String, ?> tree) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = Json.mapper().convertValue(tree, Map.class);
    return java.util.Collections.unmodifiableMap(copy);
  }

  Optional<Manifest> object(ResourceRef ref) {
    StoredObject o = objects.get(ref);
    return o == null ? Optional.empty() : Optional.of(o.content);
  }

  Optional<OwnershipStamp> stamp(ResourceRef ref) {
    StoredObject o = objects.get(ref);
    return o == null ? Optional.empty() : Optional.ofNullable(o.stamp);
  }

  List<ResourceRef> objects() {
    return objects.keySet().stream().sorted(ResourceRef.APPLY_ORDER).toList();
  }

  Set<String> namespaceNames() {
    return Set.copyOf(namespaces.keySet());
  }

  Optional<Manifest> namespace(String name) {
    NamespaceState state = namespaces.get(name);
    return state == null ? Optional.empty() : Optional.of(state.manifest(name));
  }

  List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    String target = kind.key() + "/" + namespace;
    boolean crash = calls.enter(Operation.OBSERVE, target);
    List<LiveObject> found = new ArrayList<>();
    synchronized (lock) {
      calls.log("observe:" + target);
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
        } else if (kind.equals(Kind.STORAGE_CLASS) && !objects.containsKey(ref)) {
          // a class the cluster has (createStorageClass), as if created outside any release
          if (storageClasses.contains(name)) {
            found.add(LiveObject.present(ref));
          }
        } else {
          StoredObject o = objects.get(ref);
          if (o != null) {
            List<FieldDrift> fields = List.of();
            String drift = null;
            if (o.stamp != null && !o.appliedHash.equals(o.hash)) {
              if (o.applied == null) {
                drift =
                    "live content differs from what revision " + o.stamp.revision() + " applied";
              } else {
                Manifest given = applied.get(name);
                fields = driftFields(o, given != null ? given : o.applied);
                drift = fields.isEmpty() ? null : fields.get(0).describe();
              }
            }
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
                    stored == null ? null : Map.of("storedVersions", stored),
                    fields));
          }
        }
      }
    }
    Calls.crashIf(crash, Operation.OBSERVE, target);
    return found;
  }

  /**
   * The fields of {@code applied} (the object as the caller applies it, else as last written with a
   * stamp) that the object no longer holds as applied, with who changed them ({@link
   * StoredObject#takenBy}), as the Kubernetes adapter reads them from managed fields.
   */
  private static List<FieldDrift> driftFields(StoredObject o, Manifest applied) {
    List<FieldDrift> out = new ArrayList<>();
    for (AppliedFields.Departure d :
        AppliedFields.departures(applied, o.content, AppliedFields.ListKeys.BY_NAME)) {
      StoredObject.Writer w = writerOf(o.takenBy, d.pointer());
      out.add(
          d.removed()
              ? FieldDrift.removed(d.path(), d.pointer())
              : FieldDrift.taken(
                  d.path(),
                  d.pointer(),
                  w == null ? null : w.manager(),
                  w == null ? null : w.subresource()));
    }
    return out;
  }

  /**
   * The first field the API server keeps immutable ({@link ImmutableFields}) at which {@code next}
   * sets a value {@code live} does not hold, or {@code null}: such an apply is refused, as the API
   * server refuses it.
   */
  private static @Nullable String immutableChange(Manifest live, Manifest next) {
    List<String> changed = AppliedFields.changedAt(next, live, ImmutableFields.of(next.kind()));
    return changed.isEmpty() ? null : changed.get(0);
  }

  /**
   * Who wrote the field at {@code pointer}: its own entry, else the nearest enclosing field written
   * whole (a list replaced), else a field written inside it.
   */
  private static StoredObject.@Nullable Writer writerOf(
      Map<String, StoredObject.Writer> takenBy, String pointer) {
    StoredObject.Writer exact = takenBy.get(pointer);
    if (exact != null) {
      return exact;
    }
    String best = null;
    for (String key : takenBy.keySet()) {
      if (pointer.startsWith(key + "/") && (best == null || key.length() > best.length())) {
        best = key;
      }
    }
    if (best != null) {
      return takenBy.get(best);
    }
    for (Map.Entry<String, StoredObject.Writer> e : new TreeMap<>(takenBy).entrySet()) {
      if (e.getKey().startsWith(pointer + "/")) {
        return e.getValue();
      }
    }
    return null;
  }

  /**
   * Records {@code writer} for every field that differs between {@code before} and {@code after}
   * (maps key by key, lists of one length item by item, other lists whole), and forgets the writer
   * of every field {@code after} no longer has.
   */
  private static void changedLeaves(
      String pointer,
      @Nullable Object before,
      @Nullable Object after,
      StoredObject.Writer writer,
      Map<String, StoredObject.Writer> takenBy) {
    if (before instanceof Map<?, ?> b && after instanceof Map<?, ?> a) {
      java.util.Set<Object> keys = new java.util.LinkedHashSet<>(b.keySet());
      keys.addAll(a.keySet());
      for (Object key : keys) {
        changedLeaves(
            pointer + "/" + AppliedFields.escape(String.valueOf(key)),
            b.get(key),
            a.get(key),
            writer,
            takenBy);
      }
    } else if (before instanceof List<?> b && after instanceof List<?> a && b.size() == a.size()) {
      for (int i = 0; i < a.size(); i++) {
        changedLeaves(pointer + "/" + i, b.get(i), a.get(i), writer, takenBy);
      }
    } else if (after == null) {
      if (before != null) {
        takenBy.keySet().removeIf(k -> k.equals(pointer) || k.startsWith(pointer + "/"));
      }
    } else if (!dev.capstan.common.Trees.sameValue(before, after)) {
      takenBy.keySet().removeIf(k -> k.startsWith(pointer + "/"));
      takenBy.put(pointer, writer);
    }
  }

  void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    requireNonNull(precondition, "precondition");
    String key = object.ref().key();
    boolean crash = calls.enter(Operation.APPLY, key);
    synchronized (lock) {
      String fenced = fenced(object.ref(), precondition, false);
      if (fenced != null) {
        calls.log("fenced:apply:" + key);
        throw new PreconditionFailedException(
            precondition instanceof Precondition.Absent ? "create" : "apply",
            object.ref(),
            precondition,
            409,
            fenced,
            null);
      }
      StoredObject current = objects.get(object.ref());
      String immutable = current == null ? null : immutableChange(current.content, object);
      if (immutable != null) {
        calls.log("refused:apply:" + key);
        throw new ClusterException(
            "apply",
            object.kind().kind(),
            object.namespace(),
            object.name(),
            422,
            object.kind().kind()
                + " \""
                + object.name()
                + "\" is invalid: "
                + immutable
                + ": field is immutable",
            null);
      }
      calls.log("apply:" + key);
      Manifest written = object;
      Map<String, StoredObject.Writer> kept = new HashMap<>();
      if (current != null) {
        // as server-side apply does: a field the apply leaves out that another writer holds, or
        // that Capstan gives up, keeps its value (and its writer)
        Map<String, Object> content = new java.util.LinkedHashMap<>(object.content());
        java.util.Set<String> keep = new java.util.TreeSet<>(givenUp);
        current.takenBy.forEach(
            (pointer, writer) -> {
              if (DriftIgnore.at(object.content(), pointer) == null) {
                keep.add(pointer);
                kept.put(pointer, writer);
              }
            });
        for (String pointer : keep) {
          Object live = DriftIgnore.at(current.content.content(), pointer);
          if (live != null && DriftIgnore.at(content, pointer) == null) {
            content = withAt(content, pointer, live);
          }
        }
        written = object.withContent(content);
      }
      store(
          object.ref(),
          written,
          stamp,
          ContentHash.of(written),
          ContentHash.of(object),
          object,
          kept);
      learnKind(object);
    }
    Calls.crashIf(crash, Operation.APPLY, key);
  }

  /**
   * Whether {@link #apply} of {@code object} would be accepted now, refused as it would refuse it:
   * a standing fault on {@link Operation#APPLY} for the object, a precondition not met, an
   * immutable field changed. Logged {@code verify-apply:KEY}; writes nothing.
   */
  Optional<String> verifyApply(Manifest object, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    ResourceRef ref = object.ref();
    String key = ref.key();
    calls.enter(Operation.VERIFY_APPLY, key);
    Optional<ClusterException> standing = calls.faults.standing(Operation.APPLY, key);
    synchronized (lock) {
      calls.log("verify-apply:" + key);
      if (standing.isPresent()) {
        return Optional.of(requireNonNull(standing.get().getMessage()));
      }
      String fenced = fenced(ref, precondition, false);
      if (fenced != null) {
        return Optional.of("apply " + key + " failed (HTTP 409): " + fenced);
      }
      StoredObject current = objects.get(ref);
      String immutable = current == null ? null : immutableChange(current.content, object);
      if (immutable != null) {
        return Optional.of(
            "apply "
                + key
                + " failed (HTTP 422): "
                + ref.kind().kind()
                + " \""
                + ref.name()
                + "\" is invalid: "
                + immutable
                + ": field is immutable");
      }
    }
    return Optional.empty();
  }

  Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    calls.log("dry-run:" + object.ref().key());
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

  Optional<String> checkKind(Kind kind) {
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

  boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    boolean crash = calls.enter(Operation.DELETE, ref.key());
    boolean deleted;
    synchronized (lock) {
      String fenced = fenced(ref, precondition, true);
      if (fenced != null) {
        calls.log("fenced:delete:" + ref.key());
        throw new PreconditionFailedException("delete", ref, precondition, 409, fenced, null);
      }
      calls.log("delete:" + ref.key());
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
    Calls.crashIf(crash, Operation.DELETE, ref.key());
    return deleted;
  }

  boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    boolean crash = calls.enter(Operation.UNSTAMP, ref.key());
    boolean done;
    synchronized (lock) {
      String fenced = fenced(ref, precondition, false);
      if (fenced != null) {
        calls.log("fenced:unstamp:" + ref.key());
        throw new PreconditionFailedException("unstamp", ref, precondition, 409, fenced, null);
      }
      calls.log("unstamp:" + ref.key());
      StoredObject o = objects.get(ref);
      done = false;
      if (o != null && o.stamp != null && o.stamp.ownedBy(owner)) {
        store(ref, o.content, null, o.hash, o.appliedHash, o.applied);
        done = true;
      }
    }
    Calls.crashIf(crash, Operation.UNSTAMP, ref.key());
    return done;
  }

  Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    boolean crash = calls.enter(Operation.AWAIT_DELETED, "await-deleted");
    Readiness result;
    synchronized (lock) {
      calls.log("await-deleted");
      List<ResourceRef> present =
          objects.stream().filter(this.objects::containsKey).sorted().toList();
      result = present.isEmpty() ? Readiness.ready() : Readiness.timedOut(present, timeout);
    }
    Calls.crashIf(crash, Operation.AWAIT_DELETED, "await-deleted");
    return result;
  }

  Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
    requireNonNull(wait, "wait");
    boolean crash = calls.enter(Operation.AWAIT_READY, "verify");
    Readiness result = null;
    synchronized (lock) {
      calls.log("verify");
      if (wait.stopAsked()) {
        // judged at once in memory: a stop asked before the wait is the only one it can see
        return Readiness.stopped(objects);
      }
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
    Calls.crashIf(crash, Operation.AWAIT_READY, "verify");
    return result;
  }

  Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    boolean crash = calls.enter(Operation.AWAIT_COMPLETION, ref.key());
    Readiness result;
    synchronized (lock) {
      calls.log("await:" + ref.key());
      StoredObject o = objects.get(ref);
      String fails = o == null ? null : imageIn(o.content, failToComplete);
      if (o == null) {
        result = Readiness.failed(ref, "not found");
      } else if (fails != null) {
        result = Readiness.failed(ref, fails);
      } else if (imageIn(o.content, neverReady) != null) {
        result = Readiness.timedOut(List.of(ref), timeout);
      } else {
        result = Readiness.ready();
      }
    }
    Calls.crashIf(crash, Operation.AWAIT_COMPLETION, ref.key());
    return result;
  }

  private @Nullable String unhealthy(Manifest object) {
    return imageIn(object, neverReady);
  }

  /** What {@code byImage} says of the first image {@code object}'s pod template runs. */
  private static @Nullable String imageIn(Manifest object, Map<String, String> byImage) {
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
              && byImage.containsKey(image)) {
            return byImage.get(image);
          }
        }
      }
    }
    return null;
  }

  void createNamespace(String name) {
    boolean crash = calls.enter(Operation.CREATE_NAMESPACE, name);
    synchronized (lock) {
      calls.log("namespace:" + name);
      addNamespace(name);
    }
    Calls.crashIf(crash, Operation.CREATE_NAMESPACE, name);
  }

  void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    String name = namespace.name();
    boolean crash = calls.enter(Operation.ENSURE_NAMESPACE, name);
    synchronized (lock) {
      calls.log("ensure:" + name);
      applyNamespace(
          name,
          EnsuredNamespace.fieldManager(releaseNamespace, releaseName),
          namespace.labels(),
          namespace.annotations());
    }
    Calls.crashIf(crash, Operation.ENSURE_NAMESPACE, name);
  }

  /**
   * Gives the object at {@code ref} the identity a saved state kept for it ({@link StateFormat}):
   * its uid and resource version, so a plan saved before the state was saved still sees the same
   * object; later writes get versions above every restored one.
   */
  void restoreIdentity(ResourceRef ref, String uid, long version) {
    StoredObject o = requireNonNull(objects.get(ref), "object");
    objects.put(
        ref, new StoredObject(o.content, o.stamp, o.hash, o.appliedHash, o.applied, uid, version));
    objectWrites = Math.max(objectWrites, version);
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
    store(ref, content, stamp, hash, appliedHash, applied, Map.of());
  }

  private void store(
      ResourceRef ref,
      Manifest content,
      @Nullable OwnershipStamp stamp,
      String hash,
      String appliedHash,
      @Nullable Manifest applied,
      Map<String, StoredObject.Writer> takenBy) {
    StoredObject current = objects.get(ref);
    long version = ++objectWrites;
    String uid = current == null ? "uid-" + version : current.uid;
    objects.put(
        ref, new StoredObject(content, stamp, hash, appliedHash, applied, uid, version, takenBy));
  }

  /** {@code tree} with {@code value} at the map path {@code pointer} (maps created on the way). */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> withAt(
      Map<String, Object> tree, String pointer, Object value) {
    String[] steps = pointer.substring(1).split("/", -1);
    Map<String, Object> out = new java.util.LinkedHashMap<>(tree);
    Map<String, Object> node = out;
    for (int i = 0; i < steps.length; i++) {
      String step = steps[i].replace("~1", "/").replace("~0", "~");
      if (i == steps.length - 1) {
        node.put(step, value);
      } else {
        Object child = node.get(step);
        if (child instanceof List<?>) {
          return out; // a list item's field: kept as the object has it
        }
        Map<String, Object> copy =
            child instanceof Map<?, ?> m
                ? new java.util.LinkedHashMap<>((Map<String, Object>) m)
                : new java.util.LinkedHashMap<>();
        node.put(step, copy);
        node = copy;
      }
    }
    return out;
  }
}
