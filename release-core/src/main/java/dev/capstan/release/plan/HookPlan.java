package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The hooks an operation over a recorded revision will run, as its record lists them, for review
 * before it runs: an uninstall's {@code pre-delete} and {@code post-delete} hooks, {@code release
 * test}'s {@code test} hooks. A hook's object is written with the rights of whoever runs the
 * operation, and a record is as trusted as whoever may write the release's records (on Kubernetes,
 * Secrets in its namespace), so a hook outside the release's namespace (cluster-scoped, or in
 * another namespace) runs only when the caller names it ({@link #refusal}); ARCHITECTURE.md,
 * "Hooks".
 *
 * @param release the recorded revision the hooks are read from
 * @param hooks the hooks the operation runs, in run order
 */
public record HookPlan(Release release, List<PlannedHook> hooks) {
  /** Requires both; copies the hooks. */
  public HookPlan {
    requireNonNull(release, "release");
    hooks = List.copyOf(hooks);
  }

  /**
   * The hooks an uninstall of {@code latest} runs: its {@code pre-delete} then {@code post-delete}
   * hooks; none when it is uninstalled already.
   */
  public static HookPlan uninstall(Release latest) {
    return latest.status() == ReleaseStatus.UNINSTALLED
        ? new HookPlan(latest, List.of())
        : of(latest, HookPhase.PRE_DELETE, HookPhase.POST_DELETE);
  }

  /** The hooks {@code release test} of {@code latest} runs: its {@code test} hooks. */
  public static HookPlan test(Release latest) {
    return of(latest, HookPhase.TEST);
  }

  private static HookPlan of(Release latest, HookPhase... phases) {
    List<PlannedHook> out = new ArrayList<>();
    for (HookPhase phase : phases) {
      latest.payloads().hooks(phase).forEach(h -> out.add(PlannedHook.of(phase, h)));
    }
    return new HookPlan(latest, out);
  }

  /** The hooks whose objects are not in the release's namespace: cluster-scoped, or elsewhere. */
  public List<PlannedHook> outside() {
    return hooks.stream().filter(h -> h.outside(release.namespace()) != null).toList();
  }

  /**
   * The hooks as a plan shows them, or {@code ""} when there are none: a heading naming {@code
   * operation} and the revision, then a line each, {@code ⚓ pre-delete
   * rbac.authorization.k8s.io/ClusterRoleBinding//grant (weight 0; delete before-hook-creation) ⚠
   * cluster-scoped}, the warning on each outside the release's namespace; values escaped.
   */
  public String text(String operation) {
    if (hooks.isEmpty()) {
      return "";
    }
    StringBuilder out =
        new StringBuilder("Hooks the ")
            .append(operation)
            .append(" runs, from revision ")
            .append(release.revision())
            .append("'s record, written with your rights:\n");
    for (PlannedHook h : hooks) {
      out.append("  ⚓ ").append(Escapes.escape(h.describe()));
      String outside = h.outside(release.namespace());
      if (outside != null) {
        out.append("  ⚠ ").append(Escapes.escape(outside));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * Why the operation may not run these hooks, or empty when it may: each hook {@link #outside()}
   * the release's namespace must be among {@code allowed}.
   *
   * @param operation the operation, for the message: {@code uninstall}, {@code test}
   * @param allowed the hooks' objects the caller allows outside the namespace
   */
  public Optional<String> refusal(String operation, Collection<ResourceRef> allowed) {
    Set<ResourceRef> named = Set.copyOf(allowed);
    List<String> refused = new ArrayList<>();
    for (PlannedHook h : outside()) {
      if (!named.contains(h.ref())) {
        refused.add(
            h.phase() + " hook " + h.ref().key() + " (" + h.outside(release.namespace()) + ")");
      }
    }
    if (refused.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        operation
            + " of "
            + release.qualifiedName()
            + " refused: revision "
            + release.revision()
            + "'s record lists "
            + String.join(", ", refused)
            + ", outside the release's namespace "
            + release.namespace()
            + "; a record is as trusted as whoever may write the release's records, and a"
            + " hook is written with your rights: check it, then name it to run it"
            + " (--allow-hook KEY; withAllowedHooks)");
  }
}
