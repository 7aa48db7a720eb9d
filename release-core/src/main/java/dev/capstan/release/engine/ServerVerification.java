package dev.capstan.release.engine;

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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The verification stage of a plan (ARCHITECTURE.md, "Verified plans"): after planning and the CRD
 * gate, before the first write, every object the plan creates, updates, repairs or adopts is sent
 * to the cluster as a dry run of the very write the cast will make ({@link
 * Orchestrator#verifyApply}), in plan order, one object at a time. An object the cluster refuses
 * becomes a {@link Action#CONFLICT} whose reason is the cluster's message: the plan is not
 * applyable, a cast of it is refused before any write, and the plan shows why.
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
   * {@code plan} itself.
   */
  static Plan verifyIfAsked(
      Plan plan,
      LiveState live,
      EffectiveRelease effective,
      Orchestrator orchestrator,
      Consumer<ReleaseEvent> events) {
    return effective.spec.options().verifyOnServer() && plan.applyable()
        ? verify(plan, live, effective.objects, orchestrator, events)
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
   * @param events hears a warning per object left to its write
   */
  static Plan verify(
      Plan plan,
      LiveState live,
      Payloads objects,
      Orchestrator orchestrator,
      Consumer<ReleaseEvent> events) {
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
    List<PlannedChange> changes = new ArrayList<>(plan.changes().size());
    boolean refused = false;
    for (PlannedChange c : plan.changes()) {
      String hash = c.desiredHash();
      Optional<Manifest> object = objects.get(c.ref());
      if (!c.action().writes()
          || hash == null
          || object.isEmpty()
          || c.ref().kind().equals(Kind.NAMESPACE)) {
        changes.add(c);
        continue;
      }
      String waits = waitsFor(c, newNamespaces, newKinds);
      if (waits != null) {
        events.accept(
            new ReleaseEvent.Warning(
                release, c.ref().key() + ": not verified before the cast, " + waits));
        changes.add(c);
        continue;
      }
      Optional<String> refusal;
      try {
        refusal =
            orchestrator.verifyApply(
                asWritten(c, object.get()),
                OwnershipStamp.of(identity, plan.revision(), hash),
                Precondition.of(live.get(c.ref())));
      } catch (ClusterException e) {
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
        changes.addAll(plan.changes().subList(changes.size(), plan.changes().size()));
        break;
      }
      if (refusal.isPresent()) {
        refused = true;
        changes.add(c.refused(REFUSED + Escapes.escape(refusal.get())));
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
        DriftIgnore.without(
            object.content(), c.ignored().stream().map(IgnoredField::pointer).toList()));
  }
}
