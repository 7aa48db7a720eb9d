package dev.capstan.release.engine;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A cast's wait for what a wave wrote to be healthy ({@link CastExecution}): judged by the
 * release's health rules over the shipped defaults ({@link HealthRuleCompiler}), then the built-in
 * rules, within what is left of the cast's timeout, stopped when a newer revision supersedes the
 * cast ({@link Supersession}).
 */
final class HealthStage {
  private final Ports ports;
  private final Duration timeout;
  private final boolean waitForLoadBalancer;
  private final Consumer<ReleaseEvent> events;
  private final String release;
  private final Supersession superseded;

  /** The release's health rules over the shipped defaults ({@link HealthRuleCompiler}). */
  private final CustomHealth rules;

  HealthStage(
      Ports ports,
      ReleaseOptions options,
      Consumer<ReleaseEvent> events,
      String release,
      Supersession superseded) {
    this.ports = ports;
    this.timeout = options.timeout();
    this.waitForLoadBalancer = options.waitForLoadBalancer();
    this.rules = HealthRuleCompiler.compileInstalled(options.healthRules());
    this.events = events;
    this.release = release;
    this.superseded = superseded;
  }

  /**
   * Waits until {@code deadline} ({@link System#nanoTime}) for {@code objects} to be healthy,
   * taking {@code applied} as just written.
   *
   * @throws ReleaseException when one failed or the wait timed out, with advice that works
   * @throws dev.capstan.release.error.CastSupersededException when a newer revision stopped it
   */
  void await(List<ResourceRef> objects, long deadline, Set<ResourceRef> applied) {
    if (!objects.isEmpty()) {
      events.accept(new ReleaseEvent.Verifying(release, objects, timeout));
    }
    Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    Readiness readiness =
        ports
            .orchestrator()
            .awaitReady(
                objects,
                new ReadinessWait(
                    left,
                    waitForLoadBalancer,
                    p -> events.accept(new ReleaseEvent.StillWaiting(release, ofAll(p, objects))),
                    Set.copyOf(applied),
                    rules,
                    superseded.asked()));
    if (readiness instanceof Readiness.Stopped) {
      throw superseded.stoppedWaiting(objects);
    }
    if (readiness instanceof Readiness.TimedOut t) {
      // the deadline is the cast's: it ran out the whole timeout since the cast began
      readiness = Readiness.timedOut(t.pending(), timeout, t.reasons());
    }
    if (readiness instanceof Readiness.TimedOut t) {
      throw new ReleaseException("verify failed: " + t.describe() + timeoutAdvice(t));
    }
    if (!readiness.isReady()) {
      throw new ReleaseException("verify failed: " + readiness.describe());
    }
    if (!objects.isEmpty()) {
      events.accept(new ReleaseEvent.Verified(release, objects.size()));
    }
  }

  /**
   * {@code progress} counted against every object the wave waits for, as the {@code Verifying} line
   * named them: an orchestrator follows only those not healthy as written (a Service current as
   * written, a kind without a health rule), and counts those alone.
   */
  private static Readiness.Progress ofAll(Readiness.Progress progress, List<ResourceRef> objects) {
    return new Readiness.Progress(
        progress.elapsed(),
        Math.max(objects.size(), progress.total()),
        progress.pending(),
        progress.reasons());
  }

  /**
   * What to do about a wait that timed out, each piece of advice one that works when followed: a
   * Service of type LoadBalancer still without an address, on a cluster that has no load balancer
   * controller, never gets one, and the cast counts it healthy once it exists with {@code
   * waitForLoadBalancer} off; anything else pending may only need longer, and the next cast, with a
   * longer timeout, finishes the revision recorded failed.
   */
  private String timeoutAdvice(Readiness.TimedOut t) {
    boolean loadBalancer =
        waitForLoadBalancer
            && t.pending().stream()
                .anyMatch(
                    r ->
                        r.kind().equals(Kind.SERVICE)
                            && String.valueOf(t.reasons().get(r)).contains("type LoadBalancer"));
    return (loadBalancer
            ? "; a cluster without a load balancer controller never gives a Service of type"
                + " LoadBalancer an address: cast with waitForLoadBalancer off (the CLI's"
                + " --no-wait-for-load-balancer) to count it healthy once it exists"
            : "")
        + "; if what is pending only needs longer, cast again with a longer timeout (the CLI's"
        + " --timeout): the next cast finishes this revision";
  }
}
