package dev.capstan.update.plan;

/** Whether an image is built from source or reused from the registry. */
public enum ImageAction {
  /** Build the image and push it. */
  BUILD("build"),
  /** The image is already in the registry. */
  REUSE("reuse");

  private final String label;

  ImageAction(String label) {
    this.label = label;
  }

  /**
   * Returns the action as reports write it.
   *
   * @return {@code build} or {@code reuse}
   */
  public String label() {
    return label;
  }
}
