package dev.capstan.update.build;

/** The source checkout images are built from. */
public interface SourceTree {

  /**
   * Returns the checked-out commit.
   *
   * @return the 40-hex commit id
   */
  String headCommit();

  /**
   * Tells whether the checkout has no uncommitted changes (untracked files count).
   *
   * @return true when clean
   */
  boolean isClean();
}
