package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.FaultPlan;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import dev.capstan.release.port.Store;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *   <li>workloads that never become healthy: {@link #neverReady(String, String)}; hooks' Jobs and
 *       Pods that fail: {@link #failToComplete(String, String)};
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
public final class InMemoryCluster extends MemoryStore implements Orchestrator {
  private final MemoryObjects objects = new MemoryObjects(this, calls);

  private InMemoryCluster() {}

  @Override
  boolean namespaceExists(String namespace) {
    return objects.namespaces.containsKey(namespace);
  }

  /** An empty cluster with namespace {@code default} and storage class {@code standard}. */
  public static InMemoryCluster create() {
    return new InMemoryCluster();
  }

  /** The fault plan; add rules to it to make operations fail, slow down or crash. */
  public FaultPlan<Operation> faults() {
    return calls.faults;
  }

  // ---------------------------------------------------------------- behind the engine's back

  /** Creates a storage class. */
  public synchronized InMemoryCluster createStorageClass(String name) {
    objects.createStorageClass(name);
    return this;
  }

  /** Creates a namespace (without logging it as an engine operation). */
  public synchronized InMemoryCluster addNamespace(String name) {
    objects.addNamespace(name);
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
    objects.applyNamespace(name, manager, labels, annotations);
    return this;
  }

  /**
   * Serves a custom kind, as if its CRD had been installed by someone else. Every built-in kind is
   * served, and so is the kind of every CustomResourceDefinition applied to this cluster.
   */
  public synchronized InMemoryCluster serve(Kind kind) {
    objects.serve(kind);
    return this;
  }

  /** Puts the objects of an item unowned, as if someone created them by hand. */
  public InMemoryCluster put(ResourceSpec spec) {
    return put(spec, null);
  }

  /** Puts the objects of an item with the given stamp (or none), as if another tool wrote it. */
  public synchronized InMemoryCluster put(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    objects.put(spec, stamp);
    return this;
  }

  /** The field manager of {@link #edit(ResourceRef, UnaryOperator)}. */
  public static final String EDIT_MANAGER = "edit";

  /**
   * Changes an object's content, keeping its stamp, as an out-of-band edit would (another writer: a
   * person, a controller), under the field manager {@value #EDIT_MANAGER}. Drift is told by what
   * was applied: a field the edit changes or removes that the last stamped write set with a value
   * is drift; a field it fills in that that write did not set, or set to an empty map or list, is
   * not.
   */
  public synchronized InMemoryCluster edit(ResourceRef ref, UnaryOperator<Manifest> change) {
    return edit(ref, EDIT_MANAGER, null, change);
  }

  /**
   * Changes an object's content as {@link #edit(ResourceRef, UnaryOperator)} does, as field manager
   * {@code manager} writing through {@code subresource} ({@code scale}, or {@code null} for the
   * object itself), as server-side apply's managed fields would record it: a field Capstan applied
   * that the edit changes is then {@code manager}'s (the plan says {@code field spec.replicas set
   * by kubectl (scale subresource)}), which a drift ignore rule of managers may trust; a field it
   * removes is nobody's. {@code kubectl scale deploy web --replicas=5} is {@code edit(web,
   * "kubectl", "scale", o -> o.with("spec.replicas", 5))}.
   */
  public synchronized InMemoryCluster edit(
      ResourceRef ref,
      String manager,
      @Nullable String subresource,
      UnaryOperator<Manifest> change) {
    objects.edit(
        ref, new StoredObject.Writer(requireNonNull(manager, "manager"), subresource), change);
    return this;
  }

  /**
   * Sets a CustomResourceDefinition's {@code status.storedVersions}, as the status patch that ends
   * a storage migration would (its objects written again at the versions kept).
   */
  public synchronized InMemoryCluster storedVersions(ResourceRef crd, List<String> versions) {
    objects.storedVersions(crd, versions);
    return this;
  }

  /** Deletes an object whoever owns it, as an out-of-band delete would. */
  public synchronized InMemoryCluster deleteOutOfBand(ResourceRef ref) {
    objects.deleteOutOfBand(ref);
    return this;
  }

  /**
   * Makes every workload (and pod, and Job) whose pod template runs {@code image} fail its health
   * check with {@code reason}.
   */
  public synchronized InMemoryCluster neverReady(String image, String reason) {
    objects.health.neverReady(image, reason);
    return this;
  }

  /**
   * Makes every Job and Pod whose pod template runs {@code image} fail when a hook awaits its
   * completion ({@link #awaitCompletion}), with {@code reason} (e.g. {@code pod migrate-1:
   * container main: Error (exit code 1)}), as a failing migration would on Kubernetes.
   */
  public synchronized InMemoryCluster failToComplete(String image, String reason) {
    objects.health.failToComplete.put(
        requireNonNull(image, "image"), requireNonNull(reason, "reason"));
    return this;
  }

  /**
   * Makes {@code ref} report {@code status} (its {@code status} field, as its controller would
   * write it): its health is then judged from its content and this status by the health rules
   * ({@code dev.capstan.common.health}; over one wait, {@code dev.capstan.release.health}), as on
   * Kubernetes ({@code Ready=False} waits, {@code Stalled=True} fails, an APIService that stays
   * {@code Available=False} fails, a LoadBalancer Service without {@code loadBalancer.ingress}
   * waits...), instead of being healthy once it exists. It may be set before the object is written,
   * and lasts, through applies and deletes of the object, until it is set again or {@linkplain
   * #clearStatus cleared}. An in-memory wait never waits: what would still be pending after the
   * whole timeout with nothing changing times out at once.
   *
   * @param ref the object
   * @param status the status tree (nested maps, lists, strings, numbers, booleans)
   * @return this cluster
   */
  public synchronized InMemoryCluster reportStatus(ResourceRef ref, Map<String, ?> status) {
    objects.health.reportStatus(ref, status);
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
    objects.health.reportCondition(ref, type, status, reason, message);
    return this;
  }

  /** Stops {@code ref} reporting a status: it is healthy once it exists again. */
  public synchronized InMemoryCluster clearStatus(ResourceRef ref) {
    objects.health.clearStatus(ref);
    return this;
  }

  /**
   * Replaces the stored lease of a release, naming no intent, as a holder that died would leave it
   * (one that recorded its intent as a {@code PENDING} revision).
   */
  public synchronized InMemoryCluster putLease(String namespace, String name, Lease lease) {
    records.putLease(namespace, name, requireNonNull(lease, "lease"));
    return this;
  }

  // ---------------------------------------------------------------- inspection

  /** The content of an object, if it exists. */
  public synchronized Optional<Manifest> object(ResourceRef ref) {
    return objects.object(ref);
  }

  /** The stamp of an object, if it exists and is stamped. */
  public synchronized Optional<OwnershipStamp> stamp(ResourceRef ref) {
    return objects.stamp(ref);
  }

  /** Every object, in apply order. */
  public synchronized List<ResourceRef> objects() {
    return objects.objects();
  }

  /** The namespaces. */
  public synchronized Set<String> namespaces() {
    return objects.namespaceNames();
  }

  /**
   * A namespace as observed: its name, labels and annotations (every manager's), or empty when it
   * does not exist.
   */
  public synchronized Optional<Manifest> namespace(String name) {
    return objects.namespace(name);
  }

  /**
   * Every operation since creation or {@link #clearOperations()}, in order: {@code
   * observe:apps/Deployment/default} (kind and namespace), {@code apply:KEY}, {@code dry-run:KEY},
   * {@code verify-apply:KEY}, {@code delete:KEY}, {@code unstamp:KEY}, {@code verify}, {@code
   * namespace:NAME}, {@code record:create:NS/NAME#REV:STATUS}, {@code
   * record:update:NS/NAME#REV:STATUS}, {@code record:delete:NS/NAME#REV}, {@code
   * record:read:NS/NAME} (one release's), {@code record:read:NS} (the latest of a namespace),
   * {@code record:read:NS/{A,B}} (some releases' together), {@code lease:acquire:NS/NAME}, {@code
   * lease:renew:NS/NAME}, {@code lease:release:NS/NAME}.
   */
  public synchronized List<String> operations() {
    return calls.operations();
  }

  /**
   * The operations that wrote objects or verified services, in order (no reads, records, leases).
   */
  public synchronized List<String> writes() {
    return calls.writes();
  }

  /** How many calls of each operation were made (every operation present). */
  public synchronized Map<Operation, Integer> counts() {
    return calls.counts();
  }

  /** Forgets the operation log and counts. */
  public synchronized void clearOperations() {
    calls.clear();
  }

  // ---------------------------------------------------------------- persistence

  /**
   * The cluster's state as JSON: objects with their stamps, namespaces, storage classes, served
   * custom kinds, records (the codec's bytes), leases, never-ready images and reported statuses.
   * Faults and the operation log are not included. Records and secret objects hold secret values:
   * keep the bytes as private as the secrets themselves.
   */
  public synchronized byte[] exportState() {
    return StateFormat.export(objects, records);
  }

  /**
   * A cluster holding a state made by {@link #exportState()}.
   *
   * @throws IllegalArgumentException if the bytes are not such a state
   */
  public static InMemoryCluster importState(byte[] state) {
    InMemoryCluster c = new InMemoryCluster();
    StateFormat.load(state, c, c.objects, c.records);
    return c;
  }

  // ---------------------------------------------------------------- ports

  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    return objects.observe(kind, namespace, names, Map.of());
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory as on Kubernetes: drift is the fields of {@code applied}'s object (else of what
   * was last written with a stamp) that the live object no longer holds as applied.
   */
  @Override
  public List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    return objects.observe(kind, namespace, names, applied);
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
    objects.apply(object, stamp, precondition, List.of());
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory as on Kubernetes: a field the object leaves out keeps its live value when another
   * writer changed it since Capstan's last write ({@link #edit(ResourceRef, String, String,
   * UnaryOperator)}), or when it is among {@code givenUp}.
   */
  @Override
  public void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    objects.apply(object, stamp, precondition, givenUp);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory an object is stored exactly as applied, so the result is {@code object}; the call
   * is logged as {@code dry-run:KEY} and changes nothing.
   */
  @Override
  public synchronized Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    return objects.dryRunApply(object, stamp);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, refused as {@link #apply} would refuse it: a standing fault on {@link
   * Operation#APPLY} for the object ({@code faults().failOn(APPLY, key)} or {@code failAlways}),
   * with the fault's message; an immutable field changed (HTTP 422); a precondition not met throws
   * {@link dev.capstan.release.port.PreconditionFailedException} (HTTP 409). Logged {@code
   * verify-apply:KEY} (not a write); a fault on {@link Operation#VERIFY_APPLY} is the cluster
   * failing to answer.
   */
  @Override
  public Optional<String> verifyApply(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    return objects.verifyApply(object, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, the objects of {@code kind}'s group and kind, whatever their version (an API
   * server lists every object of a CRD at each served version), in apply order.
   */
  @Override
  public synchronized Optional<Orchestrator.Instances> instances(Kind kind, int limit) {
    List<ResourceRef> all = objects.objects().stream().filter(r -> r.kind().equals(kind)).toList();
    return Optional.of(
        new Orchestrator.Instances(
            all.subList(0, Math.min(limit, all.size())), all.size() > limit));
  }

  @Override
  public synchronized Optional<String> checkKind(Kind kind) {
    return objects.checkKind(kind);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A delete the precondition fences is logged {@code fenced:delete:KEY}; an absent object is
   * not deleted, with or without a precondition.
   */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    return objects.delete(ref, owner, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>An un-stamp the precondition fences is logged {@code fenced:unstamp:KEY}.
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    return objects.unstamp(ref, owner, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, a delete finishes at once: ready unless one of {@code objects} exists (deleted
   * and re-created since), logged {@code await-deleted}.
   */
  @Override
  public Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    return this.objects.awaitDeleted(objects, timeout);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory, a hook's Job or Pod completes at once, logged {@code await:KEY}: it succeeds,
   * unless its pod template runs an image {@linkplain #failToComplete made to fail} (failed with
   * that reason) or {@linkplain #neverReady never ready} (it times out, last seen as {@code Kind
   * namespace/name: REASON}); a missing one fails with {@code not found}. No progress is reported.
   */
  @Override
  public Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    return objects.awaitCompletion(ref, timeout);
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
    return this.objects.awaitReady(objects, wait);
  }

  @Override
  public void createNamespace(String name) {
    objects.createNamespace(name);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Logged {@code ensure:NAME}; the labels and annotations are held per field manager as
   * server-side apply holds them (see {@link #applyNamespace}).
   */
  @Override
  public void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    objects.ensureNamespace(namespace, releaseNamespace, releaseName);
  }
}
