package dev.capstan.micrometer;

import static java.util.Objects.requireNonNull;

import dev.capstan.controller.ControllerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;

/**
 * The metrics of a Release controller ({@code capstan-controller}) on a {@link MeterRegistry}, as
 * its observer:
 *
 * <pre>{@code
 * ReleaseResourceController.builder(clients).observer(ControllerMetrics.of(registry)).build();
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th scope="col">name</th><th scope="col">type</th><th scope="col">tags</th><th scope="col">what</th></tr>
 *   <tr><td>{@value #RECONCILE}</td><td>timer</td><td>reason, result</td>
 *       <td>each reconcile, by the reason of the Release's Ready condition after it ({@code Cast},
 *       {@code UpToDate}, {@code CastFailed}, ...; {@code Error} when it threw) and its result
 *       ({@code success}, {@code failure}: Ready=False or an error)</td></tr>
 *   <tr><td>{@value #FAILURES}</td><td>counter</td><td>reason</td>
 *       <td>the reconciles that ended in a failure, by reason</td></tr>
 *   <tr><td>{@value #QUEUE_DEPTH}</td><td>gauge</td><td></td>
 *       <td>the Releases waiting in the work queue (due now or later)</td></tr>
 *   <tr><td>{@value #RELEASES}</td><td>gauge</td><td>condition, status</td>
 *       <td>the Releases the controller sees by condition: Ready True, False and Unknown;
 *       Stalled, Reconciling and Suspended True</td></tr>
 * </table>
 *
 * <p>No tag names a Release: the reasons are the controller's own closed set, so the series stay
 * few whatever the fleet. The gauges are registered when the controller starts.
 */
// its module is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class ControllerMetrics implements ControllerObserver {
  /** The timer of reconciles. */
  public static final String RECONCILE = "capstan.controller.reconcile";

  /** The counter of failed reconciles. */
  public static final String FAILURES = "capstan.controller.failures";

  /** The gauge of the work queue's depth. */
  public static final String QUEUE_DEPTH = "capstan.controller.queue.depth";

  /** The gauge of Releases by condition. */
  public static final String RELEASES = "capstan.controller.releases";

  private final MeterRegistry registry;

  private ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Metrics on {@code registry}. */
  public static ControllerMetrics of(MeterRegistry registry) {
    return new ControllerMetrics(requireNonNull(registry, "registry"));
  }

  @Override
  public void started(State state) {
    requireNonNull(state, "state");
    // the registry holds a gauge's object weakly by default: the state is the controller's view,
    // which nothing else keeps
    Gauge.builder(QUEUE_DEPTH, state, State::queueDepth)
        .description("Releases waiting in the controller's work queue")
        .strongReference(true)
        .register(registry);
    for (ConditionCount c : state.releasesByCondition()) {
      String type = c.type();
      String status = c.status();
      Gauge.builder(RELEASES, state, s -> count(s.releasesByCondition(), type, status))
          .description("Releases by condition and status")
          .tags(Tags.of("condition", type, "status", status))
          .strongReference(true)
          .register(registry);
    }
  }

  private static double count(List<ConditionCount> counts, String type, String status) {
    for (ConditionCount c : counts) {
      if (c.type().equals(type) && c.status().equals(status)) {
        return c.count();
      }
    }
    return 0;
  }

  @Override
  public void reconciled(Reconcile reconcile) {
    boolean failed = reconcile.failed();
    Timer.builder(RECONCILE)
        .description("Reconciles of Releases, by the reason of their Ready condition after")
        .tags(Tags.of("reason", reconcile.reason(), "result", failed ? "failure" : "success"))
        .register(registry)
        .record(reconcile.duration());
    if (failed) {
      Counter.builder(FAILURES)
          .description("Reconciles that ended in a failure, by reason")
          .tags(Tags.of("reason", reconcile.reason()))
          .register(registry)
          .increment();
    }
  }
}
