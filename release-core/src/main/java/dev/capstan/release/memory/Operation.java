package dev.capstan.release.memory;

/** The port operations of {@link InMemoryCluster}, as counted, logged and faulted. */
public enum Operation {
  /** {@code observe}: a batch read of one kind in one namespace. */
  OBSERVE,
  /** {@code apply}: create or update an object. */
  APPLY,
  /** {@code delete}: delete an owned object. */
  DELETE,
  /** {@code unstamp}: remove the ownership stamp, keep the object. */
  UNSTAMP,
  /** {@code awaitReady}: wait for services. */
  AWAIT_READY,
  /** {@code createNamespace}. */
  CREATE_NAMESPACE,
  /** Reading release records (latest, history, list). */
  RECORD_READ,
  /** {@code createRecord}. */
  RECORD_CREATE,
  /** {@code updateRecord}. */
  RECORD_UPDATE,
  /** {@code deleteRecord}. */
  RECORD_DELETE,
  /** {@code acquireLease}. */
  LEASE_ACQUIRE,
  /** {@code renewLease}. */
  LEASE_RENEW,
  /** {@code releaseLease}. */
  LEASE_RELEASE,
  /** {@code awaitDeleted}: wait for deletions to finish. */
  AWAIT_DELETED,
  /** {@code Orchestrator.awaitCompletion}: a hook's Job or Pod awaited. */
  AWAIT_COMPLETION,
  /** {@code ensureNamespace}: create a namespace, or apply its labels and annotations. */
  ENSURE_NAMESPACE,
  /**
   * {@code verifyApply}: a dry run of an apply. A fault on it is the cluster failing to answer; a
   * standing fault on {@link #APPLY} for the object is a refusal.
   */
  VERIFY_APPLY
}
