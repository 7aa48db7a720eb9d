package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.health.HealthRule;
import java.time.Duration;
import java.util.List;

/**
 * How a cast behaves.
 *
 * @param adopt take ownership of existing objects that no release owns (never of another release's)
 * @param atomic on failure, revert every change of this attempt from pre-images, in reverse order
 * @param createNamespace create referenced namespaces that do not exist (they stay unowned)
 * @param timeout how long to wait for the objects written to become healthy
 * @param allowCrdDeletion let prune delete a CustomResourceDefinition the release no longer wants;
 *     off by default, since deleting a CRD deletes every custom resource of it, cluster-wide (the
 *     CRD is un-stamped and kept instead)
 * @param recordSecretValues keep Secrets' values in the release record, for rollback (the default);
 *     when off, the record holds each Secret's data keys and keyed content hash only, and a
 *     rollback to the revision takes the values from the caller
 * @param waitForLoadBalancer whether a Service of type LoadBalancer is healthy only once it has an
 *     address (the default, as with Helm's {@code --wait} and kstatus), or once it exists (for a
 *     cluster without a load balancer controller, where the address never comes)
 * @param dangerousAllowEmpty let a cast whose spec holds no object to own prune every object the
 *     release owns; off by default, so an empty or truncated input (a release file without {@code
 *     spec}, say) is refused before any write instead of deleting the whole release ({@code
 *     uninstall} is the way to remove it)
 * @param allowUnsafeCrdChanges let a cast or rollback apply a change to a live
 *     CustomResourceDefinition that breaks the objects stored at it: a stored version no longer
 *     served, the storage version changed without a path, a schema narrowed. Off by default: such a
 *     plan is refused before any write. A stored version removed from {@code spec.versions} is
 *     refused whatever this says, since the API server refuses it too (ARCHITECTURE.md, "The 3-way
 *     plan")
 * @param driftIgnore the rules that leave fields of the release's objects to other writers: neither
 *     reported as drift nor written over ({@link DriftIgnore}); none by default
 * @param replaceOnImmutable let a plan delete and re-create an object whose update changes a field
 *     the API server keeps immutable ({@link ImmutableFields}: a Deployment's selector, a Job's
 *     template, a claim's data source); off by default. An object opts in alone with the annotation
 *     {@code capstan.dev/replace-on-immutable: "true"}. The plan shows such a change as {@code
 *     replace}, destructive: the destructive-change gate judges it as a delete, and a CRD is
 *     replaced only with {@code allowCrdDeletion}. A cast never deletes what its plan did not show:
 *     an update refused as immutable for another field fails the cast
 * @param verifyOnServer send every object the plan writes to the cluster as a dry run of the write
 *     the cast will make, before the first write (on Kubernetes a server-side apply with {@code
 *     dryRun=All}, same field manager, same preconditions, as the release's identity), so that what
 *     the API server refuses (validation, admission, quota, an immutable field) is a conflict of
 *     the plan, naming the object and the server's message, and nothing is written. Off in {@link
 *     #defaults()} (a host's request count per cast stays as it was); the CLI, the release file and
 *     the controller turn it on unless the cast is atomic (ARCHITECTURE.md, "Verified plans")
 * @param healthRules the release's health rules in CEL ({@link HealthRule}), asked before the
 *     shipped defaults and the built-in rules when its objects' health is waited for; none by
 *     default (docs/health-rules.md)
 * @param deleteGate the policy a plan's deletes pass before the first write, and the objects
 *     approved by name ({@link DeleteGate}); by default four kinds protected, no budget
 */
