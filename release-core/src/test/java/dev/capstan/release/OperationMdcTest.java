package dev.capstan.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.OperationMdc;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Every log line of a release operation carries its namespace, release, operation and (once known)
 * revision in the MDC, on every thread it logs from; the MDC is as it was after.
 */
class OperationMdcTest {
  private static final org.slf4j.Logger HOST = LoggerFactory.getLogger("host");

  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
  private final List<String> listenerThreads = new CopyOnWriteArrayList<>();

  /** A host's listener that logs every event, as hosts do. */
  private final ReleaseListener hostLog =
      event -> {
        listenerThreads.add(Thread.currentThread().getName());
        HOST.info("saw {}", event.getClass().getSimpleName());
      };

  private final ReleaseController releases =
      ReleaseController.builder(cluster, cluster).parallelism(4).listener(hostLog).build();

  private static Payloads shop(String level) {
    return Payloads.builder()
        .configMap(ConfigMapSpec.of("shop", "a", Map.of("level", level)))
        .configMap(ConfigMapSpec.of("shop", "b", Map.of("level", level)))
        .configMap(ConfigMapSpec.of("shop", "c", Map.of("level", level)))
        .build();
  }

  private static Map<String, String> keys(String operation, String revision) {
    return Map.of(
        OperationMdc.NAMESPACE,
        "shop",
        OperationMdc.RELEASE,
        "web",
        OperationMdc.OPERATION,
        operation,
        OperationMdc.REVISION,
        revision);
  }

  /** The index of the line starting with {@code message} after {@code skip} earlier such lines. */
  private static int first(List<LogCapture.Line> lines, String message, int skip) {
    int seen = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).message().startsWith(message) && seen++ == skip) {
        return i;
      }
    }
    throw new AssertionError("no line " + message + " in " + lines);
  }

  @Test
  void everyLineOfACastCarriesTheKeysAndTheRevisionOnceKnown() {
    MDC.put("request", "r-1");
    try (LogCapture logs = LogCapture.open()) {
      releases.cast(ReleaseInput.of("shop", "web", shop("info")));

      List<LogCapture.Line> lines = logs.lines();
      assertThat(lines).hasSizeGreaterThan(10);
      int plan = first(lines, "shop/web: planned revision", 0);
      // before the plan, the revision is not known
      assertThat(lines.subList(0, plan))
          .isNotEmpty()
          .allSatisfy(
              l ->
                  assertThat(l.mdc())
                      .containsEntry(OperationMdc.NAMESPACE, "shop")
                      .containsEntry(OperationMdc.RELEASE, "web")
                      .containsEntry(OperationMdc.OPERATION, "cast")
                      .doesNotContainKey(OperationMdc.REVISION)
                      .containsEntry("request", "r-1"));
      List<LogCapture.Line> planned = lines.subList(plan, lines.size());
      assertThat(planned)
          .allSatisfy(
              l ->
                  assertThat(l.mdc())
                      .containsAllEntriesOf(keys("cast", "1"))
                      .containsKey("request"));
      assertThat(planned)
          .extracting(LogCapture.Line::logger)
          .contains("host", "dev.capstan.release.ReleaseController");
    } finally {
      assertThat(MDC.getCopyOfContextMap()).isEqualTo(Map.of("request", "r-1"));
      MDC.clear();
    }
  }

  @Test
  void linesLoggedOnThePoolsThreadsCarryTheKeysTooAndEachOperationItsOwn() {
    releases.cast(ReleaseInput.of("shop", "web", shop("info")));
    listenerThreads.clear();
    try (LogCapture logs = LogCapture.open()) {
      releases.cast(ReleaseInput.of("shop", "web", shop("debug")));
      releases.uninstall("shop", "web", UninstallOptions.defaults());

      assertThat(listenerThreads).contains(Thread.currentThread().getName());
      assertThat(listenerThreads).anyMatch(t -> !t.equals(Thread.currentThread().getName()));
      List<LogCapture.Line> lines = logs.lines();
      int uninstall = first(lines, "shop/web: uninstall started", 0);
      assertThat(lines.subList(first(lines, "shop/web: planned revision", 0), uninstall))
          .hasSizeGreaterThan(6)
          .allSatisfy(l -> assertThat(l.mdc()).isEqualTo(keys("cast", "2")));
      assertThat(lines.subList(uninstall, lines.size()))
          .allSatisfy(
              l ->
                  assertThat(l.mdc())
                      .containsEntry(OperationMdc.OPERATION, "uninstall")
                      .containsEntry(OperationMdc.RELEASE, "web"));
      assertThat(lines.get(lines.size() - 1).mdc()).isEqualTo(keys("uninstall", "2"));
    }
    assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
  }

  @Test
  void aFailedCastsLinesCarryTheKeysToo() {
    cluster.neverReady("acme/web:broken", "CrashLoopBackOff");
    try (LogCapture logs = LogCapture.open()) {
      Throwable failed =
          catchThrowable(
              () ->
                  releases.cast(
                      ReleaseInput.of(
                          "shop",
                          "web",
                          Payloads.of(
                              ServiceSpec.builder("shop", "web")
                                  .image("acme/web:broken")
                                  .build()))));

      assertThat(failed).isInstanceOf(CastFailedException.class);
      LogCapture.Line outcome =
          logs.lines().stream()
              .filter(l -> l.logger().equals("dev.capstan.release.ReleaseController"))
              .filter(l -> l.message().startsWith("shop/web: cast finished"))
              .findFirst()
              .orElseThrow();
      assertThat(outcome.mdc()).isEqualTo(keys("cast", "1"));
      assertThat(logs.lines())
          .filteredOn(l -> l.message().equals("saw " + ReleaseEvent.Finished.class.getSimpleName()))
          .singleElement()
          .satisfies(l -> assertThat(l.mdc()).isEqualTo(keys("cast", "1")));
    }
    assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
  }
}
