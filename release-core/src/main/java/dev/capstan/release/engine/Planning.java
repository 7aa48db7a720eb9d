package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.ObservedNames;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What planning a release takes, for a plan alone and for a cast: the record read, the checks that
 * a release may be cast and the observation of what the spec and the record name, before the plan's
 * stages ({@link PlanStages}).
 */
final class Planning {
  private final EngineContext context;

  Planning(EngineContext context) {
    this.context = context;
  }

  /**
   * The plan for {@code spec}, from the record read now (and once more: {@link #planOverRecord}).
   */
  Plan planOnly(ReleaseSpec spec, @Nullable Payloads payloads) {
    spec = CastRequest.withHome(spec, context.store);
    Look looked =
        planOverRecord(
            spec,
            payloads,
            context.store.latestRecord(spec.namespace(), spec.name()),
            SecretHashKey.generate(),
            null,
            false,
            true);
    Plan plan = reviewable(looked.planned(), looked.record());
    context.emit(new ReleaseEvent.Planned(spec.qualifiedName(), plan));
    return plan;
  }

  /**
   * The plan over the record {@code read} ({@link #planOver}), new Secret hashes keyed with {@code
   * key} for a release that has none yet. The home namespace is known present as the {@code lease}
   * just taken says ({@link LeaseGrant#namespaceExists}), or, with none given, when the record
   * proves it ({@link #homeProven}). With {@code lookAgain} (a look without the lease), a plan with
   * conflicts is made once more over the record read again if it moved since {@code read}: another
   * cast of this release may have recorded and written between the two reads (its objects are then
   * this release's, and a cast sees its held lease rather than objects of an unknown install).
   */
  Look planOverRecord(
      ReleaseSpec spec,
      @Nullable Payloads payloads,
      Optional<StoredRelease> read,
      SecretHashKey key,
      @Nullable LeaseGrant lease,
      boolean rollback,
      boolean lookAgain) {
    Optional<StoredRelease> over = read;
    boolean again = lookAgain;
    while (true) {
      Release latest = over.map(StoredRelease::release).orElse(null);
      Planned planned =
          planOver(
              spec,
              payloads,
              latest,
              key,
              lease == null ? homeProven(latest) : lease.namespaceExists(),
              rollback);
      if (again && !planned.plan().applyable()) {
        again = false;
        Optional<StoredRelease> now = context.store.latestRecord(spec.namespace(), spec.name());
        if (!StoredRelease.sameVersion(over, now)) {
          over = now;
          continue;
        }
      }
      return Look.of(planned, over, key);
    }
  }

  /** The plan for {@code spec} with field-level diffs ({@link PlanDiffs}). */
  Plan planWithDiffOnly(ReleaseSpec spec, Payloads payloads) {
    spec = CastRequest.withHome(spec, context.store);
    PayloadValidator.validate(spec, payloads, context.ports.orchestrator());
    Optional<StoredRelease> stored = context.store.latestRecord(spec.namespace(), spec.name());
    Planned planned =
        planOverRecord(spec, payloads, stored, SecretHashKey.generate(), null, false, false)
            .planned();
    Plan plan =
        PlanDiffs.attach(
            reviewable(planned, stored),
            planned.live(),
            planned.effective().objects,
            context.ports.orchestrator());
    context.emit(new ReleaseEvent.Planned(spec.qualifiedName(), plan));
    return plan;
  }

  /**
   * The plan-over-a-record recipe, the one place it is written: checks that {@code spec} may be
   * cast over the record {@code latest} ({@link #castableOver}), observes what the two name ({@code
   * homeExists}: see {@link #observe(ReleaseSpec, Release, EffectiveRelease, boolean)}) and plans
   * ({@link PlanStages#planned}), with the hooks of a {@code rollback} or of an install or upgrade.
   * A new release's Secret hashes are keyed with {@code fresh}.
   */
  Planned planOver(
      ReleaseSpec spec,
      @Nullable Payloads payloads,
      @Nullable Release latest,
      SecretHashKey fresh,
      boolean homeExists,
      boolean rollback) {
    EffectiveRelease effective = castableOver(spec, payloads, latest, fresh);
    LiveState live = observe(spec, latest, effective, homeExists);
    return PlanStages.planned(context, latest, effective, live, rollback);
  }

  /**
   * The recipe's first steps: refuses a cast of {@code spec} over {@code latest} that may not be
   * cast ({@link #checkCastable}), and gives its effective release, keyed with the record's
   * Secret-hash key, or with {@code fresh} for a release that has none yet.
   */
  static EffectiveRelease castableOver(
      ReleaseSpec spec,
      @Nullable Payloads payloads,
      @Nullable Release latest,
      SecretHashKey fresh) {
    checkCastable(spec, latest);
    return EffectiveRelease.of(spec, payloads, EffectiveRelease.keyOf(latest, fresh), latest);
  }

