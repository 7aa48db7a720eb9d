package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The threads of an operation on many releases ({@link FleetCast}, {@link FleetUninstall}): runs
 * tasks on up to {@code width} threads of their own ({@code NAME-N}), and splits the releases into
 * groups that read together. Once the calling thread is interrupted, or a task throws an {@link
 * Error}, no task starts any more (in this call or a later one): an interrupt interrupts the tasks
 * under way, an Error lets them end; {@link #end} then sets the interrupt again, or throws the
 * Error.
 */
final class FleetWorkers {
  /**
   * How many releases a group holds per operation at once: a group's releases hold their leases
   * from its shared reads until each is done, so a group is a few rounds, not the whole call.
   */
  static final int GROUP_PER_WORKER = 2;

  private final int width;
  private final String name;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final AtomicReference<@Nullable Error> error = new AtomicReference<>();
  private boolean interrupted;

  FleetWorkers(int width, String name) {
    this.width = width;
    this.name = name;
  }

  /**
   * Checks the arguments of an operation on many releases before anything is read.
   *
   * @throws IllegalArgumentException if a release is given twice or {@code parallelism} is below 1
   */
  static <T> void checkCall(List<T> releases, Function<T, String> name, int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1: " + parallelism);
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < releases.size(); i++) {
      String release = name.apply(requireNonNull(releases.get(i), "releases[" + i + "]"));
      Integer earlier = seen.putIfAbsent(release, i);
      if (earlier != null) {
        throw new IllegalArgumentException(
            "release " + release + " is given twice (inputs " + earlier + " and " + i + ")");
      }
    }
  }

  /**
   * The records of a group's releases, read once per namespace under their leases ({@link
   * Store#recordEntries(String, java.util.Set)}).
   */
  static final class GroupRecords {
    private final Map<String, Map<String, List<RecordEntry>>> byNamespace = new HashMap<>();

    /** Reads the records of {@code releases}, one read per namespace. */
    GroupRecords(Store store, List<ReleaseRef> releases) {
      Map<String, Set<String>> names = new TreeMap<>();
      for (ReleaseRef r : releases) {
        names.computeIfAbsent(r.namespace(), n -> new TreeSet<>()).add(r.name());
      }
      names.forEach(
          (namespace, n) -> byNamespace.put(namespace, store.recordEntries(namespace, n)));
    }

    /** The revisions of one of the releases, newest first; none when it has no record. */
    List<RecordEntry> of(String namespace, String name) {
      return byNamespace.getOrDefault(namespace, Map.of()).getOrDefault(name, List.of());
    }
  }

  /**
   * Runs an operation on many releases group by group ({@link #groups}): every member of a group
   * {@code begin}s (validated, its lease taken) on the workers; the members not yet {@code done}
   * {@code readTogether} on the calling thread; those still not done {@code finish} on the workers;
   * and any still not done once the work stopped (an interrupt, an Error) are handed to {@code
   * abandon}. No group starts once the work has stopped.
   */
  <M> void inGroups(
      List<M> members,
      Predicate<M> done,
      Consumer<M> begin,
      Consumer<List<M>> readTogether,
      Consumer<M> finish,
      Consumer<M> abandon) {
    Predicate<M> toDo = done.negate();
    for (List<M> group : groups(members)) {
      if (stopped()) {
        break;
      }
      each(group, begin);
      if (!stopped()) {
        readTogether.accept(group.stream().filter(toDo).toList());
        stopIfInterrupted();
      }
      each(group.stream().filter(toDo).toList(), finish);
      group.stream().filter(toDo).forEach(abandon);
    }
  }

  /** {@code items} in groups of {@value #GROUP_PER_WORKER} per thread, in order. */
  <T> List<List<T>> groups(List<T> items) {
    int size = GROUP_PER_WORKER * width;
    List<List<T>> out = new ArrayList<>();
    for (int from = 0; from < items.size(); from += size) {
      out.add(items.subList(from, Math.min(items.size(), from + size)));
    }
    return out;
  }

  boolean stopped() {
    return stopped.get();
  }

  /** Stops the work if the calling thread was interrupted (its status is set again at the end). */
  void stopIfInterrupted() {
    if (Thread.interrupted()) {
      interrupted = true;
      stopped.set(true);
    }
  }

  <T> void each(List<T> items, Consumer<T> task) {
    if (stopped.get() || items.isEmpty()) {
      return;
    }
    AtomicInteger next = new AtomicInteger();
    Runnable worker =
        () -> {
          try {
            for (int k = next.getAndIncrement();
                k < items.size() && !stopped.get();
                k = next.getAndIncrement()) {
              task.accept(items.get(k));
            }
          } catch (Error e) {
            // not a release's failure: no other task starts, and the caller gets it
            error.compareAndSet(null, e);
            stopped.set(true);
          }
        };
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < Math.min(width, items.size()); w++) {
      Thread t = new Thread(worker, name + "-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true;
          stopped.set(true);
          threads.forEach(Thread::interrupt);
        }
      }
    }
  }

  void end() {
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Error failed = error.get();
    if (failed != null) {
      throw failed;
    }
  }
}
