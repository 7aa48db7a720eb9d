package dev.capstan.update.plan;

/** What the plan does with one component. */
public enum PlanAction {
  /** The component's image changes. */
  UPDATE("update"),
  /** The component already runs the release's image. */
  UNCHANGED("unchanged"),
  /** The component is not considered (not selected, opt-in, not installed, ...). */
  SKIP("skip"),
  /** The change is refused (a downgrade, a version-policy violation); the update cannot run. */
  BLOCKED("blocked");

  private final String label;

  PlanAction(String label) {
    this.label = label;
  }

  /**
   * Returns the action as reports write it.
   *
   * @return {@code update}, {@code unchanged}, {@code skip} or {@code blocked}
   */
  public String label() {
    return label;
  }
}
