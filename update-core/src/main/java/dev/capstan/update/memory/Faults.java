package dev.capstan.update.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Failures to inject into the in-memory cluster's calls. A rule matches an operation and a target
 * ({@code namespace/name} for Deployments, the name for CRDs, {@code *} for any) and fails the
 * matching calls it selects with a {@link ClusterException}. Rules are checked in the order added.
 */
public final class Faults {
  private final List<Rule> rules = new ArrayList<>();

  Faults() {}

  /**
   * Fails every matching call.
   *
   * @param operation the call
   * @param target the target, or {@code *}
   * @param message the failure message
   * @return this
   */
  public synchronized Faults failAlways(Operation operation, String target, String message) {
    rules.add(new Rule(operation, target, 1, Integer.MAX_VALUE, message));
    return this;
  }

  /**
   * Fails the next matching call, once.
   *
   * @param operation the call
   * @param target the target, or {@code *}
   * @param message the failure message
   * @return this
   */
  public synchronized Faults failNext(Operation operation, String target, String message) {
    return failNth(operation, target, 1, message);
  }

  /**
   * Fails the n-th matching call (counted from when the rule is added), once.
   *
   * @param operation the call
   * @param target the target, or {@code *}
   * @param n which call, 1 for the next
   * @param message the failure message
   * @return this
   */
  public synchronized Faults failNth(Operation operation, String target, int n, String message) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1: " + n);
    }
    rules.add(new Rule(operation, target, n, n, message));
    return this;
  }

  /** Removes every rule. */
  public synchronized void clear() {
    rules.clear();
  }

  synchronized void check(Operation operation, String target) {
    for (Rule rule : rules) {
      if (rule.operation == operation
          && (rule.target.equals("*") || rule.target.equals(target))
          && rule.hit()) {
        throw new ClusterException(
            operation.name().toLowerCase(Locale.ROOT) + " " + target + ": " + rule.message);
      }
    }
  }

  private static final class Rule {
    final Operation operation;
    final String target;
    final int from;
    final int to;
    final String message;
    int calls;

    Rule(Operation operation, String target, int from, int to, String message) {
      this.operation = requireNonNull(operation, "operation");
      this.target = requireNonNull(target, "target");
      this.from = from;
      this.to = to;
      this.message = requireNonNull(message, "message");
    }

    boolean hit() {
      calls++;
      return calls >= from && calls <= to;
    }
  }
}
