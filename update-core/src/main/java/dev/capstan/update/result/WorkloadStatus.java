package dev.capstan.update.result;

/** What happened to one workload during an apply. */
public enum WorkloadStatus {
  /** Patched and rolled out. */
  UPDATED("updated"),
  /** Already on its target images; not patched. */
  SKIPPED("skipped"),
  /** Its read, patch or rollout failed, and it was not rolled back. */
  FAILED("failed"),
  /** Patched (or half-patched), then restored to its previous images. */
  ROLLED_BACK("rolled-back"),
  /** Restoring its previous images failed; use the recovery commands. */
  ROLLBACK_FAILED("rollback-failed"),
  /** Never reached because an earlier step failed. */
  NOT_ATTEMPTED("not-attempted");

  private final String label;

  WorkloadStatus(String label) {
    this.label = label;
  }

  /**
   * Returns the status as reports write it.
   *
   * @return for example {@code rolled-back}
   */
  public String label() {
    return label;
  }
}
