package dev.capstan.release.event;

/**
 * The SLF4J MDC keys every log line of a release operation carries, whichever thread logs it: the
 * engine's own lines, a listener's, and any line a host's listener or port logs while the operation
 * runs on the calling thread. Set when the operation starts and put back as they were when it ends,
 * so a host's own keys and a surrounding operation's are untouched. A log pattern shows them with
 * {@code %X{capstan.release}} (Logback, Log4j 2).
 */
public final class OperationMdc {
  private OperationMdc() {}

  /** The release's namespace, e.g. {@code shop}. */
  public static final String NAMESPACE = "capstan.namespace";

  /** The release's name, e.g. {@code web}. */
  public static final String RELEASE = "capstan.release";

  /** The operation: {@code plan}, {@code cast}, {@code rollback}, {@code uninstall}. */
  public static final String OPERATION = "capstan.operation";

  /**
   * The revision the operation records, plans or uninstalls, once known (from its plan or its
   * record); absent before.
   */
  public static final String REVISION = "capstan.revision";
}
