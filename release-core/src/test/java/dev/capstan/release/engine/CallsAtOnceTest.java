package dev.capstan.release.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
    AtomicReference<Thread> thrower = new AtomicReference<>();
    AtomicInteger started = new AtomicInteger();
    IllegalStateException refused = new IllegalStateException("refused");
    List<Supplier<String>> calls =
        List.of(
            () -> {
              started.incrementAndGet();
              // finishes once the second call's worker has recorded its failure and ended its run
              // (a run ends, and its thread takes the pool's name again, only after a failure)
              boolean recorded = awaited(thrown) && ended(thrower);
              return recorded ? "first, finished after the second threw" : "timed out";
            },
            () -> {
              started.incrementAndGet();
              thrower.set(Thread.currentThread());
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
  void anInterruptedCallerStopsAtOnceWithoutWaitingForTheRunningCalls() throws Exception {
    CountDownLatch running = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    List<Supplier<String>> calls = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      calls.add(
          () -> {
            running.countDown();
            // deaf to interrupts, as a request blocked on its socket is
            while (release.getCount() > 0) {
              Thread.onSpinWait();
            }
            return "late";
          });
    }
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                CallsAtOnce.run(calls, 2);
              } catch (RuntimeException e) {
                thrown.set(e);
              }
            });
    caller.start();
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();

    caller.interrupt();
    caller.join(TimeUnit.SECONDS.toMillis(30));
    boolean stoppedBeforeTheCalls = !caller.isAlive() && release.getCount() == 1;
    release.countDown();

    assertThat(stoppedBeforeTheCalls).isTrue();
    assertThat(thrown.get())
        .hasMessage("interrupted while the plan was verified on the server; nothing was written");
  }

  /** Whether the worker's run ends within 30 s: its thread no longer carries the run's name. */
  private static boolean ended(AtomicReference<Thread> thread) {
    Thread worker = Objects.requireNonNull(thread.get(), "the thrower's thread");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (worker.getName().equals("capstan-verify")) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.onSpinWait();
    }
    return true;
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
