package dev.capstan.release.engine;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookDeletePolicy;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.PlannedHook;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The one stage that runs hooks, called at each phase of an operation (Helm's {@code execHook}):
 * the hooks of a phase one at a time in run order ({@link Hook#ORDER}); for each, its object left
 * by an earlier run deleted and awaited gone when its policy is {@code before-hook-creation}, the
 * object created (fenced on its absence, marked {@link Hook#marked}), a Job or Pod awaited to
 * completion within the hook's timeout; a failing hook deleted when its policy is {@code
 * hook-failed}, and the phase stopped with its reason; once all succeeded, those whose policy is
 * {@code hook-succeeded} deleted. Every write is checked against the lease first. A hook object is
 * written with the orchestrator the release's own objects are (the same rights), and only an object
 * that carries this release's mark ({@link Hook#markedBy}) and no release's ownership stamp is ever
 * deleted, on its observed uid and resourceVersion (ARCHITECTURE.md, "Hooks").
 */
final class HookStage {
  private final Orchestrator orchestrator;
  private final ReleaseIdentity identity;
  private final String release;
  private final Clock clock;
  private final Duration defaultTimeout;
  private final HookAdvice advice;
  private final Runnable checkLease;
  private final Consumer<ReleaseEvent> events;
  private final List<HookOutcome> outcomes = new ArrayList<>();

  HookStage(
      Orchestrator orchestrator,
      ReleaseIdentity identity,
      Clock clock,
      Duration defaultTimeout,
      HookAdvice advice,
      Runnable checkLease,
      Consumer<ReleaseEvent> events) {
    this.orchestrator = orchestrator;
    this.identity = identity;
    this.release = identity.qualifiedName();
    this.clock = clock;
    this.defaultTimeout = defaultTimeout;
    this.advice = advice;
    this.checkLease = checkLease;
    this.events = events;
  }

  /**
   * The hooks a cast of {@code payloads} over the record {@code latest} runs, in run order: those
   * of {@code pre-install} and {@code post-install} when nothing is recorded (or the latest
   * revision is uninstalled), of {@code pre-rollback} and {@code post-rollback} for a {@code
   * rollback}, else of {@code pre-upgrade} and {@code post-upgrade}. What a plan lists is what its
   * cast runs.
   */
  static List<PlannedHook> planned(Payloads payloads, @Nullable Release latest, boolean rollback) {
    boolean install = latest == null || latest.status() == ReleaseStatus.UNINSTALLED;
    HookPhase pre =
        rollback ? HookPhase.PRE_ROLLBACK : install ? HookPhase.PRE_INSTALL : HookPhase.PRE_UPGRADE;
    HookPhase post =
        rollback
            ? HookPhase.POST_ROLLBACK
            : install ? HookPhase.POST_INSTALL : HookPhase.POST_UPGRADE;
    List<PlannedHook> out = new ArrayList<>();
    for (HookPhase phase : List.of(pre, post)) {
      payloads.hooks(phase).forEach(h -> out.add(PlannedHook.of(phase, h)));
    }
    return out;
  }

  /**
   * Runs the hooks {@code planned} lists for the phase before the writes ({@code pre-}), their
   * objects from {@code payloads}.
   *
   * @throws ReleaseException at the first that fails, or when {@code payloads} lacks one
   */
  void runBefore(List<PlannedHook> planned, Payloads payloads) {
    planned.stream()
        .map(PlannedHook::phase)
        .filter(HookPhase::before)
        .distinct()
        .forEach(phase -> run(phase, planned, payloads));
  }

  /** Runs the planned hooks of the phase after the writes ({@code post-}, or {@code test}). */
  void runAfter(List<PlannedHook> planned, Payloads payloads) {
    planned.stream()
        .map(PlannedHook::phase)
        .filter(p -> !p.before())
        .distinct()
        .forEach(phase -> run(phase, planned, payloads));
  }

  private void run(HookPhase phase, List<PlannedHook> planned, Payloads payloads) {
    List<Hook> hooks = new ArrayList<>();
    for (PlannedHook p : planned) {
      if (p.phase() == phase) {
        hooks.add(
            payloads.hooks(phase).stream()
                .filter(h -> h.ref().equals(p.ref()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new ReleaseException(
                            "the plan runs the "
                                + phase
                                + " hook "
                                + p.ref().key()
                                + ", which the payloads do not hold as such; plan again")));
      }
    }
    run(phase, hooks);
  }

  /** The outcomes of every hook this stage ran, in the order they ran. */
  List<HookOutcome> outcomes() {
    return List.copyOf(outcomes);
  }

  /**
   * Runs {@code hooks} (those of {@code phase}, in run order).
   *
   * @throws ReleaseException at the first hook that fails: {@code pre-upgrade hook
   *     batch/Job/shop/migrate failed: ...}
   */
  void run(HookPhase phase, List<Hook> hooks) {
    List<Hook> succeeded = new ArrayList<>();
    for (Hook hook : hooks) {
      HookOutcome outcome = runOne(phase, hook);
      outcomes.add(outcome);
      events.accept(new ReleaseEvent.HookFinished(release, outcome));
      if (!outcome.succeeded()) {
        if (hook.effectivePolicies().contains(HookDeletePolicy.HOOK_FAILED)) {
          deleteOurs(hook, timeout(hook));
        }
        throw new ReleaseException(
            phase + " hook " + hook.ref().key() + " failed: " + outcome.message());
      }
      succeeded.add(hook);
    }
    for (Hook hook : succeeded) {
      if (hook.effectivePolicies().contains(HookDeletePolicy.HOOK_SUCCEEDED)) {
        deleteOurs(hook, timeout(hook));
      }
    }
  }

  private HookOutcome runOne(HookPhase phase, Hook hook) {
    events.accept(new ReleaseEvent.HookStarted(release, phase, hook.ref()));
    Duration timeout = timeout(hook);
    Instant started = clock.instant();
    String failure;
    try {
      if (hook.effectivePolicies().contains(HookDeletePolicy.BEFORE_HOOK_CREATION)) {
        deleteOurs(hook, timeout);
      }
      checkLease.run();
      orchestrator.apply(Hook.marked(hook.object(), identity), null, Precondition.absent());
      failure = hook.awaited() ? completion(phase, hook, timeout) : null;
    } catch (PreconditionFailedException e) {
      failure =
          "it exists already (an earlier run's object: give the hook the delete policy"
              + " before-hook-creation, or delete it)";
    } catch (ReleaseException | ClusterException e) {
      failure = e.getMessage();
    }
    return new HookOutcome(
        phase,
        hook.ref(),
        failure == null ? HookOutcome.Status.SUCCEEDED : HookOutcome.Status.FAILED,
        failure,
        started,
        clock.instant());
  }

  /**
   * Why the Job or Pod did not complete, or {@code null} when it did: awaited with {@link
   * ReleaseEvent.HookWaiting} first and {@link ReleaseEvent.StillWaiting} while it runs; a time-out
   * says what it was last seen doing, when the orchestrator can tell, and what to do about it.
   */
  private @Nullable String completion(HookPhase phase, Hook hook, Duration timeout) {
    events.accept(new ReleaseEvent.HookWaiting(release, phase, hook.ref(), timeout));
    Readiness done =
        orchestrator.awaitCompletion(
            hook.ref(), timeout, p -> events.accept(new ReleaseEvent.StillWaiting(release, p)));
    if (done.isReady()) {
      return null;
    }
    if (done instanceof Readiness.TimedOut t) {
      String seen = t.reasons().get(hook.ref());
      return "not complete within its timeout of "
          + dev.capstan.common.Durations.format(timeout)
          + (seen == null ? "" : ": " + seen)
          + "; "
          + advice.timedOut(phase, hook.timeout() != null);
    }
    return done instanceof Readiness.Failed f ? f.reason() : done.describe();
  }

  /**
   * Deletes the hook's object if it exists and is a hook object of this release, on that
   * observation, and waits until it is gone; one that is not (an object of someone else's by that
   * name) is never deleted. An object carrying any release's ownership stamp is a release's own,
   * whatever its annotations say (a release's manifest may carry a copied mark), and is never a
   * hook's object.
   *
   * @throws ReleaseException when it exists and is not this release's hook, or is not gone in time
   */
  private void deleteOurs(Hook hook, Duration timeout) {
    ResourceRef ref = hook.ref();
    Optional<LiveObject> live =
        orchestrator.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).stream()
            .filter(o -> o.ref().equals(ref))
            .findFirst();
    if (live.isEmpty()) {
      return;
    }
    OwnershipStamp stamp = live.get().stamp();
    if (stamp != null) {
      throw new ReleaseException(
          ref.key()
              + " carries the ownership stamp of release "
              + stamp.owner()
              + ": a hook never deletes a release's object; not deleted: rename the hook");
    }
    if (!Hook.markedBy(live.get().annotations(), identity)) {
      throw new ReleaseException(
          ref.key()
              + " exists and is not a hook object of release "
              + release
              + " (no annotation "
              + Hook.HOOK_OF
              + ": "
              + release
              + " with "
              + Hook.HOOK_OF_ID
              + ": "
              + identity.id()
              + "); not deleted: rename the hook, or delete that object yourself");
    }
    checkLease.run();
    orchestrator.delete(ref, identity, Precondition.of(live));
    Readiness gone = orchestrator.awaitDeleted(List.of(ref), timeout);
    if (!gone.isReady()) {
      throw new ReleaseException(
          ref.key()
              + " was deleted but is not gone within "
              + dev.capstan.common.Durations.format(timeout)
              + " (a finalizer holds it)");
    }
  }

  private Duration timeout(Hook hook) {
    Duration own = hook.timeout();
    return own == null ? defaultTimeout : own;
  }
}
