package dev.capstan.helm;

import dev.capstan.common.Escapes;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The status of a Helm revision, as Helm writes it in {@code info.status}. */
public enum HelmStatus {
  /** {@code unknown}. */
  UNKNOWN("unknown"),
  /** {@code deployed}: the revision in effect. */
  DEPLOYED("deployed"),
  /** {@code uninstalled}, kept with {@code --keep-history}. */
  UNINSTALLED("uninstalled"),
  /** {@code superseded} by a later revision. */
  SUPERSEDED("superseded"),
  /** {@code failed}. */
  FAILED("failed"),
  /** {@code uninstalling}: an uninstall is under way. */
  UNINSTALLING("uninstalling"),
  /** {@code pending-install}: an install is under way. */
  PENDING_INSTALL("pending-install"),
  /** {@code pending-upgrade}: an upgrade is under way. */
  PENDING_UPGRADE("pending-upgrade"),
  /** {@code pending-rollback}: a rollback is under way. */
  PENDING_ROLLBACK("pending-rollback");

  private final String wire;

  HelmStatus(String wire) {
    this.wire = wire;
  }

  /** The status as Helm writes it, e.g. {@code pending-upgrade}. */
  public String wire() {
    return wire;
  }

  /** Whether Helm is in the middle of an operation on the release. */
  public boolean inProgress() {
    return this == UNINSTALLING
        || this == PENDING_INSTALL
        || this == PENDING_UPGRADE
        || this == PENDING_ROLLBACK;
  }

  /**
   * The status Helm writes as {@code wire}.
   *
   * @throws IllegalArgumentException naming the accepted values and the (escaped) value
   */
  static HelmStatus fromWire(String wire) {
    for (HelmStatus s : values()) {
      if (s.wire.equals(wire)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "must be one of "
            + Arrays.stream(values()).map(HelmStatus::wire).collect(Collectors.joining(", "))
            + ": "
            + Escapes.quote(wire));
  }

  @Override
  public String toString() {
    return wire;
  }
}
