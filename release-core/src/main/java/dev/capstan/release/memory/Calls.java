package dev.capstan.release.memory;

import dev.capstan.common.FaultPlan;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The calls an {@link InMemoryCluster} was made: the fault plan each call passes, the count of each
 * operation, and the operation log. Guarded by the cluster's monitor, as all its state.
 */
final class Calls {
  private final Object lock;
  final FaultPlan<Operation> faults = FaultPlan.create();
  private final List<String> log = new ArrayList<>();
  private final Map<Operation, Integer> counts = new EnumMap<>(Operation.class);

  Calls(Object lock) {
    this.lock = lock;
  }

  /** Counts a call and runs its faults; whether it crashes once done. */
  boolean enter(Operation operation, String target) {
    synchronized (lock) {
      counts.merge(operation, 1, Integer::sum);
    }
    return faults.before(operation, target);
  }

  static void crashIf(boolean crash, Operation operation, String target) {
    if (crash) {
      throw new SimulatedCrash(operation, target);
    }
  }

  /** Logs an operation; the caller holds the lock. */
  void log(String operation) {
    log.add(operation);
  }

  List<String> operations() {
    return List.copyOf(log);
  }

  List<String> writes() {
    return log.stream()
        .filter(
            op ->
                op.startsWith("apply:")
                    || op.startsWith("delete:")
                    || op.startsWith("unstamp:")
                    || op.startsWith("namespace:")
                    || op.startsWith("ensure:")
                    || op.equals("verify"))
        .toList();
  }

  Map<Operation, Integer> counts() {
    Map<Operation, Integer> copy = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      copy.put(op, counts.getOrDefault(op, 0));
    }
    return copy;
  }

  void clear() {
    log.clear();
    counts.clear();
  }
}
