package dev.capstan.release.engine;

import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookPhase;
import org.jspecify.annotations.Nullable;

/**
 * What a hook that did not complete within its timeout is told to do, in the terms of the operation
 * that ran it: every piece of advice works when followed. A hook with its own timeout ({@value
 * Hook#TIMEOUT}) is not timed by the operation's; a rollback, an uninstall and {@code release test}
 * run the hooks a revision recorded, so a new annotation reaches them only through a cast (and a
 * cast is refused while an uninstall is unfinished, as after its post-delete hooks).
 */
final class HookAdvice {
  private static final String ANNOTATION =
      "give it a longer one with the annotation " + Hook.TIMEOUT;

  private final String operationTimeout;
  private final String ownTimeout;
  private final String afterDeletes;
  private final String ownAfterDeletes;

  private HookAdvice(
      String operationTimeout, String ownTimeout, String afterDeletes, String ownAfterDeletes) {
    this.operationTimeout = operationTimeout;
    this.ownTimeout = ownTimeout;
    this.afterDeletes = afterDeletes;
    this.ownAfterDeletes = ownAfterDeletes;
  }

  private HookAdvice(String operationTimeout, String ownTimeout) {
    this(operationTimeout, ownTimeout, operationTimeout, ownTimeout);
  }

  /**
   * For a cast's hooks, or a rollback's when {@code description} says it is one ({@code rollback to
   * N}, {@link RollbackOperation#rolledBackTo}).
   */
  static HookAdvice cast(@Nullable String description) {
    String revision = RollbackOperation.rolledBackTo(description);
    if (revision == null) {
      return new HookAdvice(
          ANNOTATION + ", or cast again with a longer timeout (the CLI's --timeout)", ANNOTATION);
    }
    return new HookAdvice(
        "roll back to revision "
            + revision
            + " again with a longer timeout (the CLI's release rollback --to "
            + revision
            + " --timeout)",
        "a rollback runs the hooks as revision "
            + revision
            + " recorded them, with their annotation "
            + Hook.TIMEOUT
            + ": cast with a longer one instead");
  }

  /** For an uninstall's hooks: its wait ({@code UninstallOptions.waitFor}) times them. */
  static HookAdvice uninstall() {
    String longerWait =
        "uninstall again with a longer wait (UninstallOptions.withWait; the CLI's"
            + " --wait-for-deletion --timeout)";
    return new HookAdvice(
        longerWait + ", or " + ANNOTATION + " and cast before uninstalling",
        ANNOTATION + " and cast before uninstalling",
        longerWait,
        "the uninstall that finishes this one runs it with the same annotation " + Hook.TIMEOUT);
  }

  /** For {@code release test}'s hooks. */
  static HookAdvice test() {
    return new HookAdvice(
        "test again with a longer timeout (the CLI's release test --timeout), or "
            + ANNOTATION
            + " and cast first",
        ANNOTATION + " and cast, then test again");
  }

  /**
   * The advice for a hook of {@code phase} that timed out.
   *
   * @param ownTimeout whether the hook has its own timeout ({@value Hook#TIMEOUT})
   */
  String timedOut(HookPhase phase, boolean ownTimeout) {
    if (phase == HookPhase.POST_DELETE) {
      return ownTimeout ? ownAfterDeletes : afterDeletes;
    }
    return ownTimeout ? this.ownTimeout : operationTimeout;
  }
}
