package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ReleaseOptions;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A computed plan: every change a cast would make, in execution order (references and applies in
 * apply order, then prunes and retains in reverse order). Plans are values; computing one changes
 * nothing.
 *
 * @param namespace the release's home namespace
 * @param name the release name
 * @param releaseId the release's id, or {@code null} when it has never been recorded
 * @param revision the revision a cast of this plan would record
 * @param previousRevision the latest recorded revision, or {@code null} on first install
 * @param changes the changes in execution order
 * @param fingerprint what the plan was computed from, for casting exactly this plan ({@code
 *     ReleaseController.cast(Plan, Payloads)}); {@code null} for a plan made by hand, which cannot
 *     be cast
 * @param hooks the hooks a cast of the plan runs, in run order (pre-hooks, then post-hooks); set by
 *     the engine from the payloads, never by the planner
 */
public record Plan(
    String namespace,
    String name,
    @Nullable String releaseId,
    int revision,
    @Nullable Integer previousRevision,
    List<PlannedChange> changes,
    @Nullable PlanFingerprint fingerprint,
    List<PlannedHook> hooks) {

  /** Copies the changes and hooks. */
  public Plan {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    changes = List.copyOf(changes);
    hooks = List.copyOf(hooks);
  }

  /** A plan that runs no hook. */
  public Plan(
      String namespace,
      String name,
      @Nullable String releaseId,
      int revision,
      @Nullable Integer previousRevision,
      List<PlannedChange> changes,
      @Nullable PlanFingerprint fingerprint) {
    this(namespace, name, releaseId, revision, previousRevision, changes, fingerprint, List.of());
  }

  /** A plan without a fingerprint: it can be shown, not cast. */
  public Plan(
      String namespace,
      String name,
      @Nullable String releaseId,
      int revision,
      @Nullable Integer previousRevision,
      List<PlannedChange> changes) {
    this(namespace, name, releaseId, revision, previousRevision, changes, null);
  }

  /** A copy with other changes (a gate's or a diff's), the same fingerprint. */
  public Plan withChanges(List<PlannedChange> changes) {
    return new Plan(
        namespace, name, releaseId, revision, previousRevision, changes, fingerprint, hooks);
  }

  /** A copy with another fingerprint. */
  public Plan withFingerprint(@Nullable PlanFingerprint fingerprint) {
    return new Plan(
        namespace, name, releaseId, revision, previousRevision, changes, fingerprint, hooks);
  }

  /** A copy listing the hooks a cast of it runs. */
  public Plan withHooks(List<PlannedHook> hooks) {
    return new Plan(
        namespace, name, releaseId, revision, previousRevision, changes, fingerprint, hooks);
  }

  /**
   * A copy cast with other options. Only {@code atomic}, {@code timeout} and {@code
   * waitForLoadBalancer} may differ: they decide how a failure is handled and how health is waited
   * for, not what the plan does; the other options shaped the plan, so changing them needs a new
   * plan. The plan's delete gate holds, with the approvals given in {@code options} added ({@link
   * dev.capstan.release.model.DeleteGate#atCast}).
   *
   * @throws IllegalStateException if the plan has no fingerprint
   * @throws IllegalArgumentException if an option that shaped the plan differs, naming it
   */
  public Plan withOptions(ReleaseOptions options) {
    requireNonNull(options, "options");
    if (fingerprint == null) {
      throw new IllegalStateException("a plan without a fingerprint has no options");
    }
    ReleaseOptions planned = fingerprint.spec().options();
    requireSame("adopt", planned.adopt(), options.adopt());
    requireSame("createNamespace", planned.createNamespace(), options.createNamespace());
    requireSame("allowCrdDeletion", planned.allowCrdDeletion(), options.allowCrdDeletion());
    requireSame(
        "dangerousAllowEmpty", planned.dangerousAllowEmpty(), options.dangerousAllowEmpty());
    requireSame(
        "allowUnsafeCrdChanges", planned.allowUnsafeCrdChanges(), options.allowUnsafeCrdChanges());
    requireSame("replaceOnImmutable", planned.replaceOnImmutable(), options.replaceOnImmutable());
    if (!planned.driftIgnore().equals(options.driftIgnore())) {
      throw new IllegalArgumentException(
          "driftIgnore shapes the plan and must stay as planned ("
              + planned.driftIgnore().size()
              + " rule(s)); plan again with the rules to cast");
    }
    // the plan's delete gate holds; approvals given at cast add to the ones it carries
    return withFingerprint(
        fingerprint.withSpec(
            fingerprint
                .spec()
                .withOptions(
                    options.withDeleteGate(planned.deleteGate().atCast(options.deleteGate())))));
  }

  private static void requireSame(String option, boolean planned, boolean given) {
    if (planned != given) {
      throw new IllegalArgumentException(
          option
              + " shapes the plan and must stay as planned ("
              + planned
              + "), not "
              + given
              + "; plan again with it");
    }
  }

  /** Whether a cast may proceed: no change is a {@link Action#CONFLICT}. */
  public boolean applyable() {
    return changes.stream().noneMatch(c -> c.action() == Action.CONFLICT);
  }

  /** The changes with {@code action}, in plan order. */
  public List<PlannedChange> changes(Action action) {
    return changes.stream().filter(c -> c.action() == action).toList();
  }

  /** The conflicts. */
  public List<PlannedChange> conflicts() {
    return changes(Action.CONFLICT);
  }

  /** How many changes there are of each action (every action present, zero included). */
  public Map<Action, Integer> counts() {
    Map<Action, Integer> counts = new EnumMap<>(Action.class);
    for (Action a : Action.values()) {
      counts.put(a, 0);
    }
    changes.forEach(c -> counts.merge(c.action(), 1, Integer::sum));
    return counts;
  }

  /** Whether the plan deletes anything. */
  public boolean hasPrune() {
    return changes.stream().anyMatch(c -> c.action() == Action.PRUNE);
  }

  /** Whether the plan takes ownership of existing objects. */
  public boolean hasAdopt() {
    return changes.stream().anyMatch(c -> c.action() == Action.ADOPT);
  }

  /** Whether a person should confirm before it is cast: it prunes, replaces or adopts. */
  public boolean needsConfirmation() {
    return hasPrune() || hasAdopt() || changes.stream().anyMatch(c -> c.action() == Action.REPLACE);
  }

  /** Whether casting the plan would change no object (only the record). */
  public boolean changesNothing() {
    return changes.stream()
        .allMatch(
            c ->
                c.action() == Action.UNCHANGED
                    || (c.action() == Action.REFERENCE && !c.createReference()));
  }

  /**
   * The plan in one line, e.g. {@code Plan[shop/web revision 2: 1 update, 3 unchanged]}; {@link
   * PlanRenderer#text} shows every change.
   */
  @Override
  public String toString() {
    return "Plan["
        + namespace
        + "/"
        + name
        + " revision "
        + revision
        + ": "
        + PlanRenderer.summary(this)
        + "]";
  }
}
