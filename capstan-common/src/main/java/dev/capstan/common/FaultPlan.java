package dev.capstan.common;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Faults to inject into an in-memory fake's calls, one vocabulary for every fake: fail a chosen
 * call of an operation, fail every call on a target, add latency, or crash after a call. {@code O}
 * is the fake's enum of operations. A target is what the call is about (an object key, {@code
 * namespace/name}, a CRD name); the target {@code *} matches any. Each rule counts the calls it
 * matches from the moment it is added, independently of the other rules. A failure is a {@link
 * ClusterException}; the first failing rule, in the order added, names it. Thread-safe.
 *
 * @param <O> the fake's operations
 */
public final class FaultPlan<O extends Enum<O>> {
  /** The target that matches every call. */
  public static final String ANY = "*";

  private final Sleeper sleeper;
  private final List<Rule<O>> rules = new ArrayList<>();

  private FaultPlan(Sleeper sleeper) {
    this.sleeper = sleeper;
  }

  /**
   * Returns an empty plan whose delays block the calling thread.
   *
   * @param <O> the fake's operations
   * @return the plan
   */
  public static <O extends Enum<O>> FaultPlan<O> create() {
    return create(Sleeper.system());
  }

  /**
   * Returns an empty plan whose delays pause with {@code sleeper}.
   *
   * @param <O> the fake's operations
   * @param sleeper how a delay pauses, for example {@link Sleeper#manual}
   * @return the plan
   */
  public static <O extends Enum<O>> FaultPlan<O> create(Sleeper sleeper) {
    return new FaultPlan<>(requireNonNull(sleeper, "sleeper"));
  }

  /**
   * Fails the {@code nth} call (1-based) of {@code operation} from now on, once, with {@code
   * injected fault on call N}.
   *
   * @param operation the call
   * @param nth which call, 1 for the next
   * @return this
   */
  public FaultPlan<O> failOn(O operation, int nth) {
    return add(new Rule<>(Kind.FAIL, operation, ANY, checked(nth), nth, null, Duration.ZERO));
  }

  /**
   * Fails every call of {@code operation} on {@code target}, with {@code injected fault on TARGET}.
   *
   * @param operation the call
   * @param target the target (an object key such as {@code secret/default/creds}, or {@code
   *     namespace/name}), or {@link #ANY}
   * @return this
   */
  public FaultPlan<O> failOn(O operation, String target) {
    return add(new Rule<>(Kind.FAIL, operation, target, 1, Integer.MAX_VALUE, null, Duration.ZERO));
  }

  /**
   * Fails every call of {@code operation} on {@code target} with {@code message}.
   *
   * @param operation the call
   * @param target the target, or {@link #ANY}
   * @param message the failure message
   * @return this
   */
  public FaultPlan<O> failAlways(O operation, String target, String message) {
    return add(
        new Rule<>(
            Kind.FAIL,
            operation,
            target,
            1,
            Integer.MAX_VALUE,
            requireNonNull(message, "message"),
            Duration.ZERO));
  }

  /**
   * Fails the next call of {@code operation} on {@code target}, once, with {@code message}.
   *
   * @param operation the call
   * @param target the target, or {@link #ANY}
   * @param message the failure message
   * @return this
   */
  public FaultPlan<O> failNext(O operation, String target, String message) {
    return failNth(operation, target, 1, message);
  }

  /**
   * Fails the {@code n}-th call (1-based) of {@code operation} on {@code target}, once, with {@code
   * message}.
   *
   * @param operation the call
   * @param target the target, or {@link #ANY}
   * @param n which matching call, 1 for the next
   * @param message the failure message
   * @return this
   */
  public FaultPlan<O> failNth(O operation, String target, int n, String message) {
    return add(
        new Rule<>(
            Kind.FAIL,
            operation,
            target,
            checked(n),
            n,
            requireNonNull(message, "message"),
            Duration.ZERO));
  }

  /**
   * Lets the {@code nth} call of {@code operation} take effect, then has the fake crash (what a
   * crash is, the fake says: the release fake throws its {@code SimulatedCrash}).
   *
   * @param operation the call
   * @param nth which call, 1 for the next
   * @return this
   */
  public FaultPlan<O> crashAfter(O operation, int nth) {
    return add(new Rule<>(Kind.CRASH, operation, ANY, checked(nth), nth, null, Duration.ZERO));
  }

