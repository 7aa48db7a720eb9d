package dev.capstan.micrometer;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.Operation;
import dev.capstan.release.event.Outcome;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Release metrics on a {@link MeterRegistry}, as one listener of a {@code ReleaseController}:
 *
 * <pre>{@code
 * ReleaseController releases =
 *     ReleaseController.builder(orchestrator, store).listener(ReleaseMetrics.of(registry)).build();
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th scope="col">name</th><th scope="col">type</th><th scope="col">tags</th><th scope="col">what</th></tr>
 *   <tr><td>{@value #OPERATION}</td><td>timer</td><td>operation, outcome, error</td>
 *       <td>each plan, cast, rollback and uninstall, by how it ended</td></tr>
 *   <tr><td>{@value #ACTIVE}</td><td>long task timer</td><td>operation</td>
 *       <td>the operations in flight (its active count is the gauge of casts in flight)</td></tr>
 *   <tr><td>{@value #WRITES}</td><td>counter</td><td>action</td>
 *       <td>object writes and removals that completed</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td></td><td>steps retried</td></tr>
 *   <tr><td>{@value #FENCES}</td><td>counter</td><td>action</td>
 *       <td>writes refused because the object moved since the plan</td></tr>
 *   <tr><td>{@value #CONFLICTS}</td><td>counter</td><td>operation</td>
 *       <td>casts and rollbacks refused because their plan has conflicts</td></tr>
 *   <tr><td>{@value #LEASE_WAITS}</td><td>counter</td><td></td>
 *       <td>operations that queued behind another holder of the lease</td></tr>
 * </table>
 *
 * <p>Tag values are the lower-case ids of {@link Operation}, {@link Outcome} and {@code Action};
 * {@code error} is the simple class name of the exception the operation threw, or {@code none}
 * (Micrometer's convention, as Spring's observations tag it); {@link #withReleaseTags()} adds
 * {@code namespace} and {@code release} to every meter but {@value #ACTIVE}. Thread-safe; several
 * instances on one registry share its meters.
 */
// its core is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class ReleaseMetrics implements ReleaseListener {
  /** The timer of operations. */
  public static final String OPERATION = "capstan.release.operation";

  /** The long task timer of operations in flight. */
  public static final String ACTIVE = "capstan.release.active";

  /** The counter of completed writes. */
  public static final String WRITES = "capstan.release.writes";

  /** The counter of retries. */
  public static final String RETRIES = "capstan.release.retries";

  /** The counter of fenced writes. */
  public static final String FENCES = "capstan.release.fences";

  /** The counter of casts refused for conflicts. */
  public static final String CONFLICTS = "capstan.release.conflicts";

  /** The counter of lease waits. */
  public static final String LEASE_WAITS = "capstan.release.lease.waits";

  private final MeterRegistry registry;
  private final boolean releaseTags;

  private ReleaseMetrics(MeterRegistry registry, boolean releaseTags) {
    this.registry = registry;
    this.releaseTags = releaseTags;
  }

  /** Metrics on {@code registry}, tagged by operation, outcome and action only. */
  public static ReleaseMetrics of(MeterRegistry registry) {
    return new ReleaseMetrics(requireNonNull(registry, "registry"), false);
  }

  /**
   * These metrics with the tags {@code namespace} and {@code release} (its name) on every meter but
   * {@value #ACTIVE}: one time series per release, so use it where releases are few.
   */
  public ReleaseMetrics withReleaseTags() {
    return new ReleaseMetrics(registry, true);
  }

  @Override
  public ReleaseListener begin(ReleaseEvent.OperationStarted started) {
    LongTaskTimer.Sample active =
        LongTaskTimer.builder(ACTIVE)
            .description("Capstan release operations in flight")
            .tags("operation", started.operation().id())
            .register(registry)
            .start();
    return event -> {
      on(event);
      if (event instanceof ReleaseEvent.Finished) {
        active.stop();
      }
    };
  }

  @Override
  public void on(ReleaseEvent event) {
    if (event instanceof ReleaseEvent.Finished f) {
      Timer.builder(OPERATION)
          .description("Capstan release operations, by operation and outcome")
          .tags(
              tags(f)
                  .and(
                      "operation",
                      f.operation().id(),
                      "outcome",
                      f.outcome().id(),
                      "error",
                      f.error() == null ? "none" : f.error().getClass().getSimpleName()))
          .register(registry)
          .record(f.duration());
      if (f.outcome() == Outcome.CONFLICT) {
        count(CONFLICTS, tags(f).and("operation", f.operation().id()));
      }
    } else if (event instanceof ReleaseEvent.Done d) {
      count(WRITES, tags(d).and("action", d.action().id()));
    } else if (event instanceof ReleaseEvent.Fenced f) {
      count(FENCES, tags(f).and("action", f.action().id()));
    } else if (event instanceof ReleaseEvent.Retrying r) {
      count(RETRIES, tags(r));
    } else if (event instanceof ReleaseEvent.WaitingForLease w) {
      count(LEASE_WAITS, tags(w));
    }
  }

  private void count(String name, Tags tags) {
    Counter.builder(name).tags(tags).register(registry).increment();
  }

  private Tags tags(ReleaseEvent event) {
    if (!releaseTags) {
      return Tags.empty();
    }
    String release = event.release();
    int slash = release.indexOf('/');
    return Tags.of(
        "namespace",
        slash < 0 ? "" : release.substring(0, slash),
        "release",
        release.substring(slash + 1));
  }
}
