package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.k8s.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The queue on a manual clock: every timing fact is set up by moving the clock, and {@code
 * take(ZERO)} asks what is due now without waiting. Threads appear only where blocking is the
 * behaviour under test, and there they wait for states, never for time.
 */
class WorkQueueTest {
  private static final Duration NOW = Duration.ZERO;

  private final ManualClock clock = ManualClock.create();
  private final WorkQueue<String> queue =
      new WorkQueue<>(Duration.ofSeconds(1), Duration.ofMinutes(5), this::nanos);

  private long nanos() {
    return Duration.between(ManualClock.DEFAULT_START, clock.instant()).toNanos();
  }

  @Test
  void aKeyAddedAgainWhileWaitingIsHeldOnce() throws InterruptedException {
    queue.add("a");
    queue.add("b");
    queue.add("a");

    assertThat(queue.size()).isEqualTo(2);
    assertThat(drain()).containsExactly("a", "b");
  }

  @Test
  void keysDueAtOnceComeOutInTheOrderTheyWereAdded() throws InterruptedException {
    queue.add("c");
    queue.add("a");
    queue.add("b");

    assertThat(drain()).containsExactly("c", "a", "b");
  }

  @Test
  void aKeyBeingProcessedIsHandedOutAgainOnlyAfterDone() throws InterruptedException {
    queue.add("a");
    assertThat(queue.take(NOW)).isEqualTo("a");

    queue.add("a");
    queue.add("a");

    assertThat(queue.size()).isEqualTo(1);
    assertThat(queue.take(NOW)).isNull();
    queue.done("a");
    assertThat(queue.take(NOW)).isEqualTo("a");
    queue.done("a");
    assertThat(queue.take(NOW)).isNull();
    assertThat(queue.size()).isZero();
  }

  @Test
  void otherKeysAreHandedOutWhileOneIsProcessing() throws InterruptedException {
    queue.add("a");
    queue.add("b");
    assertThat(queue.take(NOW)).isEqualTo("a");
    queue.add("a");

    assertThat(queue.take(NOW)).isEqualTo("b");
    assertThat(queue.take(NOW)).isNull();
  }

  @Test
  void doneOfAKeyNotProcessingChangesNothing() throws InterruptedException {
    queue.add("a");

    queue.done("a");
    queue.done("never-added");

    assertThat(drain()).containsExactly("a");
  }

