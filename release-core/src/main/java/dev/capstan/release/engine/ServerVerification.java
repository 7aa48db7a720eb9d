package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Escapes;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.IgnoredField;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The verification stage of a plan (ARCHITECTURE.md, "Verified plans"): after planning and the CRD
 * gate, before the first write, every object the plan creates, updates, repairs or adopts is sent
 * to the cluster as a dry run of the very write the cast will make ({@link
 * Orchestrator#verifyApply}), in plan order, up to the cast's write parallelism at once (they write
 * nothing, so their order does not matter to the cluster; at parallelism 1, one after the other),
 * their verdicts read in plan order. After a dry run that fails, no further one starts and the ones
 * sent finish; the first failure in plan order is what the verification reports, as if they had
 * been sent one at a time. An object the cluster refuses becomes a {@link Action#CONFLICT} whose
 * reason is the cluster's message: the plan is not applyable, a cast of it is refused before any
 * write, and the plan shows why. An object whose dry run fails its precondition moved since the
 * observation (another release created it, someone changed it): it becomes a conflict saying what
 * its fenced write would say ({@code was created by release shop/b since the plan; not taken}), and
 * the rest of the plan goes unverified.
 *
 * <p>A dry run the release's identity may not send (HTTP 403 from the authorizer) ends the
 * verification with a warning: the rest of the plan goes unverified, and the identity's rights are
 * judged as before verification existed (the controller's access review, or the write).
 *
 * <p>Not verified, since the dry run cannot judge them until an earlier write of the same cast has
 * happened: an object in a namespace the plan creates, an object of a kind a CRD of the plan
 * defines, a replacement (its create follows its delete), a namespace itself. Each is reported by a
 * {@link ReleaseEvent.Warning} naming it and what it waits for; the write itself judges it.
 */
final class ServerVerification {
  /** The id the stamp of a release never recorded carries in a dry run (nothing is persisted). */
  static final String UNRECORDED_ID = "unrecorded";

  private ServerVerification() {}

  /**
   * {@code plan} verified by the cluster ({@link #verify}) when the release asks for it ({@code
   * verifyOnServer}) and the plan is otherwise applyable (a plan refused already is not sent); else
   * {@code plan} itself. A {@code reviewed} plan's cast verifies it again over what it observed
   * under the lease, and does not repeat the warnings for the objects left to their writes: they
   * were reported with the plan, and depend on the plan alone.
   */
  static Plan verifyIfAsked(
      Plan plan,
      LiveState live,
      EffectiveRelease effective,
      Orchestrator orchestrator,
      Consumer<ReleaseEvent> events,
      int parallelism,
      boolean reviewed) {
    return effective.spec.options().verifyOnServer() && plan.applyable()
        ? verify(plan, live, effective.objects, orchestrator, events, parallelism, !reviewed)
        : plan;
  }

  /**
   * The plan with every object the cluster refuses as a conflict, or {@code plan} itself when
   * nothing was refused.
   *
   * @param plan the plan, gated
   * @param live what the plan observed: the preconditions of the writes
   * @param objects the objects the cast writes
   * @param orchestrator the cluster, as the release's identity
   * @param events hears a warning per object left to its write, when {@code warnWaits}
   * @param parallelism how many dry runs to send at once (the cast's write parallelism)
   * @param warnWaits whether to warn of the objects left to their writes
   */
  static Plan verify(
      Plan plan,
      LiveState live,
      Payloads objects,
      Orchestrator orchestrator,
      Consumer<ReleaseEvent> events,
      int parallelism,
      boolean warnWaits) {
    String release = plan.namespace() + "/" + plan.name();
    ReleaseIdentity identity =
        new ReleaseIdentity(
            plan.namespace(),
            plan.name(),
            plan.releaseId() == null ? UNRECORDED_ID : plan.releaseId());
    Set<String> newNamespaces = new HashSet<>();
    Set<String> newKinds = new HashSet<>();
    for (PlannedChange c : plan.changes()) {
      if (c.ref().kind().equals(Kind.NAMESPACE)
          && (c.createReference() || c.action() == Action.CREATE)) {
        newNamespaces.add(c.ref().name());
      }
      if (c.ref().kind().isCrd() && c.action().writes()) {
        objects
            .get(c.ref())
            .ifPresent(
                crd -> {
                  if (crd.get("spec.group") instanceof String g
                      && crd.get("spec.names.kind") instanceof String k) {
                    newKinds.add(g + "/" + k);
                  }
                });
      }
    }
    // what each change needs: nothing, a warning (its dry run waits for a write), or a dry run
    List<PlannedChange> all = plan.changes();
    @Nullable String[] waits = new String[all.size()];
    int[] sentAt = new int[all.size()];
    List<Supplier<Optional<String>>> dryRuns = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      PlannedChange c = all.get(i);
      String hash = c.desiredHash();
      Optional<Manifest> object = objects.get(c.ref());
      sentAt[i] = -1;
      if (!c.action().writes()
          || hash == null
          || object.isEmpty()
          || c.ref().kind().equals(Kind.NAMESPACE)) {
        continue;
      }
      waits[i] = waitsFor(c, newNamespaces, newKinds);
      if (waits[i] == null) {
        Manifest written = asWritten(c, object.get());
        OwnershipStamp stamp = OwnershipStamp.of(identity, plan.revision(), hash);
        Precondition precondition = Precondition.of(live.get(c.ref()));
        sentAt[i] = dryRuns.size();
        dryRuns.add(() -> orchestrator.verifyApply(written, stamp, precondition));
      }
    }
    List<@Nullable Object> verdicts = CallsAtOnce.run(dryRuns, parallelism);
    // the verdicts read in plan order, as one dry run after the other would give them
    List<PlannedChange> changes = new ArrayList<>(all.size());
    boolean refused = false;
    for (int i = 0; i < all.size(); i++) {
      PlannedChange c = all.get(i);
      int at = sentAt[i];
      if (waits[i] != null && warnWaits) {
        events.accept(
            new ReleaseEvent.Warning(
                release, c.ref().key() + ": not verified before the cast, " + waits[i]));
      }
      if (at < 0) {
        changes.add(c);
        continue;
      }
      Object verdict = verdicts.get(at);
      if (verdict instanceof PreconditionFailedException e) {
        // the object moved since the observation (another release created it, someone changed
        // it): its write would be fenced, so the plan says now what the fence would say; as after
        // any dry run that threw, the rest of the plan goes unverified
        refused = true;
        changes.add(c.refused(Fencing.happened(orchestrator, c.ref(), c.action(), e)));
        changes.addAll(all.subList(i + 1, all.size()));
        break;
      }
      if (verdict instanceof ClusterException e) {
        if (e.status() != 403) {
          throw e;
        }
        // the identity may not send it: its rights are judged where they are anyway (the
        // controller's access review, the write itself); the rest of the plan goes unverified
        events.accept(
            new ReleaseEvent.Warning(
                release,
                "plan not verified on the server from "
                    + c.ref().key()
                    + " on: "
                    + Escapes.escape(String.valueOf(e.getMessage()))));
        changes.addAll(all.subList(i, all.size()));
        break;
      }
      if (verdict instanceof RuntimeException e) {
        throw e;
      }
      if (verdict instanceof Error e) {
        throw e;
      }
      Optional<?> refusal = (Optional<?>) requireNonNull(verdict, "verdict");
      if (refusal.isPresent()) {
        refused = true;
        changes.add(c.refused(REFUSED + Escapes.escape(String.valueOf(refusal.get()))));
      } else {
        changes.add(c);
      }
    }
    return refused ? plan.withChanges(changes) : plan;
  }

  /** How a refusal's reason begins; the cluster's message follows. */
  static final String REFUSED = "refused by the API server's dry run: ";

  /** Why the dry run of {@code c} must wait for an earlier write, or {@code null}. */
  private static @Nullable String waitsFor(
      PlannedChange c, Set<String> newNamespaces, Set<String> newKinds) {
    ResourceRef ref = c.ref();
    if (c.action() == Action.REPLACE) {
      return "a replacement is created only once the object it replaces is gone";
    }
    if (!ref.namespace().isEmpty() && newNamespaces.contains(ref.namespace())) {
      return "its namespace " + ref.namespace() + " is created by this cast";
    }
    if (newKinds.contains(ref.kind().group() + "/" + ref.kind().kind())) {
      return "its kind is defined by a CustomResourceDefinition this cast writes";
    }
    return null;
  }

  /**
   * The object as the cast writes it for {@code c}: without the fields drift ignore rules leave to
   * other writers, except on a create (which writes them all).
   */
  static Manifest asWritten(PlannedChange c, Manifest object) {
    if (c.action() == Action.CREATE || c.ignored().isEmpty()) {
      return object;
    }
    return object.withContent(
        DriftIgnore.withoutPointers(
            object.content(), c.ignored().stream().map(IgnoredField::pointer).toList()));
  }
}
