package dev.capstan.release.engine;

import dev.capstan.common.Escapes;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.StoredRelease;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The checks of {@code ReleaseController.cast(Plan, Payloads)}: that a reviewed plan agrees with
 * its own fingerprint, that the payloads are the ones it was computed from, and what moved since it
 * was computed.
 */
final class ReviewedPlans {
  private ReviewedPlans() {}

  /** Refuses a plan whose changes do not agree with its fingerprint (edited, or made by hand). */
  static void checkConsistent(Plan plan, ReleaseSpec spec) {
    List<String> problems = new ArrayList<>();
    if (!plan.namespace().equals(spec.namespace()) || !plan.name().equals(spec.name())) {
      problems.add(
          "plan: names release "
              + Escapes.quote(plan.namespace() + "/" + plan.name())
              + " but its fingerprint "
              + Escapes.quote(spec.qualifiedName()));
    }
    Map<ResourceRef, DesiredResource> desired = new HashMap<>();
    spec.resources().forEach(d -> desired.put(d.ref(), d));
    int applies = 0;
    for (PlannedChange c : plan.changes()) {
      if (c.desiredHash() == null) {
        continue;
      }
      applies++;
      DesiredResource d = desired.get(c.ref());
      if (d == null || !d.contentHash().equals(c.desiredHash()) || d.wave() != c.wave()) {
        problems.add(
            "plan.changes["
                + c.ref().key()
                + "]: does not match the desired resource the plan was computed from");
      }
    }
    if (applies != desired.size()) {
      problems.add(
          "plan.changes: "
              + applies
              + " change(s) of desired objects, but the plan was computed from "
              + desired.size());
    }
    Integer previous = plan.previousRevision();
    Integer recorded =
        plan.fingerprint() == null
            ? null
            : Objects.requireNonNull(plan.fingerprint()).recordRevision();
    if (!Objects.equals(previous, recorded)
        || plan.revision() != (previous == null ? 1 : previous + 1)) {
      problems.add(
          "plan.revision: "
              + plan.revision()
              + " (from "
              + previous
              + ") does not follow the record it was computed from (revision "
              + recorded
              + ")");
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(spec.qualifiedName(), problems);
    }
  }

  /**
   * The caller's spec of a reviewed plan: the planned objects, references and options with the
   * content hashes of {@code payloads} (the planned spec holds the effective, keyed ones). Adds to
   * {@code problems} each payload missing for a planned object or given for an object the plan does
   * not have.
   */
  static ReleaseSpec callerSpec(ReleaseSpec planned, Payloads payloads, List<String> problems) {
    Map<ResourceRef, String> hashes = payloads.hashes();
    List<DesiredResource> resources = new ArrayList<>();
    for (DesiredResource d : planned.resources()) {
      String hash = hashes.get(d.ref());
      if (hash == null) {
        problems.add("payloads[" + d.ref().key() + "]: planned, but no payload was given for it");
      } else {
        resources.add(new DesiredResource(d.ref(), hash, d.wave()));
      }
    }
    for (ResourceRef ref : payloads.refs()) {
      if (ref.kind().equals(Kind.NAMESPACE) && planned.ensured(ref.name()).isPresent()) {
        continue; // an ensured namespace: the validator checks it is the planned one
      }
      if (planned.resources().stream().noneMatch(d -> d.ref().equals(ref))) {
        problems.add("payloads[" + ref.key() + "]: not in the plan");
      }
    }
    return planned.withResources(resources);
  }

  /**
   * Refuses payloads that are not the ones the plan was computed from: the effective hashes of the
   * given payloads ({@code effective}) must be the planned ones; throws with {@code problems} and
   * each object that differs.
   */
  static void checkHashes(ReleaseSpec planned, ReleaseSpec effective, List<String> problems) {
    Map<ResourceRef, String> now = new HashMap<>();
    effective.resources().forEach(d -> now.put(d.ref(), d.contentHash()));
    for (DesiredResource d : planned.resources()) {
      String hash = now.get(d.ref());
      if (hash != null && !d.contentHash().equals(hash)) {
        problems.add(
            "payloads["
                + d.ref().key()
                + "]: differs from the content the plan was computed from; give the same"
                + " payloads as at plan time, or plan again");
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(planned.qualifiedName(), problems);
    }
  }

  /** How the record differs from the one the plan was computed from, or empty. */
  static Optional<String> recordMoved(PlanFingerprint planned, Optional<StoredRelease> now) {
    Integer revision = planned.recordRevision();
    if (now.isEmpty()) {
      return revision == null
          ? Optional.empty()
          : Optional.of("the record of revision " + revision + " is gone");
    }
    int nowRevision = now.get().release().revision();
    if (revision == null) {
      return Optional.of("the release was recorded (revision " + nowRevision + ") since the plan");
    }
    if (revision != nowRevision) {
      return Optional.of("the record moved from revision " + revision + " to " + nowRevision);
    }
    String version = planned.recordVersion();
    if (version != null && !version.equals(now.get().version())) {
      return Optional.of(
          "the record of revision "
              + revision
              + " changed since the plan (version "
              + Escapes.escape(version)
              + " → "
              + Escapes.escape(now.get().version())
              + ", now "
              + now.get().release().status().id()
              + ")");
    }
    return Optional.empty();
  }

  /**
   * Every object the plan owns or references, which a reviewed plan's cast observes again: what it
   * writes or deletes, what it leaves unchanged (an object deleted since would be recorded as owned
   * while missing), and its references (a namespace or storage class gone since). The release's
   * home namespace is left out when {@code homeProven} (the lease, which lives in it, proves it).
   */
  static List<ResourceRef> looked(Plan plan, boolean homeProven) {
    ResourceRef home = ResourceRef.namespace(plan.namespace());
    return plan.changes().stream()
        .map(PlannedChange::ref)
        .filter(ref -> !(homeProven && ref.equals(home)))
        .distinct()
        .toList();
  }

  /**
   * How each of {@code refs} differs in {@code live} from the plan's observation: an object the
   * plan writes, deletes or leaves unchanged by its uid, resourceVersion and presence; a reference
   * (shared, and written by others: other releases label an ensured namespace) by its presence.
   */
  static List<String> objectsMoved(
      PlanFingerprint planned, Plan plan, List<ResourceRef> refs, LiveState live) {
    Map<ResourceRef, PlanFingerprint.Observed> before = new HashMap<>();
    planned.observed().forEach(o -> before.put(o.ref(), o));
    java.util.Set<ResourceRef> references = new java.util.HashSet<>();
    plan.changes().stream()
        .filter(c -> c.action() == Action.REFERENCE)
        .forEach(c -> references.add(c.ref()));
    List<String> moved = new ArrayList<>();
    for (ResourceRef ref : refs) {
      PlanFingerprint.Observed now = PlanFingerprint.Observed.of(ref, live.get(ref));
      PlanFingerprint.Observed then = before.get(ref);
      if (then == null) {
        moved.add(ref.key() + " was not observed by the plan");
        continue;
      }
      if (references.contains(ref)) {
        then = new PlanFingerprint.Observed(ref, then.present(), null, null);
        now = new PlanFingerprint.Observed(ref, now.present(), null, null);
      }
      String key = ref.key();
      then.change(now).ifPresent(change -> moved.add(key + " " + change));
    }
    return moved;
  }
}