  @Test
  void aKeyAddedAfterADelayIsDueOnlyOnceTheDelayPassed() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(5));
    assertThat(queue.size()).isEqualTo(1);

    clock.advance(Duration.ofMillis(4_999));
    assertThat(queue.take(NOW)).isNull();
    clock.advance(Duration.ofMillis(1));
    assertThat(queue.take(NOW)).isEqualTo("a");
  }

  @Test
  void dueKeysComeOutEarliestDueFirst() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(3));
    queue.addAfter("b", Duration.ofSeconds(1));
    clock.advance(Duration.ofMillis(500));
    queue.add("now");
    queue.addAfter("c", Duration.ofMillis(1_500));

    clock.advance(Duration.ofSeconds(3));

    assertThat(drain()).containsExactly("now", "b", "c", "a");
  }

  @Test
  void theEarlierTimeWinsWhenAWaitingKeyIsAddedAgainWithADelay() throws InterruptedException {
    queue.addAfter("sooner", Duration.ofSeconds(5));
    queue.addAfter("sooner", Duration.ofSeconds(2));
    queue.addAfter("kept", Duration.ofSeconds(2));
    queue.addAfter("kept", Duration.ofSeconds(5));
    queue.add("ready");
    queue.addAfter("ready", Duration.ofSeconds(1));

    assertThat(queue.size()).isEqualTo(3);
    assertThat(drain()).containsExactly("ready");
    clock.advance(Duration.ofSeconds(2));
    assertThat(drain()).containsExactly("sooner", "kept");
  }

  @Test
  void aScheduledKeyAddedNowIsHandedOutOnceNow() throws InterruptedException {
    queue.addAfter("a", Duration.ofSeconds(5));

    queue.add("a");

    assertThat(queue.take(NOW)).isEqualTo("a");
    queue.done("a");
    clock.advance(Duration.ofSeconds(5));
    assertThat(queue.take(NOW)).isNull();
  }

  @Test
  void aDelayOfZeroOrLessIsAnAdd() throws InterruptedException {
    queue.addAfter("zero", Duration.ZERO);
    queue.addAfter("negative", Duration.ofSeconds(-1));

    assertThat(drain()).containsExactly("zero", "negative");
  }

  @Test
  void aDelayBeyondTheLongestIsShortenedToItSoDueTimesNeverWrap() throws InterruptedException {
    queue.addAfter("a", Duration.ofDays(1_000_000));
    queue.addAfter("b", WorkQueue.LONGEST_DELAY.plusDays(1));

    clock.advance(WorkQueue.LONGEST_DELAY.minusMillis(1));
    assertThat(queue.take(NOW)).isNull();
    clock.advance(Duration.ofMillis(1));
    assertThat(drain()).containsExactly("a", "b");
  }

  @Test
  void aKeyScheduledWhileProcessingWaitsForDoneAndForItsTime() throws InterruptedException {
    queue.add("a");
    assertThat(queue.take(NOW)).isEqualTo("a");
    queue.addAfter("a", Duration.ofSeconds(2));
    queue.addAfter("a", Duration.ofSeconds(4));

    clock.advance(Duration.ofSeconds(1));
    queue.done("a");
    assertThat(queue.take(NOW)).isNull();
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.take(NOW)).isEqualTo("a");
  }

  @Test
  void anAddWhileProcessingBeatsAnEarlierDelayedAdd() throws InterruptedException {
    queue.add("a");
    assertThat(queue.take(NOW)).isEqualTo("a");
    queue.addAfter("a", Duration.ofSeconds(10));
    queue.add("a");

    queue.done("a");

    assertThat(queue.take(NOW)).isEqualTo("a");
  }

  @Test
  void theBackoffDoublesFromTheBaseUpToTheMaxAndIsWaitedExactly() throws InterruptedException {
    List<Duration> backoffs = new ArrayList<>();
    queue.add("a");
    for (int failure = 1; failure <= 11; failure++) {
      assertThat(queue.take(NOW)).isEqualTo("a");
      Duration backoff = queue.addRateLimited("a");
      backoffs.add(backoff);
      queue.done("a");

      clock.advance(backoff.minusMillis(1));
      assertThat(queue.take(NOW)).isNull();
      clock.advance(Duration.ofMillis(1));
    }

    assertThat(backoffs)
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(16),
            Duration.ofSeconds(32),
            Duration.ofSeconds(64),
            Duration.ofSeconds(128),
            Duration.ofSeconds(256),
            Duration.ofMinutes(5),
            Duration.ofMinutes(5));
    assertThat(queue.failures("a")).isEqualTo(11);
    assertThat(queue.take(NOW)).isEqualTo("a");
  }

  @Test
  void failuresAreCountedPerKey() {
    queue.addRateLimited("a");
    queue.addRateLimited("a");

    assertThat(queue.addRateLimited("b")).isEqualTo(Duration.ofSeconds(1));
    assertThat(queue.failures("a")).isEqualTo(2);
    assertThat(queue.failures("b")).isEqualTo(1);
    assertThat(queue.failures("c")).isZero();
  }

  @Test
  void forgetStartsTheBackoffAgainFromTheBase() {
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    queue.addRateLimited("a");

    queue.forget("a");

    assertThat(queue.failures("a")).isZero();
    assertThat(queue.addRateLimited("a")).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aTakeWithATimeoutGivesUpOnceTheQueuesClockPassedIt() throws Exception {
    Taker taker = Taker.start(queue, Duration.ofSeconds(5));
    taker.awaitBlocked();

    clock.advance(Duration.ofSeconds(5));
    queue.wakeTakers();

    assertThat(taker.result()).isNull();
  }

  @Test
  void aBlockedTakeReturnsAKeyAddedByAnotherThread() throws Exception {
    Taker taker = Taker.start(queue, Duration.ofDays(1));
    taker.awaitBlocked();

    queue.add("a");

    assertThat(taker.result()).isEqualTo("a");
  }

  @Test
  void aBlockedTakeReturnsAScheduledKeyOnceTheClockReachesIt() throws Exception {
    Taker taker = Taker.start(queue, Duration.ofDays(1));
    taker.awaitBlocked();
    queue.addAfter("a", Duration.ofSeconds(5));
    taker.awaitBlocked();
    assertThat(taker.done()).isFalse();

    clock.advance(Duration.ofSeconds(5));
    queue.wakeTakers();

    assertThat(taker.result()).isEqualTo("a");
  }

  @Test
  void shutDownWakesABlockedTakerWithNullAndLaterAddsAreIgnored() throws Exception {
    Taker taker = Taker.start(queue, Duration.ofDays(1));
    taker.awaitBlocked();

    queue.shutDown();

    assertThat(taker.result()).isNull();
    queue.add("a");
    queue.addAfter("b", Duration.ofSeconds(1));
    assertThat(queue.size()).isZero();
    assertThat(queue.take(Duration.ofDays(1))).isNull();
  }

  /** A queue whose keys {@code ns/name} are grouped by {@code ns}, two of a group at once. */
  private WorkQueue<String> twoPerNamespace() {
    return new WorkQueue<>(
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        this::nanos,
        k -> k.substring(0, k.indexOf('/')),
        2);
  }

  @Test
  void aGroupAtItsCapWaitsWhileTheKeysOfOtherGroupsAreHandedOutInOrder()
      throws InterruptedException {
    WorkQueue<String> capped = twoPerNamespace();
    for (String k : List.of("a/1", "a/2", "a/3", "a/4", "b/1", "c/1")) {
      capped.add(k);
    }

    assertThat(capped.take(NOW)).isEqualTo("a/1");
    assertThat(capped.take(NOW)).isEqualTo("a/2");
    assertThat(capped.take(NOW)).isEqualTo("b/1"); // a/3 waits: namespace a is at its cap
    assertThat(capped.take(NOW)).isEqualTo("c/1");
    assertThat(capped.take(NOW)).isNull();
    assertThat(capped.size()).isEqualTo(2);

    capped.done("a/2");

    assertThat(capped.take(NOW)).isEqualTo("a/3");
    assertThat(capped.take(NOW)).isNull();
    capped.done("a/1");
    capped.done("b/1");
    assertThat(capped.take(NOW)).isEqualTo("a/4");
  }

  @Test
  void aTakeBlockedByAGroupAtItsCapReturnsItsKeyWhenOneOfTheGroupIsDone() throws Exception {
    WorkQueue<String> capped = twoPerNamespace();
    capped.add("a/1");
    capped.add("a/2");
    capped.add("a/3");
    assertThat(capped.take(NOW)).isEqualTo("a/1");
    assertThat(capped.take(NOW)).isEqualTo("a/2");
    Taker taker = Taker.start(capped, Duration.ofDays(1));
    taker.awaitBlocked();
    assertThat(taker.done()).isFalse();

    capped.done("a/1");

    assertThat(taker.result()).isEqualTo("a/3");
  }

  @Test
  void aGroupCapBelowOneIsRefused() {
    assertThatThrownBy(
            () ->
                new WorkQueue<String>(
                    Duration.ofSeconds(1), Duration.ofMinutes(5), this::nanos, k -> k, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the keys per group must be at least 1: 0");
  }

  @Test
  void aShutDownQueueHandsOutNoWaitingKey() throws InterruptedException {
    queue.add("a");

    queue.shutDown();

    assertThat(queue.take(NOW)).isNull();
  }

  @Test
  void delaysOutOfRangeAreRefusedNamingTheValue() {
    assertThatThrownBy(() -> new WorkQueue<String>(Duration.ZERO, Duration.ofSeconds(1), () -> 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the base delay must be positive: 0s");
    assertThatThrownBy(
            () -> new WorkQueue<String>(Duration.ofSeconds(2), Duration.ofSeconds(1), () -> 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the max delay must be at least the base delay (2s): 1s");
  }

  /**
   * Four workers on three keys, each re-adding its key while processing it (a change arriving
   * mid-reconciliation) and lingering, so idle workers are woken with that key ready: a queue that
   * handed a processing key out again would let two workers hold it at once, and one that dropped
   * the re-add would stall before the count is reached. Nothing here depends on timing: the overlap
   * count of a correct queue is zero whatever the interleaving.
   */
  @Test
  void oneKeyIsNeverProcessedByTwoWorkersAtOnce() throws Exception {
    WorkQueue<String> shared = WorkQueue.create(Duration.ofMillis(1), Duration.ofSeconds(1));
    List<String> keys = List.of("k0", "k1", "k2");
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    keys.forEach(k -> inFlight.put(k, new AtomicInteger()));
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();
    int target = 5_000;
    CountDownLatch reached = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (String key = shared.take(Duration.ofSeconds(60));
                      key != null;
                      key = shared.take(Duration.ofSeconds(60))) {
                    AtomicInteger holders = Objects.requireNonNull(inFlight.get(key));
                    if (holders.incrementAndGet() != 1) {
                      overlaps.incrementAndGet();
                    }
                    shared.add(key);
                    for (int i = 0; i < 2_000; i++) {
                      Thread.onSpinWait();
                    }
                    holders.decrementAndGet();
                    if (processed.incrementAndGet() == target) {
                      reached.countDown();
                    }
                    shared.done(key);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "worker-" + w);
      workers.add(worker);
      worker.start();
    }

    keys.forEach(shared::add);
    boolean done = reached.await(60, TimeUnit.SECONDS);
    shared.shutDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(30));
    }

    assertThat(done).as("%s keys processed", processed.get()).isTrue();
    assertThat(overlaps.get()).as("takes of a key another worker was processing").isZero();
    assertThat(workers).noneMatch(Thread::isAlive);
  }

  /** Takes everything due now, marking each key done. */
  private List<String> drain() throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (String key = queue.take(NOW); key != null; key = queue.take(NOW)) {
      out.add(key);
      queue.done(key);
    }
    return out;
  }

  /** One {@code take} on a thread of its own. */
  private static final class Taker {
    private final Thread thread;
    private final CompletableFuture<@Nullable String> result;

    private Taker(Thread thread, CompletableFuture<@Nullable String> result) {
      this.thread = thread;
      this.result = result;
    }

    static Taker start(WorkQueue<String> queue, Duration timeout) {
      CompletableFuture<@Nullable String> result = new CompletableFuture<>();
      Thread thread =
          new Thread(
              () -> {
                try {
                  result.complete(queue.take(timeout));
                } catch (Throwable e) {
                  result.completeExceptionally(e);
                }
              },
              "taker");
      thread.setDaemon(true);
      thread.start();
      return new Taker(thread, result);
    }

    /** Waits until the taker waits inside {@code take} (a timed wait on the queue's condition). */
    void awaitBlocked() {
      Await.until(
          "the taker to block in take",
          Duration.ofSeconds(30),
          () -> thread.getState() == Thread.State.TIMED_WAITING ? thread : null);
    }

    boolean done() {
      return result.isDone();
    }

    @Nullable String result() throws Exception {
      return result.get(30, TimeUnit.SECONDS);
    }
  }
}
