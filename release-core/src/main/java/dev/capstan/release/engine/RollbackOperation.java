package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.Waves;
import dev.capstan.release.model.WithheldSecret;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Rollbacks and their plans: rebuilds the spec and payloads of a recorded revision (the Secrets it
 * withheld taken from the caller, checked), then casts or plans them as a new revision described
 * {@code rollback to <revision>}.
 */
public final class RollbackOperation {
  private static final String ROLLBACK_TO = "rollback to ";

  private final EngineContext context;
  private final HistoryReads reads;
  private final CastOperation casts;
  private final Planning planning;

  public RollbackOperation(EngineContext context, HistoryReads reads, CastOperation casts) {
    this.context = context;
    this.reads = reads;
    this.casts = casts;
    this.planning = new Planning(context);
  }

  /** Casts revision {@code revision} forward as one {@code ROLLBACK} operation. */
  public CastResult rollback(
      String namespace, String name, int revision, ReleaseOptions options, Payloads secrets) {
    requireNonNull(options, "options");
    return context.operation(
        Operation.ROLLBACK,
        namespace + "/" + name,
        () -> rollbackOnly(namespace, name, revision, options, secrets));
  }

  private CastResult rollbackOnly(
      String namespace, String name, int revision, ReleaseOptions options, Payloads secrets) {
    Release target = reads.recorded(namespace, name, revision);
    Payloads payloads = rollbackPayloads(target, secrets);
    ReleaseSpec spec = rollbackSpec(target, options);
    List<DesiredResource> resources = new ArrayList<>();
    for (DesiredResource d : spec.resources()) {
      resources.add(
          new DesiredResource(
              d.ref(),
              payloads.hash(d.ref()).orElse(d.contentHash()),
              payloads.get(d.ref()).map(Waves::of).orElse(d.wave())));
    }
    return casts.castWithin(spec.withResources(resources), payloads, rollbackDescription(revision));
  }

  /**
   * The plan of a rollback to {@code revision}, with field-level diffs if {@code withDiff}, as one
   * {@code PLAN} operation; persists nothing.
   */
  public Plan planRollback(
      String namespace, String name, int revision, ReleaseOptions options, boolean withDiff) {
    requireNonNull(options, "options");
    return context.operation(
        Operation.PLAN,
        namespace + "/" + name,
        () -> {
          Release target = reads.recorded(namespace, name, revision);
          ReleaseSpec spec = rollbackSpec(target, options);
          Plan plan =
              withDiff
                  ? planning.planWithDiffOnly(spec, target.payloads())
                  : planning.planOnly(spec, target.payloads());
          return plan.withFingerprint(
                  requireNonNull(plan.fingerprint()).withDescription(rollbackDescription(revision)))
              .withHooks(HookStage.planned(target.payloads(), null, true));
        });
  }

  private static String rollbackDescription(int revision) {
    return ROLLBACK_TO + revision;
  }

  /**
   * The revision a cast described {@code description} rolls back to ({@code rollback to N}), or
   * {@code null} when it is no rollback.
   */
  static @Nullable String rolledBackTo(@Nullable String description) {
    return description != null && description.startsWith(ROLLBACK_TO)
        ? description.substring(ROLLBACK_TO.length())
        : null;
  }

  /** The target's payloads with the withheld Secrets from {@code secrets}, checked. */
  private Payloads rollbackPayloads(Release target, Payloads secrets) {
    List<String> problems = new ArrayList<>();
    String at = "revision " + target.revision() + " of " + target.qualifiedName();
    // the latest revision's key, read (and its record decoded) only for a revision that withheld
    @Nullable SecretHashKey key =
        target.withheldSecrets().isEmpty()
            ? null
            : reads
                .get(target.namespace(), target.name())
                .map(Release::secretHashKey)
                .orElse(target.secretHashKey());
    Payloads payloads = target.payloads();
    Set<ResourceRef> withheld = new TreeSet<>();
    for (WithheldSecret w : target.withheldSecrets()) {
      withheld.add(w.ref());
      Optional<Manifest> given = secrets.get(w.ref());
      if (given.isEmpty()) {
        problems.add(
            "payloads["
                + w.ref().key()
                + "]: "
                + at
                + " was recorded without this Secret's values (recordSecretValues off); give it"
                + " again to roll back");
      } else if (key == null || !key.verifies(given.get(), w.contentHash())) {
        problems.add(
            "payloads["
                + w.ref().key()
                + "]: the values given do not hash as "
                + at
                + " recorded them (keyed content hash differs); give the values that revision"
                + " had");
      } else {
        payloads = payloads.with(secrets.item(w.ref()).orElseThrow());
      }
    }
    for (ResourceRef ref : secrets.refs()) {
      if (!withheld.contains(ref)) {
        problems.add(
            "payloads["
                + ref.key()
                + "]: "
                + at
                + " recorded this object; give only the Secrets whose values it did not record");
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(target.qualifiedName(), problems);
    }
    return payloads;
  }

  /** Revision {@code target}'s objects and references, as the spec of a new revision. */
  private static ReleaseSpec rollbackSpec(Release target, ReleaseOptions options) {
    ReleaseSpec objects = ReleaseSpec.of(target.namespace(), target.name(), target.payloads());
    List<DesiredResource> resources = new ArrayList<>(objects.resources());
    for (WithheldSecret w : target.withheldSecrets()) {
      resources.add(new DesiredResource(w.ref(), w.contentHash()));
    }
    return new ReleaseSpec(
        target.namespace(),
        target.name(),
        resources,
        target.references(),
        objects.ensured(),
        options.withRecordSecretValues(
            options.recordSecretValues() && target.withheldSecrets().isEmpty()),
        target.source(),
        target.version(),
        target.chart());
  }
}