  /**
   * The plan with what casting it needs: the version of the record {@code stored} it was computed
   * from and the key its Secret hashes were keyed with (kept in the process, never in a plan file).
   */
  private static Plan reviewable(Planned planned, Optional<StoredRelease> stored) {
    Plan plan = planned.plan();
    return plan.withFingerprint(
        requireNonNull(plan.fingerprint())
            .withRecordVersion(stored.map(StoredRelease::version).orElse(null))
            .withSecretHashKey(planned.effective().key));
  }

  static void checkCastable(ReleaseSpec spec, @Nullable Release latest) {
    if (latest != null && latest.status() == ReleaseStatus.UNINSTALLING) {
      throw new ReleaseException(
          "release "
              + spec.qualifiedName()
              + " is being uninstalled (revision "
              + latest.revision()
              + "); run uninstall again to finish it before casting");
    }
    checkNotEmpty(spec, latest);
  }

  /**
   * Refuses a spec that holds no object to own over a release that owns some, unless {@link
   * ReleaseOptions#dangerousAllowEmpty()}: an empty or truncated input would otherwise prune the
   * whole release.
   */
  static void checkNotEmpty(ReleaseSpec spec, @Nullable Release latest) {
    if (!spec.resources().isEmpty()
        || spec.options().dangerousAllowEmpty()
        || latest == null
        || latest.owns().isEmpty()) {
      return;
    }
    List<String> owned = latest.owns().stream().map(o -> o.ref().key()).toList();
    throw new InvalidReleaseException(
        spec.qualifiedName(),
        List.of(
            "resources: the release holds no object to own, but revision "
                + latest.revision()
                + " owns "
                + owned.size()
                + " ("
                + String.join(", ", owned.subList(0, Math.min(3, owned.size())))
                + (owned.size() > 3 ? ", …" : "")
                + "), which this cast would delete; check that the input is complete (a release"
                + " file without spec, a truncated file or an empty directory gives no object)."
                + " To delete them all, uninstall the release, or pass dangerousAllowEmpty (the"
                + " CLI's --dangerous-allow-empty)"));
  }

  /**
   * Whether the release's home namespace is known to exist because its record {@code latest} was
   * read from it: the store keeps records in the release's namespace ({@link
   * Store#recordsInNamespace()}), so there is one.
   */
  boolean homeProven(@Nullable Release latest) {
    return latest != null && context.store.recordsInNamespace();
  }

  /**
   * Observes what {@code spec} and {@code latest} name, telling drift by what {@code effective}
   * would apply; with {@code homeExists} (the lease just taken lives in the release's namespace) a
   * home namespace that the release only references is known present and not listed again.
   */
  LiveState observe(
      ReleaseSpec spec, @Nullable Release latest, EffectiveRelease effective, boolean homeExists) {
    Reads reads = reads(spec, latest, homeExists);
    return context.ports.observe(reads.names(), reads.known(), effective.applied, latest);
  }

  /**
   * What observing {@code spec} over {@code latest} reads ({@link #observe(ReleaseSpec, Release,
   * EffectiveRelease, boolean)}).
   *
   * @param names the names to read, by scope (kind and namespace)
   * @param known objects known present without a read: the home namespace when {@code homeExists}
   */
  record Reads(Map<LiveState.Scope, Set<String>> names, List<LiveObject> known) {}

  /** What {@link #observe(ReleaseSpec, Release, EffectiveRelease, boolean)} reads. */
  static Reads reads(ReleaseSpec spec, @Nullable Release latest, boolean homeExists) {
    Map<LiveState.Scope, Set<String>> names = ObservedNames.of(spec, latest);
    List<LiveObject> known = new ArrayList<>();
    ResourceRef home = ResourceRef.namespace(spec.namespace());
    LiveState.Scope scope = new LiveState.Scope(Kind.NAMESPACE, "");
    if (homeExists
        && names.containsKey(scope)
        && spec.references().contains(home)
        && spec.ensured(spec.namespace()).isEmpty()
        && spec.resources().stream().noneMatch(d -> d.ref().equals(home))
        && (latest == null || latest.owns().stream().noneMatch(o -> o.ref().equals(home)))) {
      names.computeIfPresent(
          scope,
          (s, namespaces) -> {
            Set<String> rest = new TreeSet<>(namespaces);
            rest.remove(spec.namespace());
            return rest;
          });
      known.add(LiveObject.present(home));
    }
    return new Reads(names, known);
  }
}
