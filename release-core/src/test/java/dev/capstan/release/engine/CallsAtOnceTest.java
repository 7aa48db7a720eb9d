package dev.capstan.release.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The dry runs of a verified plan, several at once: what runs together and what never starts. */
class CallsAtOnceTest {

  @Test
  void upToParallelismCallsRunAtOnce() {
    CountDownLatch together = new CountDownLatch(4);
    List<Supplier<String>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String name = "call " + i;
      calls.add(
          () -> {
            together.countDown();
            // each call returns only once all four have started: one at a time, none would
            return awaited(together) ? name : "alone";
          });
    }

    assertThat(CallsAtOnce.run(calls, 4)).containsExactly("call 0", "call 1", "call 2", "call 3");
  }

  @Test
  void afterACallThrowsNoFurtherCallStartsAndTheRunningOnesFinish() {
    CountDownLatch thrown = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    IllegalStateException refused = new IllegalStateException("refused");
    List<Supplier<String>> calls =
        List.of(
            () -> {
              started.incrementAndGet();
              return awaited(thrown) ? "first, finished after the second threw" : "timed out";
            },
            () -> {
              started.incrementAndGet();
              thrown.countDown();
              throw refused;
            },
            () -> "third: " + started.incrementAndGet(),
            () -> "fourth: " + started.incrementAndGet());

    assertThat(CallsAtOnce.run(calls, 2))
        .containsExactly("first, finished after the second threw", refused, null, null);
    assertThat(started).hasValue(2);
  }

  @Test
  void atParallelismOneCallsRunInOrderOnTheCallersThreadAndStopAtTheFirstThatThrows() {
    List<String> threads = new ArrayList<>();
    IllegalStateException refused = new IllegalStateException("refused");
    List<Supplier<String>> calls =
        List.of(
            () -> {
              threads.add(Thread.currentThread().getName());
              return "a";
            },
            () -> {
              throw refused;
            },
            () -> "never");

    assertThat(CallsAtOnce.run(calls, 1)).containsExactly("a", refused, null);
    assertThat(threads).containsExactly(Thread.currentThread().getName());
  }

  private static boolean awaited(CountDownLatch latch) {
    try {
      return latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