public record ReleaseOptions(
    boolean adopt,
    boolean atomic,
    boolean createNamespace,
    Duration timeout,
    boolean allowCrdDeletion,
    boolean recordSecretValues,
    boolean waitForLoadBalancer,
    boolean dangerousAllowEmpty,
    boolean allowUnsafeCrdChanges,
    List<DriftIgnore> driftIgnore,
    boolean replaceOnImmutable,
    boolean verifyOnServer,
    DeleteGate deleteGate,
    List<HealthRule> healthRules) {
  /** The default readiness timeout, 15 minutes. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(15);

  private static final ReleaseOptions DEFAULTS =
      new ReleaseOptions(false, false, false, DEFAULT_TIMEOUT, false, true, true, false, false);

  /** Requires a positive timeout; copies the rules. */
  public ReleaseOptions {
    requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "timeout must be positive: " + dev.capstan.common.Durations.format(timeout));
    }
    driftIgnore = List.copyOf(driftIgnore);
    requireNonNull(deleteGate, "deleteGate");
    healthRules = List.copyOf(healthRules);
  }

  /** Options with the default {@link DeleteGate} and no health rule of the release's own. */
  public ReleaseOptions(
      boolean adopt,
      boolean atomic,
      boolean createNamespace,
      Duration timeout,
      boolean allowCrdDeletion,
      boolean recordSecretValues,
      boolean waitForLoadBalancer,
      boolean dangerousAllowEmpty,
      boolean allowUnsafeCrdChanges,
      List<DriftIgnore> driftIgnore,
      boolean replaceOnImmutable,
      boolean verifyOnServer) {
    this(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        DeleteGate.defaults(),
        List.of());
  }

  /** Options with the given delete gate, unverified, without health rules of their own. */
  public ReleaseOptions(
      boolean adopt,
      boolean atomic,
      boolean createNamespace,
      Duration timeout,
      boolean allowCrdDeletion,
      boolean recordSecretValues,
      boolean waitForLoadBalancer,
      boolean dangerousAllowEmpty,
      boolean allowUnsafeCrdChanges,
      List<DriftIgnore> driftIgnore,
      boolean replaceOnImmutable,
      DeleteGate deleteGate) {
    this(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        false,
        deleteGate,
        List.of());
  }

  /** Options with the default {@link DeleteGate}, unverified. */
  public ReleaseOptions(
      boolean adopt,
      boolean atomic,
      boolean createNamespace,
      Duration timeout,
      boolean allowCrdDeletion,
      boolean recordSecretValues,
      boolean waitForLoadBalancer,
      boolean dangerousAllowEmpty,
      boolean allowUnsafeCrdChanges,
      List<DriftIgnore> driftIgnore,
      boolean replaceOnImmutable) {
    this(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        DeleteGate.defaults());
  }

  /** Options without ignore rules that never replace an object. */
  public ReleaseOptions(
      boolean adopt,
      boolean atomic,
      boolean createNamespace,
      Duration timeout,
      boolean allowCrdDeletion,
      boolean recordSecretValues,
      boolean waitForLoadBalancer,
      boolean dangerousAllowEmpty,
      boolean allowUnsafeCrdChanges) {
    this(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        List.of(),
        false,
        false);
  }

  /**
   * Options that record Secrets' values, wait for load balancer addresses, refuse an empty cast
   * over owned objects and refuse unsafe CRD changes.
   */
  public ReleaseOptions(
      boolean adopt,
      boolean atomic,
      boolean createNamespace,
      Duration timeout,
      boolean allowCrdDeletion) {
    this(adopt, atomic, createNamespace, timeout, allowCrdDeletion, true, true, false, false);
  }

  /**
   * No adopt, not atomic, no namespace creation, 15 minutes, Secrets' values recorded, load
   * balancer addresses waited for, no empty cast over owned objects, no unsafe CRD change, no
   * ignore rule, no replacement.
   */
  public static ReleaseOptions defaults() {
    return DEFAULTS;
  }

  /** The rules that apply to {@code ref}, in order. */
  public List<DriftIgnore> driftIgnoreFor(ResourceRef ref) {
    if (driftIgnore.isEmpty()) {
      return List.of();
    }
    return driftIgnore.stream().filter(r -> r.matches(ref)).toList();
  }

  /** A copy with {@code adopt} set. */
  public ReleaseOptions withAdopt(boolean adopt) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code atomic} set. */
  public ReleaseOptions withAtomic(boolean atomic) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code createNamespace} set. */
  public ReleaseOptions withCreateNamespace(boolean createNamespace) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with the given readiness timeout. */
  public ReleaseOptions withTimeout(Duration timeout) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code allowCrdDeletion} set. */
  public ReleaseOptions withAllowCrdDeletion(boolean allowCrdDeletion) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code recordSecretValues} set. */
  public ReleaseOptions withRecordSecretValues(boolean recordSecretValues) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code waitForLoadBalancer} set. */
  public ReleaseOptions withWaitForLoadBalancer(boolean waitForLoadBalancer) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code dangerousAllowEmpty} set. */
  public ReleaseOptions withDangerousAllowEmpty(boolean dangerousAllowEmpty) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code allowUnsafeCrdChanges} set. */
  public ReleaseOptions withAllowUnsafeCrdChanges(boolean allowUnsafeCrdChanges) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with the given ignore rules. */
  public ReleaseOptions withDriftIgnore(List<DriftIgnore> driftIgnore) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code replaceOnImmutable} set. */
  public ReleaseOptions withReplaceOnImmutable(boolean replaceOnImmutable) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with {@code verifyOnServer} set. */
  public ReleaseOptions withVerifyOnServer(boolean verifyOnServer) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with the given delete gate. */
  public ReleaseOptions withDeleteGate(DeleteGate deleteGate) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }

  /** A copy with the given health rules ({@link HealthRule}; the first of equals wins). */
  public ReleaseOptions withHealthRules(List<HealthRule> healthRules) {
    return new ReleaseOptions(
        adopt,
        atomic,
        createNamespace,
        timeout,
        allowCrdDeletion,
        recordSecretValues,
        waitForLoadBalancer,
        dangerousAllowEmpty,
        allowUnsafeCrdChanges,
        driftIgnore,
        replaceOnImmutable,
        verifyOnServer,
        deleteGate,
        healthRules);
  }
}
