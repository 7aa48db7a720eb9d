package dev.capstan.update.catalog;

import static java.util.Objects.requireNonNull;

/** Which version changes a component accepts, on top of the downgrade guard every component has. */
public sealed interface VersionPolicy {

  /**
   * Returns the policy's name as written in catalog YAML.
   *
   * @return {@code any} or {@code same-minor}
   */
  String label();

  /**
   * Returns the policy that accepts any version change (downgrades still need permission).
   *
   * @return the {@code any} policy
   */
  static VersionPolicy any() {
    return new Any();
  }

  /**
   * Returns the policy that accepts patch updates only: both versions must be semver with the same
   * major and minor version. Used for third-party components whose minor upgrades need their own
   * procedure (cert-manager).
   *
   * @param hint what to do instead, appended to the blocked reason
   * @return the {@code same-minor} policy
   */
  static VersionPolicy sameMinor(String hint) {
    return new SameMinor(hint);
  }

  /** Accepts any version change. */
  record Any() implements VersionPolicy {
    @Override
    public String label() {
      return "any";
    }
  }

  /**
   * Accepts patch updates within one minor version only.
   *
   * @param hint what to do instead, appended to the blocked reason; may be empty
   */
  record SameMinor(String hint) implements VersionPolicy {
    /** Validates the fields. */
    public SameMinor {
      requireNonNull(hint, "hint");
    }

    @Override
    public String label() {
      return "same-minor";
    }
  }
}
