package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.EnsuredNamespace;
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
 * with their stamps, namespaces and storage classes, and what the engine and tests do to them; the
 * kinds it serves are {@link ServedKinds}, how objects fare (never-ready images, reported statuses,
 * health and completion) {@link MemoryHealth}, who wrote which field {@link FieldWriters}, why a
 * write is refused {@link MemoryRefusals}. Each method does what the {@link InMemoryCluster} method
 * of its name documents. Guarded by the cluster's monitor: a port method (a call the fault plan
 * sees) takes it itself, after its faults; the others expect it held.
 */
final class MemoryObjects {
  private final Object lock;
  private final Calls calls;
  final Map<ResourceRef, StoredObject> objects = new HashMap<>();
  final Map<String, NamespaceState> namespaces = new TreeMap<>();
  final Set<String> storageClasses = new TreeSet<>();
  final ServedKinds served = new ServedKinds();
  final MemoryHealth health = new MemoryHealth();

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
    served.kinds.put(kind.key(), requireNonNull(kind, "kind"));
  }

  void put(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    for (Manifest object : spec.render()) {
      String hash = ContentHash.of(object);
      store(object.ref(), object, stamp, hash, hash, object);
      served.learn(object);
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
    FieldWriters.changedLeaves("", current.content.content(), changed.content(), writer, takenBy);
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
    served.storedVersions.put(crd, List.copyOf(versions));
  }

  void deleteOutOfBand(ResourceRef ref) {
    objects.remove(ref);
    served.storedVersions.remove(ref);
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
                fields = FieldWriters.driftFields(o, given != null ? given : o.applied);
                drift = fields.isEmpty() ? null : fields.get(0).describe();
              }
            }
            List<String> stored = served.storedVersions.get(ref);
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

  void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    requireNonNull(precondition, "precondition");
    String key = object.ref().key();
    boolean crash = calls.enter(Operation.APPLY, key);
    synchronized (lock) {
      refuseFenced(
          "apply",
          precondition instanceof Precondition.Absent ? "create" : "apply",
          object.ref(),
          precondition,
          false);
      ClusterException immutable = MemoryRefusals.immutable(this, "apply", object);
      if (immutable != null) {
        calls.log("refused:apply:" + key);
        throw immutable;
      }
      StoredObject current = objects.get(object.ref());
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
            content = FieldWriters.withAt(content, pointer, live);
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
      served.learn(object);
    }
    Calls.crashIf(crash, Operation.APPLY, key);
  }

  /**
   * Whether {@link #apply} of {@code object} would be accepted now, refused as it would refuse it:
   * a standing fault on {@link Operation#APPLY} for the object, an immutable field changed; a
   * precondition not met throws {@link PreconditionFailedException}, as the write would. Logged
   * {@code verify-apply:KEY}; writes nothing.
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
      String fenced = MemoryRefusals.fenced(this, ref, precondition, false);
      if (fenced != null) {
        throw new PreconditionFailedException(
            "dry-run apply", ref, precondition, 409, fenced, null);
      }
      ClusterException immutable = MemoryRefusals.immutable(this, "dry-run apply", object);
      return immutable == null
          ? Optional.empty()
          : Optional.of(requireNonNull(immutable.getMessage()));
    }
  }

  Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    calls.log("dry-run:" + object.ref().key());
    return object;
  }

  /**
   * Refuses the write {@code logged} ({@code verb} to the API server) of {@code ref} that {@code
   * precondition} fences, as the API server would (409), logging {@code fenced:LOGGED:KEY}.
   */
  private void refuseFenced(
      String logged, String verb, ResourceRef ref, Precondition precondition, boolean goneIsFine) {
    String fenced = MemoryRefusals.fenced(this, ref, precondition, goneIsFine);
    if (fenced != null) {
      calls.log("fenced:" + logged + ":" + ref.key());
      throw new PreconditionFailedException(verb, ref, precondition, 409, fenced, null);
    }
  }

  Optional<String> checkKind(Kind kind) {
    return served.check(kind);
  }

  boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(precondition, "precondition");
    boolean crash = calls.enter(Operation.DELETE, ref.key());
    boolean deleted;
    synchronized (lock) {
      refuseFenced("delete", "delete", ref, precondition, true);
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
          served.storedVersions.remove(ref);
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
      refuseFenced("unstamp", "unstamp", ref, precondition, false);
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
    Readiness result;
    synchronized (lock) {
      calls.log("verify");
      if (wait.stopAsked()) {
        // judged at once in memory: a stop asked before the wait is the only one it can see
        return Readiness.stopped(objects);
      }
      result = health.ready(objects, this.objects, wait);
    }
    Calls.crashIf(crash, Operation.AWAIT_READY, "verify");
    return result;
  }

  Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    boolean crash = calls.enter(Operation.AWAIT_COMPLETION, ref.key());
    Readiness result;
    synchronized (lock) {
      calls.log("await:" + ref.key());
      result = health.completion(ref, objects.get(ref), timeout);
    }
    Calls.crashIf(crash, Operation.AWAIT_COMPLETION, ref.key());
    return result;
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
}
