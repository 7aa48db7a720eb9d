package dev.capstan.micrometer;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Platform update metrics on a {@link MeterRegistry}, as one listener of the applier (and of the
 * host's own planning flow, which sends {@link UpdateEvent.Planned}; {@code capstan update} does):
 *
 * <pre>{@code
 * UpdateResult result =
 *     UpdateApplier.apply(
 *         cluster, plan, ApplyOptions.defaults().withListener(UpdateMetrics.of(registry)));
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th scope="col">name</th><th scope="col">type</th><th scope="col">tags</th><th scope="col">what</th></tr>
 *   <tr><td>{@value #OPERATION}</td><td>timer</td><td>operation, outcome</td>
 *       <td>{@code operation=plan} (outcome {@code planned} or {@code blocked}) and {@code
 *       operation=update}, an apply (outcome {@code completed}, {@code failed}, {@code
 *       rolled_back}, {@code rollback_failed}, {@code error})</td></tr>
 *   <tr><td>{@value #ACTIVE}</td><td>long task timer</td><td></td><td>applies in flight</td></tr>
 *   <tr><td>{@value #WRITES}</td><td>counter</td><td>kind</td>
 *       <td>writes: {@code crd} applied, {@code workload} patched, {@code rollback} patch</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td></td><td>image builds retried</td></tr>
 *   <tr><td>{@value #ROLLBACKS}</td><td>counter</td><td>outcome</td>
 *       <td>workloads restored ({@code rolled_back}) or not ({@code failed})</td></tr>
 * </table>
 *
 * <p>Thread-safe; several instances on one registry share its meters.
 */
// its core is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class UpdateMetrics implements UpdateListener {
  /** The timer of plans and applies. */
  public static final String OPERATION = "capstan.update.operation";

  /** The long task timer of applies in flight. */
  public static final String ACTIVE = "capstan.update.active";

  /** The counter of writes. */
  public static final String WRITES = "capstan.update.writes";

  /** The counter of image build retries. */
  public static final String RETRIES = "capstan.update.retries";

  /** The counter of workload rollbacks. */
  public static final String ROLLBACKS = "capstan.update.rollbacks";

  private final MeterRegistry registry;

  private UpdateMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * Returns metrics on {@code registry}.
   *
   * @param registry the registry
   * @return the listener
   */
  public static UpdateMetrics of(MeterRegistry registry) {
    return new UpdateMetrics(requireNonNull(registry, "registry"));
  }

  @Override
  public UpdateListener begin(UpdateEvent.UpdateStarted started) {
    LongTaskTimer.Sample active =
        LongTaskTimer.builder(ACTIVE)
            .description("Capstan platform updates in flight")
            .register(registry)
            .start();
    return event -> {
      onEvent(event);
      if (event instanceof UpdateEvent.UpdateFinished) {
        active.stop();
      }
    };
  }

  @Override
  public void onEvent(UpdateEvent event) {
    if (event instanceof UpdateEvent.UpdateFinished f) {
      time("update", f.outcome().id(), f.duration());
    } else if (event instanceof UpdateEvent.Planned p) {
      time("plan", p.blocked() > 0 ? "blocked" : "planned", p.duration());
    } else if (event instanceof UpdateEvent.CrdApplied) {
      count(WRITES, "kind", "crd");
    } else if (event instanceof UpdateEvent.WorkloadPatched) {
      count(WRITES, "kind", "workload");
    } else if (event instanceof UpdateEvent.WorkloadRolledBack) {
      count(WRITES, "kind", "rollback");
      count(ROLLBACKS, "outcome", "rolled_back");
    } else if (event instanceof UpdateEvent.RollbackFailed) {
      count(ROLLBACKS, "outcome", "failed");
    } else if (event instanceof UpdateEvent.ImageBuildRetrying) {
      Counter.builder(RETRIES).register(registry).increment();
    }
  }

  private void time(String operation, String outcome, java.time.Duration duration) {
    Timer.builder(OPERATION)
        .description("Capstan platform plans and updates, by outcome")
        .tags("operation", operation, "outcome", outcome)
        .register(registry)
        .record(duration);
  }

  private void count(String name, String tag, String value) {
    Counter.builder(name).tags(tag, value).register(registry).increment();
  }
}
