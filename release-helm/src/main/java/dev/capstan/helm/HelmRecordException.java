package dev.capstan.helm;

import dev.capstan.release.error.ReleaseException;

/**
 * A Helm release record that Capstan refuses to read: corrupt, too large, of an unknown storage
 * version or missing a field. The message names the record ({@code Secret
 * shop/sh.helm.release.v1.shop.v2}) and the rule; it never quotes the record's content. Thrown
 * before anything is written.
 */
public final class HelmRecordException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** The record, as {@code Kind namespace/name}. */
  private final String record;

  /**
   * Creates the exception.
   *
   * @param record the record, as {@code Kind namespace/name}
   * @param rule the rule it breaks
   */
  public HelmRecordException(String record, String rule) {
    super("Helm release record " + record + ": " + rule);
    this.record = record;
  }

  /** The record, as {@code Kind namespace/name}. */
  public String record() {
    return record;
  }
}
