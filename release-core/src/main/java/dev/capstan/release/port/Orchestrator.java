package dev.capstan.release.port;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The cluster: observes, applies, deletes and un-stamps objects of any kind, and waits for them to
 * be healthy. Implementations: {@code InMemoryCluster} (release-core), {@code
 * KubernetesOrchestrator} (release-k8s). Every method may throw {@link ClusterException}; none may
 * report a failed read as "absent".
 */
public interface Orchestrator {

  /**
   * Observes, in one batch (one LIST on Kubernetes), the objects of {@code kind} in {@code
   * namespace} among {@code names}. Objects not returned are absent.
   *
   * @param kind the kind
   * @param namespace the namespace, {@code ""} for cluster-scoped kinds
   * @param names the names of interest
   * @return the live objects found among {@code names}, in any order
   */
  List<LiveObject> observe(Kind kind, String namespace, Set<String> names);

  /**
   * Observes as {@link #observe(Kind, String, Set)} does, telling drift by what Capstan applied:
   * {@code applied} holds, by name, the object as the caller would apply it now (the desired
   * object). That is what the live object's stamp names whenever its content hash is the desired
   * one, the only case in which a plan reads drift. A field that object does not set, or sets to an
   * empty map or list, is then never drift, whoever fills it in later (a controller writing its
   * certificate into a Secret shipped with empty {@code data}); a field it sets with a value that
   * another writer changed still is. Names without an entry are judged as by {@link #observe(Kind,
   * String, Set)}.
   *
   * <p>The default ignores {@code applied}: for a cluster that knows what it applied (in memory).
   *
   * @param applied the objects as applied, by name (a subset of {@code names}, possibly empty)
   */
  default List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    return observe(kind, namespace, names);
  }

  /**
   * Observes as {@link #observe(Kind, String, Set, Map)} does, told that the last record of {@code
   * owner} names every one of {@code names} among its objects: a cluster that can select objects by
   * their stamp may read just the owner's (on Kubernetes one LIST by the stamp's labels rather than
   * of the whole namespace) and then the names it did not find the ordinary way. The result is the
   * same as without the hint: objects not stamped as {@code owner}'s, or not stamped at all, are
   * found and reported as they are.
   *
   * <p>The default ignores the hint.
   *
   * @param owner the release whose last record names each of {@code names}
   */
  default List<LiveObject> observeOwned(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      ReleaseIdentity owner) {
    return observe(kind, namespace, names, applied);
  }

  /**
   * Whether the engine may run {@link #observe} for several kinds or namespaces at once, one call
   * per thread: a cluster across a network answers them in the time of one round trip rather than
   * of one per scope. The default is {@code false}: the calls come one after another, in a fixed
   * order (in memory, where they cost nothing and tests read their order).
   */
  default boolean observesConcurrently() {
    return false;
  }

  /**
   * Creates or updates the object to hold {@code object}, stamped with {@code stamp}; with a {@code
   * null} stamp, writes it unowned (used to restore the pre-image of an adopted object). No
   * precondition.
   */
  default void apply(Manifest object, @Nullable OwnershipStamp stamp) {
    apply(object, stamp, Precondition.none());
  }

  /**
   * Creates or updates the object as {@link #apply(Manifest, OwnershipStamp)} does, only if it is
   * what {@code precondition} requires: {@link Precondition.Absent} creates (and fails if the
   * object exists), {@link Precondition.Observed} updates the object observed (and fails if it
   * changed, was re-created or is gone).
   *
   * @throws PreconditionFailedException if the object is not what the precondition requires;
   *     nothing was written
   */
  void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition);

  /**
   * Writes the object as {@link #apply(Manifest, OwnershipStamp, Precondition)} does, giving up the
   * fields at {@code givenUp} (JSON pointers, RFC 6901, of fields {@code object} leaves out)
   * without removing them: a field a drift ignore rule now leaves to other writers keeps its live
   * value even when Capstan's earlier write is its only owner (on Kubernetes, server-side apply
   * would remove such a field; the adapter first removes it from Capstan's managed fields,
   * conditioned on the observed resourceVersion, so it stays, owned by nobody until another writer
   * sets it). Fields other writers hold stay as server-side apply leaves them.
   *
   * <p>The default ignores {@code givenUp}: right for a cluster that keeps every field an apply
   * leaves out.
   *
   * @param givenUp the pointers of the fields given up; may be empty
   * @throws PreconditionFailedException if the object is not what the precondition requires;
   *     nothing was written
   */
  default void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    apply(object, stamp, precondition);
  }

  /**
   * The object as the cluster would store it if {@link #apply} wrote {@code object} with {@code
   * stamp} now, without writing anything: on Kubernetes a server-side apply dry run ({@code
   * dryRun=All}, same field manager and force as {@link #apply}), so the result has the server's
   * defaults and the fields other managers own; read back like {@link LiveObject#content()}
   * (without status, server-managed metadata and the stamp). Asked only when a person reviews a
   * plan, for the objects it updates, repairs or adopts, to show their field-level diff.
   *
   * <p>The default returns {@code object}: a cluster that stores objects as applied.
   */
  default Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    return object;
  }

  /**
   * Whether the cluster would accept {@link #apply(Manifest, OwnershipStamp, Precondition)} of
   * {@code object} now, asked without writing anything: on Kubernetes the same server-side apply
   * with {@code dryRun=All} (same body, field manager, force and preconditions, as the same
   * identity), which runs validation, admission (webhooks and policies included), quota and the
   * immutable-field checks and persists nothing. Asked for every object a plan writes, before the
   * first write, when {@code ReleaseOptions.verifyOnServer} is on.
   *
   * <p>The default accepts everything: a cluster that refuses no write.
   *
   * @return empty when the write would be accepted; otherwise the cluster's refusal, as it words it
   *     (with the HTTP status on Kubernetes: {@code 422 Service "web" is invalid:
   *     spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive})
   * @throws PreconditionFailedException if the object is not what {@code precondition} requires (it
   *     moved since the observation): the write would be fenced
   * @throws dev.capstan.common.ClusterException when the cluster cannot answer (unreachable, a
   *     server error): no verdict, not a refusal
   */
  default Optional<String> verifyApply(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    return Optional.empty();
  }

  /**
   * Deletes the object only if it exists and carries a stamp of {@code owner}.
   *
   * @return whether an object was deleted ({@code false}: absent, or not owned by {@code owner})
   */
  default boolean delete(ResourceRef ref, ReleaseIdentity owner) {
    return delete(ref, owner, Precondition.none());
  }

  /**
   * Deletes the object. With {@link Precondition.Observed}, the caller has seen {@code owner}'s
   * stamp in that observation: the object is deleted only if it is still the one observed, unread
   * (on Kubernetes one DELETE with uid and resourceVersion preconditions); otherwise only if it
   * carries {@code owner}'s stamp now.
   *
   * @return whether an object was deleted ({@code false}: absent, or not owned by {@code owner})
   * @throws PreconditionFailedException if the object changed or was re-created since the
   *     observation; nothing was deleted
   */
  boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition);

  /**
   * Removes {@code owner}'s stamp from the object, keeping the object and its data (a volume claim
   * whose reclaim policy is Retain, a CRD the release lets go of, an object annotated {@code
   * helm.sh/resource-policy: keep}).
   *
   * @return whether a stamp was removed ({@code false}: absent, or not owned by {@code owner})
   */
  default boolean unstamp(ResourceRef ref, ReleaseIdentity owner) {
    return unstamp(ref, owner, Precondition.none());
  }

  /**
   * Removes {@code owner}'s stamp as {@link #unstamp(ResourceRef, ReleaseIdentity)} does; with
   * {@link Precondition.Observed}, only from the object observed, unread.
   *
   * @return whether a stamp was removed ({@code false}: absent, or not owned by {@code owner})
   * @throws PreconditionFailedException if the object changed, was re-created or is gone since the
   *     observation; nothing was written
   */
  boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition);

  /**
   * Waits until none of {@code objects} exists any more (deletion finished: finalizers run,
   * dependents collected as far as the object's own removal goes), as {@code helm uninstall --wait}
   * does.
   *
   * @param objects the deleted objects to wait for; may be empty
   * @param timeout how long to wait in all
   * @return {@link Readiness.Ready} once all are gone, or {@link Readiness.TimedOut} naming those
   *     still present
   */
  Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout);

  /**
   * Waits until the hook object {@code ref}, a Job or a Pod, has run to completion, as Helm waits
   * for a hook: a Job until its {@code Complete} or {@code Failed} condition, a Pod until its phase
   * is {@code Succeeded} or {@code Failed}.
   *
   * @param ref the Job or Pod
   * @param timeout how long to wait
   * @return {@link Readiness.Ready} when it succeeded; {@link Readiness.Failed} when it failed (or
   *     is gone), with the reason: for a Job, its condition's and its failing pod's ({@code pod
   *     migrate-x7k2p: container main: Error (exit code 1)}); {@link Readiness.TimedOut} when
   *     neither happened within {@code timeout}, with what it was last seen doing when the
   *     orchestrator can tell ({@code Pod shop/smoke: Unschedulable: ...})
   */
  Readiness awaitCompletion(ResourceRef ref, Duration timeout);

  /**
   * Waits as {@link #awaitCompletion(ResourceRef, Duration)} does, telling {@code progress} while
   * the hook runs what it is doing ({@code Job shop/migrate: 0 succeeded, 1 active, 0 failed}), as
   * {@link ReadinessWait#progress()} hears a wait for health: first after 5 s, then every 30 s;
   * called on the waiting thread.
   *
   * <p>The default reports nothing.
   *
   * @param ref the Job or Pod
   * @param timeout how long to wait
   * @param progress hears what is still running and why
   * @return as {@link #awaitCompletion(ResourceRef, Duration)}
   */
  default Readiness awaitCompletion(
      ResourceRef ref, Duration timeout, Consumer<Readiness.Progress> progress) {
    return awaitCompletion(ref, timeout);
  }

  /** Creates a namespace (for {@code createNamespace}); it stays unowned. */
  void createNamespace(String name);

  /**
   * Ensures a namespace a release carries as a document ({@code EnsuredNamespace}): creates it when
   * missing, and applies its labels and annotations as {@code release}'s own fields, so that labels
   * and annotations other releases or tools set stay, and those this release applied before and no
   * longer has are removed unless another manager holds them too. It stays unowned (no stamp). On
   * Kubernetes one server-side apply under the release's field manager ({@code
   * EnsuredNamespace.fieldManager}), forced, without preconditions: two releases ensuring one
   * namespace at once both succeed.
   *
   * @param namespace the Namespace to apply: its name, labels and annotations
   * @param releaseNamespace the home namespace of the release that ensures it
   * @param releaseName the name of that release
   */
  void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName);

  /**
   * Waits as {@link #awaitReady(List, ReadinessWait)} does, for load balancer addresses too,
   * reporting no progress.
   *
   * @param objects the objects to wait for; may be empty
   * @param timeout how long to wait in all
   * @return {@link Readiness.Ready}, or why not
   */
  default Readiness awaitReady(List<ResourceRef> objects, Duration timeout) {
    return awaitReady(objects, ReadinessWait.of(timeout));
  }

  /**
   * Waits until every object in {@code objects} is healthy by the health rules ({@code
   * dev.capstan.common.health}; over one wait, {@code dev.capstan.release.health}), failing fast
   * when one cannot become healthy (a failed Job, a crash loop, an image pull error, an
   * unschedulable pod, a quota, a terminal condition, an object deleted before it was healthy) with
   * the reason. An object of a kind without a health rule is healthy once it exists. While it
   * waits, {@link ReadinessWait#progress()} hears what is still pending and why.
   *
   * @param objects the objects to wait for; may be empty
   * @param wait the timeout, whether to wait for load balancer addresses, and who hears progress
   * @return {@link Readiness.Ready}, {@link Readiness.Failed} naming the object and why, or {@link
   *     Readiness.TimedOut} with what each pending object was last waiting for
   */
  Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait);

  /**
   * Some of the objects of the custom kind {@code kind} the cluster stores, read at {@code kind}'s
   * version across every namespace (on Kubernetes one LIST with {@code limit}): whether a CRD
   * change that narrows a schema can break anything (the CRD gate asks only when it finds a
   * property removed or a required field added). Empty when the cluster cannot tell: the gate then
   * judges as if objects were stored.
   *
   * <p>The default cannot tell.
   *
   * @param kind the custom kind, at the version to read
   * @param limit at most how many objects to name
   */
  default Optional<Instances> instances(Kind kind, int limit) {
    return Optional.empty();
  }

  /**
   * Objects of a kind as {@link #instances} found them.
   *
   * @param found some of them, at most the limit asked
   * @param more whether there are more than {@code found}
   */
  record Instances(List<ResourceRef> found, boolean more) {
    /** Copies the list. */
    public Instances {
      found = List.copyOf(found);
    }

    /** Whether none is stored. */
    public boolean none() {
      return found.isEmpty() && !more;
    }
  }

  /**
   * Why the cluster cannot hold objects of {@code kind} as the release has them (a kind it does not
   * serve, or a scope that differs from the cluster's), or empty when it can. Asked before anything
   * is written, for every kind of the release that no CRD of the same release defines.
   */
  default Optional<String> checkKind(Kind kind) {
    return Optional.empty();
  }

  /**
   * Why the cluster would store a number of {@code object} as another number, one problem per
   * number joined by {@code "; "} ({@code Deployment shop/web: spec.replicas must be ...:
   * 4294967298}), or empty when it stores each as written or cannot tell. Asked before anything is
   * written, for every object of the release that holds a number beyond 32 bits: on Kubernetes a
   * built-in kind's 32-bit integer field keeps only the low 32 bits of a larger integer, with no
   * error.
   *
   * <p>The default finds nothing: a cluster that stores numbers as written.
   */
  default Optional<String> checkNumbers(Manifest object) {
    return Optional.empty();
  }
}
