package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Faults to inject into an {@link InMemoryCluster}: fail the Nth call of an operation, fail every
 * call on one target, add latency, or crash after a call. Call counts start when a rule is added.
 * Thread-safe.
 */
public final class FaultPlan {
  private final List<Rule> rules = new ArrayList<>();

  FaultPlan() {}

  /** Fails the {@code nth} call (1-based) of {@code operation} from now on, once. */
  public synchronized FaultPlan failOn(Operation operation, int nth) {
    rules.add(new Rule(Kind.FAIL, operation, nth, null, Duration.ZERO));
    return this;
  }

  /**
   * Fails every call of {@code operation} whose target is {@code target} (an object key such as
   * {@code secret/default/creds}, or {@code namespace/name} for records and leases).
   */
  public synchronized FaultPlan failOn(Operation operation, String target) {
    rules.add(new Rule(Kind.FAIL, operation, 0, requireNonNull(target, "target"), Duration.ZERO));
    return this;
  }

  /**
   * Lets the {@code nth} call of {@code operation} take effect, then throws {@link SimulatedCrash}.
   */
  public synchronized FaultPlan crashAfter(Operation operation, int nth) {
    rules.add(new Rule(Kind.CRASH, operation, nth, null, Duration.ZERO));
    return this;
  }

  /** Delays every call of {@code operation} by {@code latency} (a real sleep). */
  public synchronized FaultPlan delay(Operation operation, Duration latency) {
    rules.add(new Rule(Kind.DELAY, operation, 0, null, requireNonNull(latency, "latency")));
    return this;
  }

  /** Removes every rule. */
  public synchronized FaultPlan clear() {
    rules.clear();
    return this;
  }

  /**
   * Called before an operation runs: sleeps for delays, throws for failures.
   *
   * @return whether the caller must throw {@link SimulatedCrash} after performing the operation
   */
  boolean before(Operation operation, String target) {
    Duration sleep = Duration.ZERO;
    boolean crash = false;
    String failure = null;
    synchronized (this) {
      for (Rule rule : rules) {
        if (rule.operation != operation) {
          continue;
        }
        switch (rule.kind) {
          case DELAY -> sleep = sleep.plus(rule.latency);
          case FAIL -> {
            if (rule.target != null) {
              if (rule.target.equals(target)) {
                failure = "injected fault on " + target;
              }
            } else if (++rule.calls == rule.nth) {
              failure = "injected fault on call " + rule.nth;
            }
          }
          case CRASH -> crash |= ++rule.calls == rule.nth;
        }
      }
    }
    if (!sleep.isZero()) {
      try {
        Thread.sleep(sleep.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ClusterException(
            operation.name().toLowerCase(Locale.ROOT), null, null, target, 0, "interrupted", e);
      }
    }
    if (failure != null) {
      throw new ClusterException(
          operation.name().toLowerCase(Locale.ROOT), null, null, target, 0, failure, null);
    }
    return crash;
  }

  private enum Kind {
    FAIL,
    CRASH,
    DELAY
  }

  private static final class Rule {
    final Kind kind;
    final Operation operation;
    final int nth;
    final @Nullable String target;
    final Duration latency;
    int calls;

    Rule(Kind kind, Operation operation, int nth, @Nullable String target, Duration latency) {
      if (((kind == Kind.FAIL && target == null) || kind == Kind.CRASH) && nth < 1) {
        throw new IllegalArgumentException("call index must be at least 1: " + nth);
      }
      this.kind = kind;
      this.operation = requireNonNull(operation, "operation");
      this.nth = nth;
      this.target = target;
      this.latency = latency;
    }
  }
}
