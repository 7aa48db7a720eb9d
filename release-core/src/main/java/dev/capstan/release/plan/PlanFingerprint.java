package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Plan} was computed from, so that a reviewed plan can be cast exactly or refused:
 * the spec (the desired objects with their content hashes and waves, the references, the options),
 * the release record the planner read (its revision and the store's version of it), and every
 * object the planner looked at as it was observed (absent, or present with its uid and
 * resourceVersion). It holds no content and no secret value: the payloads are given again at cast,
 * and must hash to the spec's content hashes.
 *
 * @param spec the spec the plan was computed for
 * @param recordRevision the revision of the latest record read, or {@code null} when there was none
 * @param recordVersion the store's version of that record (compare-and-set token), or {@code null}
 *     when there was none, or when it is not known (a plan made by {@link Planner} alone)
 * @param observed every object the planner looked at, in the order {@link ObservedNames#of} groups
 *     them
 * @param description what the cast of this plan records as its description (e.g. {@code rollback to
 *     3}), or {@code null}
 * @param secretHashKey the release's Secret-hash key the spec's Secret hashes were keyed with (the
 *     record's, or a new one for a first cast), so that casting this plan in the same process keys
 *     them alike without reading the record again; {@code null} in a plan read from a file: never
 *     written to one ({@code PlanCodec} leaves it out), and {@code toString} hides its bytes.
 */
public record PlanFingerprint(
    ReleaseSpec spec,
    @Nullable Integer recordRevision,
    @Nullable String recordVersion,
    List<Observed> observed,
    @Nullable String description,
    @Nullable SecretHashKey secretHashKey) {

  /** Requires the spec; copies the observations. */
  public PlanFingerprint {
    requireNonNull(spec, "spec");
    observed = List.copyOf(observed);
  }

  /** A fingerprint without a Secret-hash key of its own. */
  public PlanFingerprint(
      ReleaseSpec spec,
      @Nullable Integer recordRevision,
      @Nullable String recordVersion,
      List<Observed> observed,
      @Nullable String description) {
    this(spec, recordRevision, recordVersion, observed, description, null);
  }

  /** A copy with the key the spec's Secret hashes were keyed with (see the record's javadoc). */
  public PlanFingerprint withSecretHashKey(@Nullable SecretHashKey secretHashKey) {
    return new PlanFingerprint(
        spec, recordRevision, recordVersion, observed, description, secretHashKey);
  }

  /** The observation of {@code ref}, if the planner looked at it. */
  public Optional<Observed> observed(ResourceRef ref) {
    return observed.stream().filter(o -> o.ref().equals(ref)).findFirst();
  }

  /** A copy with the store's version of the record read. */
  public PlanFingerprint withRecordVersion(@Nullable String recordVersion) {
    return new PlanFingerprint(
        spec, recordRevision, recordVersion, observed, description, secretHashKey);
  }

  /** A copy with the description the cast records. */
  public PlanFingerprint withDescription(@Nullable String description) {
    return new PlanFingerprint(
        spec, recordRevision, recordVersion, observed, description, secretHashKey);
  }

  /** A copy with another spec (same objects and references; other options). */
  PlanFingerprint withSpec(ReleaseSpec spec) {
    return new PlanFingerprint(
        spec, recordRevision, recordVersion, observed, description, secretHashKey);
  }

  /**
   * One object as the planner saw it.
   *
   * @param ref the object
   * @param present whether it existed
   * @param uid its uid when present and reported by the adapter, else {@code null}
   * @param resourceVersion its resourceVersion when present and reported, else {@code null}
   */
  public record Observed(
      ResourceRef ref, boolean present, @Nullable String uid, @Nullable String resourceVersion) {
    /** Requires the ref; an absent object has no uid or version. */
    public Observed {
      requireNonNull(ref, "ref");
      if (!present && (uid != null || resourceVersion != null)) {
        throw new IllegalArgumentException(
            "an absent object has no uid or resourceVersion: " + ref.key());
      }
    }

    /** The observation of {@code ref} in {@code live}. */
    public static Observed of(ResourceRef ref, Optional<LiveObject> live) {
      return live.map(o -> new Observed(ref, true, o.uid(), o.resourceVersion()))
          .orElseGet(() -> new Observed(ref, false, null, null));
    }

    /**
     * How {@code now} differs from this observation, in words, or empty when it does not: {@code
     * "was deleted since the plan"}, {@code "was created since the plan"}, {@code "was re-created
     * since the plan (uid a → b)"}, {@code "changed since the plan (resourceVersion 812 → 815)"}.
     */
    public Optional<String> change(Observed now) {
      if (present && !now.present) {
        return Optional.of("was deleted since the plan");
      }
      if (!present && now.present) {
        return Optional.of("was created since the plan");
      }
      if (!present) {
        return Optional.empty();
      }
      if (uid != null && now.uid != null && !uid.equals(now.uid)) {
        return Optional.of(
            "was re-created since the plan (uid "
                + Escapes.escape(uid)
                + " → "
                + Escapes.escape(now.uid)
                + ")");
      }
      if (resourceVersion != null
          && now.resourceVersion != null
          && !resourceVersion.equals(now.resourceVersion)) {
        return Optional.of(
            "changed since the plan (resourceVersion "
                + Escapes.escape(resourceVersion)
                + " → "
                + Escapes.escape(now.resourceVersion)
                + ")");
      }
      return Optional.empty();
    }
  }
}
