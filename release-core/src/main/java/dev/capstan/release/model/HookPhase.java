package dev.capstan.release.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * When a hook runs, as Helm names the phases ({@code helm.sh/hook: pre-upgrade}): around an
 * install, an upgrade, a rollback and an uninstall, and on {@code release test}. An install is a
 * cast of a release with no recorded revision (or only an uninstalled one); every other cast is an
 * upgrade; a rollback runs the rollback phases instead of the upgrade ones (ARCHITECTURE.md,
 * "Hooks").
 */
public enum HookPhase {
  /** Before the first write of a first cast. */
  PRE_INSTALL,
  /** After a first cast's objects are written and healthy. */
  POST_INSTALL,
  /** Before the first write of a cast over a recorded revision. */
  PRE_UPGRADE,
  /** After such a cast's objects are written and healthy. */
  POST_UPGRADE,
  /** Before the first write of a rollback. */
  PRE_ROLLBACK,
  /** After a rollback's objects are written and healthy. */
  POST_ROLLBACK,
  /** Before an uninstall deletes anything. */
  PRE_DELETE,
  /** After an uninstall has deleted the release's objects. */
  POST_DELETE,
  /** On {@code release test} alone. */
  TEST;

  /** Whether it runs before an operation's writes: a {@code pre-} phase. */
  public boolean before() {
    return name().startsWith("PRE_");
  }

  /** The name as annotations write it: {@code pre-install}, ..., {@code test}. */
  public String annotationValue() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The phase an annotation names; Helm's deprecated {@code test-success} is {@link #TEST}.
   *
   * @return the phase, or empty when {@code value} names none
   */
  public static Optional<HookPhase> parse(String value) {
    if (value.equals("test-success")) {
      return Optional.of(TEST);
    }
    return Arrays.stream(values()).filter(p -> p.annotationValue().equals(value)).findFirst();
  }

  @Override
  public String toString() {
    return annotationValue();
  }
}
