package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The release engine's {@link Orchestrator} on Kubernetes, for objects of any kind, through
 * client-java's dynamic API and a REST mapping from discovery (see {@link Discovery}): one generic
 * path, with no per-kind code but the health rules.
 *
 * <ul>
 *   <li>{@link #observe}: one LIST (paged) of the kind in the namespace, filtered to the names
 *       (with a single name, selected by field); the live content without what the server manages
 *       and without the stamp, the stamp, and {@linkplain Drift drift} from {@code managedFields};
 *       for a CustomResourceDefinition, its {@code status} too. A single Namespace is one GET
 *       instead: a RoleBinding in a namespace can grant {@code get} on that namespace, while {@code
 *       list} of namespaces takes a ClusterRoleBinding, so an account confined to its namespace (a
 *       Release's service account) can plan a release there.
 *   <li>{@link #apply}: stamped with the ownership labels and annotations, one server-side apply
 *       (PATCH) under field manager {@code capstan}, forced (the plan has decided). An update
 *       carries the observed {@code metadata.uid} and {@code resourceVersion} in the body as
 *       preconditions; a create ({@link Precondition.Absent}) carries {@link
 *       Applies#CREATE_ONLY_VERSION} as its {@code resourceVersion}, which no stored object has:
 *       the API server creates an absent object (ignoring it) and refuses an existing one with 409
 *       Conflict. The created fields are Capstan's apply entry's, so a later apply that drops one
 *       removes it.
 *   <li>{@link #dryRunApply}: the server-side apply PATCH an update would send, with {@code
 *       dryRun=All}, for a reviewed plan's diff; {@link #verifyApply}: the very PATCH {@link
 *       #apply} sends, with {@code dryRun=All}, for a verified plan.
 *   <li>{@link #delete}: with the observed uid and resourceVersion, one DELETE with them as
 *       preconditions (background propagation); without, a GET and such a DELETE, only when the
 *       object carries the owner's stamp.
 *   <li>{@link #unstamp}: a JSON merge patch removing the stamp (keeping {@code
 *       capstan.dev/reclaim-policy}) conditioned on the resourceVersion (observed, or read by a
 *       GET).
 *   <li>{@link #awaitReady}: see {@link HealthWatch}.
 *   <li>{@link #awaitDeleted}: see {@link DeletionWatch}.
 * </ul>
 *
 * <p>This class names the operations; each job is a class of its own, one forward step each: {@link
 * Observations} (observe), {@link Applies} (apply), {@link DryRuns} (server-side dry runs), {@link
 * Removals} (delete, unstamp), the waits ({@link HealthWatch}, {@link HookCompletions}, {@link
 * DeletionWatch}), and {@link ServedKinds}, which refuses a kind the cluster does not serve before
 * any write.
 *
 * <p>A conditioned write that the API server refuses with 409 throws {@link
 * PreconditionFailedException}.
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; an interrupted wait or request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesOrchestrator implements Orchestrator {
  private final DynamicApis apis;
  private final HealthWatch health;
  private final DeletionWatch deletions;
  private final HookCompletions completions;
  private final ServedKinds kinds;
  private final Observations observations;
  private final Applies applies;
  private final DryRuns dryRuns;
  private final Removals removals;

  /** An orchestrator on the given clients. */
  public KubernetesOrchestrator(KubeClients clients) {
    requireNonNull(clients, "clients");
    this.apis = new DynamicApis(clients);
    this.health = new HealthWatch(apis);
    this.deletions = new DeletionWatch(apis);
    this.completions = new HookCompletions(apis);
    this.kinds = new ServedKinds(apis);
    this.observations = new Observations(apis);
    this.applies = new Applies(apis, kinds, health);
    this.dryRuns = new DryRuns(apis, kinds);
    this.removals = new Removals(apis, kinds);
  }

  /**
   * How many discovery rounds this orchestrator has read (each is {@code GET /api} and {@code
   * /apis}).
   */
  public int discoveryRounds() {
    return apis.discovery().rounds();
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST (paged) of the kind in the namespace, filtered to {@code names}; with a single
   * name, the LIST selects it by field (a single Namespace is one GET). Record Secrets are left out
   * of a Secret LIST by label. A kind the cluster does not serve (after reading discovery again
   * once) has no objects.
   */
  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    return observe(kind, namespace, names, Map.of());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The same one LIST; what Capstan applied decides only which fields other managers own are
   * drift ({@link Drift}), so it costs no request.
   */
  @Override
  public List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    return observations.observe(kind, namespace, names, applied);
  }

  /**
   * {@inheritDoc}
   *
   * <p>With several names of a kind Capstan stamps, the one LIST selects by the stamp's labels
   * ({@link Stamps#selector}): the owner's objects alone, not every object of the kind in the
   * namespace. Names it does not find (deleted, or their labels edited away) are read again as
   * {@link #observe(Kind, String, Set, Map)} reads them, in a second request.
   */
  @Override
  public List<LiveObject> observeOwned(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      ReleaseIdentity owner) {
    return observations.observeOwned(kind, namespace, names, applied, owner);
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@code true}: each {@link #observe} is one LIST of its own, on the shared connection pool.
   */
  @Override
  public boolean observesConcurrently() {
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply (PATCH) under field manager {@code capstan}, forced: the plan has
   * decided that Capstan's fields win. Without a stamp, the object is written without one (and
   * server-side apply drops the stamp fields Capstan owned).
   */
  @Override
  public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    applies.apply(object, stamp, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>With fields to give up on an observed object: a GET, and when Capstan's apply owns one of
   * them a merge patch of its managed fields without them ({@link FieldManagers#giveUp}), then the
   * apply on the patched resourceVersion.
   */
  @Override
  public void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    applies.apply(object, stamp, precondition, givenUp);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply PATCH with {@code dryRun=All}, of the body {@link #apply} would send,
   * under the same field manager, forced; the result read back as {@link #observe} reads content.
   */
  @Override
  public Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    return dryRuns.apply(object, stamp);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The very server-side apply PATCH {@link #apply} sends, preconditions included, with {@code
   * dryRun=All}, through the same client (so as the same identity); see {@link DryRuns#verify}.
   */
  @Override
  public Optional<String> verifyApply(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    return dryRuns.verify(object, stamp, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A GET and a DELETE (background propagation, with the read uid and resourceVersion as
   * preconditions), only when the object carries {@code owner}'s stamp.
   */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    return removals.delete(ref, owner, precondition);
  }

  /**
   * {@inheritDoc} A GET and a JSON merge patch (conditioned on the resourceVersion) removing the
   * stamp's labels and annotations; {@code capstan.dev/reclaim-policy} stays.
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    return removals.unstamp(ref, owner, precondition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST of the kind at its version across every namespace, with {@code limit}; empty when
   * the kind is not served at that version.
   */
  @Override
  public Optional<Instances> instances(Kind kind, int limit) {
    return observations.instances(kind, limit);
  }

  /** {@inheritDoc} One CREATE; a namespace that exists already is left as it is. */
  @Override
  public void createNamespace(String name) {
    JsonObject ns = new JsonObject();
    ns.addProperty("apiVersion", "v1");
    ns.addProperty("kind", "Namespace");
    JsonObject meta = new JsonObject();
    meta.addProperty("name", name);
    ns.add("metadata", meta);
    try {
      apis.api(DynamicApis.NAMESPACES).calls.create(new DynamicKubernetesObject(ns));
    } catch (ClusterException e) {
      if (e.status() != 409) {
        throw e;
      }
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply (PATCH) of the namespace's {@code apiVersion}, {@code kind}, name,
   * labels and annotations under the release's field manager ({@code
   * EnsuredNamespace.fieldManager}), forced, without preconditions: it creates a missing namespace,
   * and applying it twice, or from two releases at once, is safe.
   */
  @Override
  public void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    requireNonNull(namespace, "namespace");
    if (!namespace.kind().equals(Kind.NAMESPACE)) {
      throw new IllegalArgumentException("not a Namespace: " + namespace.ref().key());
    }
    apis.api(DynamicApis.NAMESPACES)
        .calls
        .applyJson(
            null,
            namespace.name(),
            JsonTrees.toJson(EnsuredNamespace.of(namespace).toManifest().content()),
            EnsuredNamespace.fieldManager(releaseNamespace, releaseName));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Judged with {@code HealthRules}; see {@link HealthWatch} for the requests.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
    requireNonNull(objects, "objects");
    requireNonNull(wait, "wait");
    return health.await(objects, wait);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST of it by name and, while it runs, a WATCH; for a failed Job one LIST of its pods;
   * see {@link HookCompletions}.
   */
  @Override
  public Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    return awaitCompletion(ref, timeout, p -> {});
  }

  /**
   * {@inheritDoc}
   *
   * <p>As {@link #awaitCompletion(ResourceRef, Duration)}, and a LIST after each WATCH, which lasts
   * until the next report is due (for a Job, one more of its pods per report and at a time-out);
   * see {@link HookCompletions}.
   */
  @Override
  public Readiness awaitCompletion(
      ResourceRef ref, Duration timeout, Consumer<Readiness.Progress> progress) {
    kinds.served(ref.kind(), "watch", ref);
    return completions.await(ref, timeout, progress);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Per kind and namespace one LIST and, while one of them still exists, a WATCH for their
   * {@code DELETED} events; see {@link DeletionWatch}.
   */
  @Override
  public Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    requireNonNull(objects, "objects");
    requireNonNull(timeout, "timeout");
    return objects.isEmpty() ? Readiness.ready() : deletions.await(objects, timeout);
  }

  /**
   * {@inheritDoc}
   *
   * <p>From discovery (read again once when the kind is unknown): {@code the cluster does not serve
   * example.com/Widget}, {@code ... at version v2 (it serves v1)}, or a scope that differs.
   */
  @Override
  public Optional<String> checkKind(Kind kind) {
    return kinds.check(kind);
  }

  /**
   * {@inheritDoc}
   *
   * <p>From client-java's model of a built-in kind ({@code Integer} and {@code IntOrString} fields
   * are 32 bits); a custom resource, and a kind or field the model lacks, get no verdict here.
   */
  @Override
  public Optional<String> checkNumbers(Manifest object) {
    return Int32Fields.check(object);
  }
}
