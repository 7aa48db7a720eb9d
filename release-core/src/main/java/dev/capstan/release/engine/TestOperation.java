package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.HookRefusedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.TestResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code release test}: under the release's lease, runs the {@code test} hooks of its latest
 * revision, which must be deployed ({@link HookStage}: one at a time in run order, the first that
 * fails stops them), and records their outcomes in that revision in place of its earlier test runs
 * (one record write; none when it declares no test hook). Nothing of the release is written.
 */
public final class TestOperation {
  private final EngineContext context;

  public TestOperation(EngineContext context) {
    this.context = context;
  }

  /**
   * Tests a release, as one {@code TEST} operation; its test hooks outside its namespace run only
   * when {@code allowedHooks} names them ({@link HookPlan#refusal}).
   */
  public TestResult test(
      String namespace, String name, Duration timeout, Collection<ResourceRef> allowedHooks) {
    requireNonNull(timeout, "timeout");
    Set<ResourceRef> allowed = Set.copyOf(allowedHooks);
    return context.operation(
        Operation.TEST,
        namespace + "/" + name,
        () ->
            context
                .acquireLease(namespace, name, null)
                .run(lease -> testLeased(namespace, name, timeout, allowed, lease)));
  }

  private TestResult testLeased(
      String namespace,
      String name,
      Duration timeout,
      Set<ResourceRef> allowed,
      LeaseKeeper lease) {
    String release = namespace + "/" + name;
    Optional<StoredRelease> stored = context.store.latestRecord(namespace, name);
    if (stored.isEmpty()) {
      lease.forgetOnClose();
      throw new ReleaseNotFoundException(release, null);
    }
    Release latest = stored.get().release();
    if (latest.status() != ReleaseStatus.DEPLOYED) {
      throw new InvalidReleaseException(
          release,
          List.of(
              "its latest revision "
                  + latest.revision()
                  + " is "
                  + latest.status().id()
                  + ": only a deployed revision is tested; cast it (or roll back) first"));
    }
    Optional<String> refused = HookPlan.test(latest).refusal("test", allowed);
    if (refused.isPresent()) {
      throw new HookRefusedException(refused.get() + "; nothing was run");
    }
    List<Hook> tests = latest.payloads().hooks(HookPhase.TEST);
    if (tests.isEmpty()) {
      return new TestResult(latest, List.of(), 0);
    }
    HookStage stage =
        new HookStage(
            context.ports.orchestrator(),
            latest.identity(),
            context.clock,
            timeout,
            HookAdvice.test(),
            lease::checkHeld,
            context.events());
    try {
      stage.run(HookPhase.TEST, tests);
    } catch (ReleaseException e) {
      // a failed test is an outcome, recorded and returned
    }
    List<HookOutcome> hooks = new ArrayList<>();
    latest.hooks().stream().filter(h -> h.phase() != HookPhase.TEST).forEach(hooks::add);
    hooks.addAll(stage.outcomes());
    Release tested = latest.withHooks(hooks);
    lease.checkHeld();
    context.store.updateRecord(tested, stored.get().version());
    return new TestResult(tested, stage.outcomes(), tests.size());
  }
}
