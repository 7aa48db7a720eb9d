package dev.capstan.cli;

/** The exit codes of the {@code capstan} command, documented in docs/cli.md. */
public final class ExitCode {
  /** Success. */
  public static final int OK = 0;

  /** The operation ran and failed (cast or rollout failed, cluster error, not found). */
  public static final int FAILED = 1;

  /** Invalid input: a bad flag, file or value; nothing was applied. */
  public static final int INVALID = 2;

  /** The plan is blocked or has conflicts; nothing was applied. */
  public static final int BLOCKED = 3;

  /** Another operation holds the release's lease; nothing was applied. */
  public static final int LOCKED = 4;

  /** Not confirmed: the answer was not exactly {@code yes}, or no terminal and no {@code --yes}. */
  public static final int NOT_CONFIRMED = 5;

  /**
   * The reviewed plan is stale: the release or a planned object changed since it was made; nothing
   * was applied. Plan again.
   */
  public static final int STALE = 6;

  /**
   * The destructive-change gate refused the plan: it deletes an object of a protected kind, or more
   * objects than the delete budget allows, that nobody approved by name ({@code --approve-delete});
   * or an uninstall or {@code release test} refused a hook its record lists outside the release's
   * namespace that nobody named ({@code --allow-hook}). Nothing was applied.
   */
  public static final int REFUSED = 7;

  private ExitCode() {}
}
