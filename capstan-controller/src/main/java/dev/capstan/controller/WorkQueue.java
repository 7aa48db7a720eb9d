package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The keys the controller has to reconcile, with client-go's workqueue semantics: a key is held at
 * most once, it is never handed to two workers at once, and a key that failed comes back after a
 * per-key exponential backoff.
 *
 * <p>Every key that is not being processed waits with one due time: {@link #add} makes it due now,
 * {@link #addAfter} later, and the earlier time wins when a key is added again. {@link #take} hands
 * out the key due first (in the order they were added among keys due at the same time) once it is
 * due, and the key is then <em>processing</em> until {@link #done}. A key added while it is
 * processing waits aside, with the earliest due time asked for, and goes back into the queue at
 * {@link #done}, so a change that arrives during a reconciliation is seen by a reconciliation that
 * starts after it. Unlike client-go, a key scheduled for later and then added now is handed out
 * once, not twice: now is the earlier time.
 *
 * <p>A queue may cap how many keys of one group are processing at once ({@link #create(Duration,
 * Duration, Function, int)}, the controller's Releases of one namespace): {@link #take} then hands
 * out the key due first among the groups under the cap, so the keys of a group at its cap wait
 * while others are handed out, and one group's long reconciles never take every worker.
 *
 * <p>{@link #addRateLimited} counts a failure of the key and schedules it after {@code base * 2^(n
 * - 1)} for its {@code n}-th failure, capped at {@code max}, without jitter (client-go's per-item
 * exponential limiter); {@link #forget} starts the count again.
 *
 * <p>Time comes from a monotonic nanosecond source ({@link System#nanoTime} by default), so a test
 * drives it by hand; after moving a manual source a test calls {@link #wakeTakers} so that blocked
 * takers read it again. Thread-safe: one lock guards the whole state.
 *
 * @param <K> the key, e.g. a namespace and name; compared with {@code equals}
 */
final class WorkQueue<K> {
  /** The longest delay kept as given; a longer one is shortened to it, so due times never wrap. */
  static final Duration LONGEST_DELAY = Duration.ofDays(36_500);

  private static final Comparator<Entry<?>> DUE_FIRST =
      (a, b) ->
          a.due() != b.due()
              ? Long.compare(a.due() - b.due(), 0)
              : Long.compare(a.sequence(), b.sequence());

  private final Duration baseDelay;
  private final Duration maxDelay;
  private final LongSupplier nanoTime;
  private final Function<K, ?> group;
  private final int perGroup;

  /** How many keys of each group are processing, for the groups with any. */
  private final Map<Object, Integer> processingPerGroup = new HashMap<>();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final TreeSet<Entry<K>> waiting = new TreeSet<>(DUE_FIRST);
  private final Map<K, Entry<K>> waitingByKey = new HashMap<>();
  private final Set<K> processing = new HashSet<>();

  /** Keys added while processing, with the earliest due time asked for. */
  private final Map<K, Long> addedWhileProcessing = new HashMap<>();

  private final Map<K, Integer> failures = new HashMap<>();
  private long sequence;
  private boolean shutDown;

  /** One waiting key: when it is due, and in which order it was queued. */
  private record Entry<K>(long due, long sequence, K key) {}

  /**
   * Creates a queue whose time is {@code nanoTime}.
   *
   * @param baseDelay the backoff after a key's first failure; positive
   * @param maxDelay the longest backoff; at least {@code baseDelay} (and shortened to {@link
   *     #LONGEST_DELAY})
   * @param nanoTime a monotonic clock in nanoseconds, read like {@link System#nanoTime}
   * @throws IllegalArgumentException when a delay is out of range
   */
  WorkQueue(Duration baseDelay, Duration maxDelay, LongSupplier nanoTime) {
    this(baseDelay, maxDelay, nanoTime, key -> "", Integer.MAX_VALUE);
  }

  /**
   * Creates a queue whose time is {@code nanoTime}, processing at most {@code perGroup} keys of one
   * {@code group} at once.
   *
   * @param group the group of a key, compared with {@code equals}
   * @param perGroup how many keys of one group may be processing at once; at least 1
   * @throws IllegalArgumentException when a delay is out of range or {@code perGroup} is below 1
   */
  WorkQueue(
      Duration baseDelay,
      Duration maxDelay,
      LongSupplier nanoTime,
      Function<K, ?> group,
      int perGroup) {
    requireNonNull(baseDelay, "baseDelay");
    this.group = requireNonNull(group, "group");
    if (perGroup < 1) {
      throw new IllegalArgumentException("the keys per group must be at least 1: " + perGroup);
    }
    this.perGroup = perGroup;
    requireNonNull(maxDelay, "maxDelay");
    this.nanoTime = requireNonNull(nanoTime, "nanoTime");
    if (baseDelay.isNegative() || baseDelay.isZero()) {
      throw new IllegalArgumentException(
          "the base delay must be positive: " + Durations.format(baseDelay));
    }
    if (maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException(
          "the max delay must be at least the base delay ("
              + Durations.format(baseDelay)
              + "): "
              + Durations.format(maxDelay));
    }
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay.compareTo(LONGEST_DELAY) > 0 ? LONGEST_DELAY : maxDelay;
  }

  /**
   * Creates a queue on {@link System#nanoTime}.
   *
   * @param baseDelay the backoff after a key's first failure, e.g. 1 s; positive
   * @param maxDelay the longest backoff, e.g. 5 min; at least {@code baseDelay}
   */
  static <K> WorkQueue<K> create(Duration baseDelay, Duration maxDelay) {
    return new WorkQueue<>(baseDelay, maxDelay, System::nanoTime);
  }

  /**
   * Creates a queue on {@link System#nanoTime} that processes at most {@code perGroup} keys of one
   * {@code group} at once.
   */
  static <K> WorkQueue<K> create(
      Duration baseDelay, Duration maxDelay, Function<K, ?> group, int perGroup) {
    return new WorkQueue<>(baseDelay, maxDelay, System::nanoTime, group, perGroup);
  }

  /**
   * Makes {@code key} due now. A key already waiting stays where it is (it is held once, and its
   * time is not later than now); a key being processed is handed out again after {@link #done}.
   * Ignored after {@link #shutDown}.
   */
  void add(K key) {
    schedule(key, 0);
  }

  /**
   * Makes {@code key} due after {@code delay}, unless it is already due earlier; a delay of zero or
   * less is {@link #add}. Delays longer than {@link #LONGEST_DELAY} are shortened to it. Ignored
   * after {@link #shutDown}.
   */
  void addAfter(K key, Duration delay) {
    schedule(key, nanos(delay));
  }

  /**
   * Counts a failure of {@code key} and schedules it after the backoff for that many failures:
   * {@code base * 2^(failures - 1)}, at most {@code max}.
   *
   * @return the backoff it was scheduled with
   */
  Duration addRateLimited(K key) {
    requireNonNull(key, "key");
    Duration delay;
    lock.lock();
    try {
      delay = backoff(failures.merge(key, 1, Integer::sum));
      schedule(key, nanos(delay));
    } finally {
      lock.unlock();
    }
    return delay;
  }

  /** Forgets the failures of {@code key}: its next {@link #addRateLimited} waits the base delay. */
  void forget(K key) {
    lock.lock();
    try {
      failures.remove(key);
    } finally {
      lock.unlock();
    }
  }

  /** How many failures of {@code key} were counted since it was last forgotten. */
  int failures(K key) {
    lock.lock();
    try {
      return failures.getOrDefault(key, 0);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a key is due whose group is under its cap, marks it processing and returns it: the
   * key due first, and among keys due at the same time the one queued first.
   *
   * @param timeout how long to wait, on this queue's clock; zero or less does not wait
   * @return the key, or {@code null} when none was due within the timeout or the queue is shut down
   *     (at once, even with keys waiting)
   * @throws InterruptedException when the thread is interrupted while waiting
   */
  @Nullable K take(Duration timeout) throws InterruptedException {
    long wait = nanos(timeout);
    lock.lockInterruptibly();
    try {
      long deadline = nanoTime.getAsLong() + wait;
      while (!shutDown) {
        long now = nanoTime.getAsLong();
        Entry<K> later = null; // the first key not due yet
        for (Entry<K> e : waiting) {
          if (e.due() - now > 0) {
            later = e;
            break;
          }
          Object g = group.apply(e.key());
          int busy = processingPerGroup.getOrDefault(g, 0);
          if (busy < perGroup) {
            waiting.remove(e);
            waitingByKey.remove(e.key());
            processing.add(e.key());
            processingPerGroup.put(g, busy + 1);
            return e.key();
          }
        }
        long left = deadline - now;
        if (left <= 0) {
          return null;
        }
        // a due key of a group at its cap waits for a done(), which signals
        changed.awaitNanos(later == null ? left : Math.min(left, later.due() - now));
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends the processing of {@code key}: if it was added meanwhile, it waits again with the earliest
   * due time asked for. Does nothing for a key that is not processing.
   */
  void done(K key) {
    lock.lock();
    try {
      if (processing.remove(key)) {
        processingPerGroup.computeIfPresent(group.apply(key), (g, n) -> n == 1 ? null : n - 1);
        changed.signalAll(); // a key of its group may be handed out now
        Long due = addedWhileProcessing.remove(key);
        if (due != null && !shutDown) {
          enqueue(key, due);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many keys will be handed out: those waiting and those added while processing. */
  int size() {
    lock.lock();
    try {
      return waiting.size() + addedWhileProcessing.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Shuts the queue down: every blocked {@link #take} returns {@code null}, later ones too, and
   * later adds are ignored. Keys being processed may still be marked {@link #done}.
   */
  void shutDown() {
    lock.lock();
    try {
      shutDown = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Makes every blocked {@link #take} read the clock again; a test calls it after moving a manual
   * clock (the system clock needs no call).
   */
  void wakeTakers() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void schedule(K key, long delayNanos) {
    requireNonNull(key, "key");
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      long due = nanoTime.getAsLong() + delayNanos;
      if (processing.contains(key)) {
        addedWhileProcessing.merge(key, due, WorkQueue::earlier);
        return;
      }
      Entry<K> old = waitingByKey.get(key);
      if (old != null) {
        if (old.due() - due <= 0) {
          return;
        }
        waiting.remove(old);
      }
      enqueue(key, due);
    } finally {
      lock.unlock();
    }
  }

  private void enqueue(K key, long due) {
    Entry<K> entry = new Entry<>(due, sequence++, key);
    waiting.add(entry);
    waitingByKey.put(key, entry);
    changed.signalAll();
  }

  private Duration backoff(int failures) {
    Duration delay = baseDelay;
    for (int i = 1; i < failures && delay.compareTo(maxDelay) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(maxDelay) > 0 ? maxDelay : delay;
  }

  private static long earlier(long a, long b) {
    return a - b <= 0 ? a : b;
  }

  private static long nanos(Duration delay) {
    if (delay.isNegative() || delay.isZero()) {
      return 0;
    }
    return delay.compareTo(LONGEST_DELAY) > 0 ? LONGEST_DELAY.toNanos() : delay.toNanos();
  }
}