  /**
   * Delays every call of {@code operation} by {@code latency}, with this plan's sleeper.
   *
   * @param operation the call
   * @param latency how long each call takes longer
   * @return this
   */
  public FaultPlan<O> delay(O operation, Duration latency) {
    return add(
        new Rule<>(
            Kind.DELAY,
            operation,
            ANY,
            1,
            Integer.MAX_VALUE,
            null,
            requireNonNull(latency, "latency")));
  }

  /**
   * Removes every rule.
   *
   * @return this
   */
  public synchronized FaultPlan<O> clear() {
    rules.clear();
    return this;
  }

  /**
   * Runs the rules for a call, before the fake performs it: pauses for delays and throws for a
   * failure. Every matching rule counts the call.
   *
   * @param operation the call
   * @param target what the call is about
   * @return whether the fake must crash once it has performed the call
   * @throws ClusterException when a rule fails the call, or the delay is interrupted
   */
  public boolean before(O operation, String target) {
    Duration pause = Duration.ZERO;
    boolean crash = false;
    ClusterException failure = null;
    synchronized (this) {
      for (Rule<O> rule : rules) {
        if (rule.operation != operation
            || !(rule.target.equals(ANY) || rule.target.equals(target))) {
          continue;
        }
        boolean hit = rule.hit();
        switch (rule.kind) {
          case DELAY -> pause = pause.plus(rule.latency);
          case CRASH -> crash |= hit;
          case FAIL -> {
            if (hit && failure == null) {
              failure = rule.failure(target);
            }
          }
        }
      }
    }
    if (!pause.isZero()) {
      try {
        sleeper.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ClusterException(name(operation), null, null, target, 0, "interrupted", e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return crash;
  }

  /**
   * The failure a rule that fails every call of {@code operation} on {@code target} ({@link
   * #failOn(Enum, String)}, {@link #failAlways}) holds for it, without counting a call: what a fake
   * refuses whenever asked, so that a dry run of the call can refuse it too. Rules on call counts
   * ({@link #failOn(Enum, int)}, {@link #failNth}) are passing faults and are not reported.
   *
   * @param operation the call
   * @param target what the call is about
   * @return the failure the call would meet, or empty
   */
  public synchronized Optional<ClusterException> standing(O operation, String target) {
    for (Rule<O> rule : rules) {
      if (rule.kind == Kind.FAIL
          && rule.operation == operation
          && rule.from == 1
          && rule.to == Integer.MAX_VALUE
          && (rule.target.equals(ANY) || rule.target.equals(target))) {
        return Optional.of(rule.failure(target));
      }
    }
    return Optional.empty();
  }

  private synchronized FaultPlan<O> add(Rule<O> rule) {
    rules.add(rule);
    return this;
  }

  private static int checked(int nth) {
    if (nth < 1) {
      throw new IllegalArgumentException("call index must be at least 1: " + nth);
    }
    return nth;
  }

  private static String name(Enum<?> operation) {
    return operation.name().toLowerCase(Locale.ROOT);
  }

  private enum Kind {
    FAIL,
    CRASH,
    DELAY
  }

  private static final class Rule<O extends Enum<O>> {
    final Kind kind;
    final O operation;
    final String target;
    final int from;
    final int to;
    final @Nullable String message;
    final Duration latency;
    int calls;

    Rule(
        Kind kind,
        O operation,
        String target,
        int from,
        int to,
        @Nullable String message,
        Duration latency) {
      this.kind = kind;
      this.operation = requireNonNull(operation, "operation");
      this.target = requireNonNull(target, "target");
      this.from = from;
      this.to = to;
      this.message = message;
      this.latency = latency;
    }

    boolean hit() {
      calls++;
      return calls >= from && calls <= to;
    }

    ClusterException failure(String at) {
      if (message != null) {
        return new ClusterException(name(operation) + " " + at + ": " + message);
      }
      String detail =
          target.equals(ANY) ? "injected fault on call " + from : "injected fault on " + at;
      return new ClusterException(name(operation), null, null, at, 0, detail, null);
    }
  }
}
