package dev.capstan.release.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The engine's shared worker threads: runs waited for and interrupted together, and no more. */
class WorkersTest {

  @Test
  void everyRunStartsUnderItsNameAndTheCallerSeesWhatTheyWroteOnceTheyEnded() throws Exception {
    List<String> names = new CopyOnWriteArrayList<>();
    int[] written = new int[3];
    AtomicInteger next = new AtomicInteger();

    Workers.Crew crew =
        Workers.start(
            3,
            "capstan-test-run",
            () -> {
              names.add(Thread.currentThread().getName());
              written[next.getAndIncrement()] = 7;
            });
    crew.awaitEnd();

    assertThat(names).containsExactly("capstan-test-run", "capstan-test-run", "capstan-test-run");
    assertThat(written).containsExactly(7, 7, 7);
  }

  @Test
  void anInterruptEndsTheRunsAndReturnsOnlyOnceEachHasEnded() {
    int count = 4;
    CountDownLatch started = new CountDownLatch(count);
    AtomicInteger ended = new AtomicInteger();
    Workers.Crew crew =
        Workers.start(
            count,
            "capstan-test-wait",
            () -> {
              started.countDown();
              try {
                new CountDownLatch(1).await(); // only an interrupt ends this run
              } catch (InterruptedException e) {
                ended.incrementAndGet();
              }
            });
    awaited(started);

    crew.interruptAndAwaitEnd();

    assertThat(ended).hasValue(count);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void anInterruptMeantForARunNeverReachesTheThreadsLaterRuns() throws Exception {
    for (int round = 0; round < 20; round++) {
      CountDownLatch started = new CountDownLatch(2);
      Workers.Crew interrupted =
          Workers.start(
              2,
              "capstan-test-interrupted",
              () -> {
                started.countDown();
                // ends on its own, so the interrupt may come while it runs, or after it ended
                Thread.onSpinWait();
              });
      awaited(started);
      interrupted.interruptAndAwaitEnd();

      List<Boolean> seen = new CopyOnWriteArrayList<>();
      Workers.Crew later =
          Workers.start(8, "capstan-test-later", () -> seen.add(Thread.interrupted()));
      later.awaitEnd();
      assertThat(seen).hasSize(8).containsOnly(false);
    }
  }

  @Test
  void eachRunCarriesTheCallersMdcAndLeavesNothingOfItOnTheThread() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    MDC.put("request", "r-7");
    Workers.Crew crew;
    try {
      crew = Workers.start(4, "capstan-test-mdc", () -> seen.add(MDC.get("request")));
    } finally {
      MDC.remove("request");
    }
    crew.awaitEnd();
    List<Map<String, String>> after = new CopyOnWriteArrayList<>();
    Workers.start(4, "capstan-test-after", () -> after.add(mdcOrEmpty())).awaitEnd();

    assertThat(seen).containsExactly("r-7", "r-7", "r-7", "r-7");
    assertThat(after).hasSize(4).containsOnly(Map.of());
  }

  private static Map<String, String> mdcOrEmpty() {
    Map<String, String> m = MDC.getCopyOfContextMap();
    return m == null ? Map.of() : m;
  }

  private static void awaited(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
