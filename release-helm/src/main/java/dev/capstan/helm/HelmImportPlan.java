package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Precondition;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What an import will do, decided before anything is written: the Helm history, the Capstan release
 * that adopts the deployed revision's objects, what the manifest names but the cluster lacks, and
 * the objects Helm's hooks created.
 *
 * @param revisions the Helm revisions, oldest first
 * @param deployed the revision whose objects are adopted (the latest, deployed)
 * @param history the Capstan history entries the Helm revisions become, oldest first (already
 *     recorded by an interrupted import when {@code historyRecorded})
 * @param historyRecorded whether an earlier, interrupted import recorded the history already
 * @param spec the release to cast (adopting)
 * @param payloads the deployed revision's objects
 * @param plan the cast's plan, as planned now
 * @param hooks the objects the deployed revision's hooks name, with whether they exist
 */
public record HelmImportPlan(
    List<HelmRevision> revisions,
    HelmRevision deployed,
    List<Release> history,
    boolean historyRecorded,
    ReleaseSpec spec,
    Payloads payloads,
    Plan plan,
    List<HookObject> hooks) {

  /** Copies the lists. */
  public HelmImportPlan {
    revisions = List.copyOf(revisions);
    requireNonNull(deployed, "deployed");
    history = List.copyOf(history);
    requireNonNull(spec, "spec");
    requireNonNull(payloads, "payloads");
    requireNonNull(plan, "plan");
    hooks = List.copyOf(hooks);
  }

  /**
   * An object a Helm hook names: Helm creates it around installs and upgrades but does not track it
   * as part of the release, so the import never owns it. It marks it as this release's hook object
   * ({@link dev.capstan.release.model.Hook#HOOK_OF}, so that a later cast's {@code
   * before-hook-creation} may replace it) only when it is this Helm release's hook as it stands;
   * any other object at that name is left as it is, and a later cast's hook of that name fails
   * rather than touch it.
   *
   * @param ref the object
   * @param events the hook's events, e.g. {@code post-install}
   * @param present whether it exists now
   * @param leftAsIs why the object present is not marked and is left as it is ({@code not marked as
   *     a hook of NS/NAME: it is not this Helm release's hook (no helm.sh/hook annotation)}), or
   *     {@code null} when it is absent or marked
   * @param observed the look a mark is conditioned on: {@link Precondition#of} of the object as
   *     observed (its uid and resourceVersion), so that an object replaced since is not written
   */
  public record HookObject(
      ResourceRef ref,
      List<String> events,
      boolean present,
      @Nullable String leftAsIs,
      Precondition observed) {
    /** Copies the events; only an object present is left as it is. */
    public HookObject {
      requireNonNull(ref, "ref");
      events = List.copyOf(events);
      requireNonNull(observed, "observed");
      if (leftAsIs != null && !present) {
        throw new IllegalArgumentException(
            "an absent hook object is not left as it is: " + ref.key() + ": " + leftAsIs);
      }
    }

    /** Whether the import marks it: present, and this Helm release's hook. */
    public boolean marked() {
      return present && leftAsIs == null;
    }

    /**
     * A copy left as it is.
     *
     * @param why why it is not marked
     * @return the copy
     */
    public HookObject leftAsIs(String why) {
      return new HookObject(ref, events, present, requireNonNull(why, "why"), observed);
    }
  }

  /**
   * A copy whose cast waits up to {@code timeout} for the adopted objects to be healthy.
   *
   * @param timeout the wait
   * @return the copy
   */
  public HelmImportPlan withTimeout(java.time.Duration timeout) {
    return new HelmImportPlan(
        revisions,
        deployed,
        history,
        historyRecorded,
        spec.withOptions(spec.options().withTimeout(timeout)),
        payloads,
        plan,
        hooks);
  }

  /** The Capstan revision the cast will record: one after the last imported Helm revision. */
  public int castRevision() {
    return deployed.revision() + 1;
  }

  /** The objects the cast adopts. */
  public List<ResourceRef> adopted() {
    return refs(Action.ADOPT);
  }

  /** The objects the manifest names but the cluster lacks: the cast creates them. */
  public List<ResourceRef> missing() {
    return refs(Action.CREATE);
  }

  /** Whether the cast can go ahead: no object belongs to another release. */
  public boolean applyable() {
    return plan.applyable();
  }

  private List<ResourceRef> refs(Action action) {
    return plan.changes(action).stream().map(PlannedChange::ref).toList();
  }

  /**
   * The plan as text for a terminal: names, kinds and reasons only, never an object's content, so
   * Secret values never show.
   */
  public String render() {
    String release = spec.namespace() + "/" + spec.name();
    StringBuilder sb = new StringBuilder();
    sb.append("Helm release ")
        .append(release)
        .append(": ")
        .append(revisions.size())
        .append(revisions.size() == 1 ? " revision" : " revisions")
        .append(", revision ")
        .append(deployed.revision())
        .append(" deployed (chart ")
        .append(deployed.chart())
        .append(deployed.appVersion() == null ? "" : ", app " + deployed.appVersion())
        .append(", ")
        .append(deployed.record().driver().kind())
        .append(" driver)\n");
    sb.append("history: Helm revisions ")
        .append(
            revisions.stream()
                .map(r -> Integer.toString(r.revision()))
                .collect(Collectors.joining(", ")))
        .append(historyRecorded ? " already recorded" : " become Capstan revisions")
        .append(" (imported)\n");
    sb.append("cast: Capstan revision ").append(castRevision()).append(", stamps only\n");
    String from = "from Helm release " + spec.name() + " revision " + deployed.revision();
    for (PlannedChange c : plan.changes()) {
      switch (c.action()) {
        case ADOPT -> line(sb, "↪ adopt", c.ref(), from);
        case CREATE ->
            line(sb, "+ create", c.ref(), "in the Helm manifest, missing in the cluster");
        case REFERENCE -> line(sb, "= reference", c.ref(), c.reason());
        case CONFLICT -> line(sb, "✗ conflict", c.ref(), c.reason());
        default ->
            line(sb, c.action().name().toLowerCase(java.util.Locale.ROOT), c.ref(), c.reason());
      }
    }
    if (!hooks.isEmpty()) {
      sb.append(
          "hook objects (Helm does not track them; the present ones marked as this release's"
              + " hooks, not owned, unless they are not its Helm hooks):\n");
      for (HookObject h : hooks) {
        String events = String.join(", ", h.events());
        if (h.leftAsIs() != null) {
          line(sb, "· untouched", h.ref(), events + "; " + h.leftAsIs());
        } else {
          line(sb, h.present() ? "· present" : "· absent", h.ref(), events);
        }
      }
    }
    long untouched = hooks.stream().filter(h -> h.leftAsIs() != null).count();
    sb.append("summary: ")
        .append(adopted().size())
        .append(" to adopt, ")
        .append(missing().size())
        .append(" missing, ")
        .append(hooks.size())
        .append(hooks.size() == 1 ? " hook object" : " hook objects");
    if (untouched > 0) {
      sb.append(" (")
          .append(untouched)
          .append(untouched == 1 ? " left as it is)" : " left as they are)");
    }
    if (!plan.conflicts().isEmpty()) {
      sb.append(", ")
          .append(plan.conflicts().size())
          .append(" in conflict (nothing can be imported)");
    }
    return sb.append('\n').toString();
  }

  private static void line(StringBuilder sb, String what, ResourceRef ref, @Nullable String why) {
    sb.append("  ").append(String.format(java.util.Locale.ROOT, "%-12s", what)).append(ref.key());
    if (why != null && !why.isEmpty()) {
      sb.append("  (").append(why).append(')');
    }
    sb.append('\n');
  }

  /** Names the release and revision only. */
  @Override
  public String toString() {
    return "HelmImportPlan["
        + spec.qualifiedName()
        + " from Helm revision "
        + deployed.revision()
        + "]";
  }
}
