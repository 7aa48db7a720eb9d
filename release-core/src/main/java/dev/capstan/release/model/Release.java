package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One revision of a release, as recorded in the store.
 *
 * @param id the release's stable id, kept across revisions
 * @param namespace the home namespace
 * @param name the release name
 * @param revision the revision number, from 1
 * @param status the state of this revision
 * @param owns the objects this revision owns, with their applied content hashes, in apply order
 * @param references the shared or external objects it relies on
 * @param retained objects this release let go of and kept (volume claims with their data, CRDs);
 *     re-adopted by a later cast that wants them, without {@code adopt} when it is the object
 *     retained ({@code retainedUids})
 * @param source where the release came from, or {@code null}
 * @param version the release's version label, or {@code null}
 * @param description what made this revision, e.g. {@code rollback to 3}, or {@code null}
 * @param payloads the desired objects of this revision, kept for rollback
 * @param failure why the revision failed, or {@code null}
 * @param createdAt when this revision was first saved
 * @param updatedAt when it was last saved
 * @param lease who is working on this revision while it is pending or uninstalling, or {@code null}
 * @param secretHashKey the release's key for the content hashes of its Secrets (the same in every
 *     revision), or {@code null} in a record written before keys existed: the next cast makes one
 * @param withheldSecrets the Secrets whose values this revision did not record (their keys and
 *     keyed hashes only; {@link ReleaseOptions#recordSecretValues()}); {@code payloads} lacks them
 * @param chart the Helm chart its objects were rendered from (name, version, digest, the values
 *     with secret ones masked), or {@code null}: they came from elsewhere, or the record was
 *     written before charts were recorded
 * @param attempt the id of the operation that last wrote this record (a cast, an uninstall, or
 *     whoever recorded one of them interrupted), shared with the intent its lease names, or {@code
 *     null} in a record an earlier Capstan wrote: whoever takes an expired lease over tells by it
 *     whether the holder recorded its outcome (ARCHITECTURE.md, "Leases and retries")
 * @param hooks how the hooks run for this revision ended, in the order they ran (its test hooks'
 *     latest runs too, from {@code release test}); empty in a record an earlier Capstan wrote
 * @param retainedUids the uid of each retained object as observed when it was let go of, sorted by
 *     ref: a later cast re-adopts without {@code adopt} only the object with that uid, and treats
 *     another one at its name as unmanaged. A retained object without one (in a record an earlier
 *     Capstan wrote, or from an adapter that reports no uids) is re-adopted whatever object is
 *     there, as earlier Capstans did, for compatibility
 */
public record Release(
    String id,
    String namespace,
    String name,
    int revision,
    ReleaseStatus status,
    List<OwnedResource> owns,
    List<ResourceRef> references,
    List<ResourceRef> retained,
    @Nullable String source,
    @Nullable String version,
    @Nullable String description,
    Payloads payloads,
    @Nullable String failure,
    Instant createdAt,
    Instant updatedAt,
    @Nullable Lease lease,
    @Nullable SecretHashKey secretHashKey,
    List<WithheldSecret> withheldSecrets,
    @Nullable ChartOrigin chart,
    @Nullable String attempt,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<HookOutcome> hooks,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<RetainedUid> retainedUids) {

  /**
   * Requires every part; keeps {@code owns} in apply order and the ref lists sorted; each retained
   * uid must name a retained object, once.
   */
  public Release {
    Names.requireText(id, "id");
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    requireNonNull(status, "status");
    if (revision < 1) {
      throw new IllegalArgumentException("revision must be at least 1: " + revision);
    }
    owns =
        Copies.list(owns, "owns").stream()
            .sorted((a, b) -> ResourceRef.APPLY_ORDER.compare(a.ref(), b.ref()))
            .toList();
    if (owns.stream().map(OwnedResource::ref).distinct().count() != owns.size()) {
      throw new IllegalArgumentException("owns must have unique refs: " + owns);
    }
    references = List.copyOf(new TreeSet<>(Copies.list(references, "references")));
    retained = List.copyOf(new TreeSet<>(Copies.list(retained, "retained")));
    requireNonNull(payloads, "payloads");
    requireNonNull(createdAt, "createdAt");
    requireNonNull(updatedAt, "updatedAt");
    withheldSecrets =
        Copies.list(withheldSecrets, "withheldSecrets").stream()
            .sorted((a, b) -> ResourceRef.APPLY_ORDER.compare(a.ref(), b.ref()))
            .toList();
    if (attempt != null) {
      Names.requireText(attempt, "attempt");
    }
    // absent from a record an earlier Capstan wrote
    hooks = hooks == null ? List.of() : Copies.list(hooks, "hooks");
    // absent from a record an earlier Capstan wrote
    retainedUids =
        retainedUids == null
            ? List.of()
            : Copies.list(retainedUids, "retainedUids").stream()
                .sorted(Comparator.comparing(RetainedUid::ref))
                .toList();
    Set<ResourceRef> named = new HashSet<>();
    for (RetainedUid u : retainedUids) {
      if (!retained.contains(u.ref())) {
        throw new IllegalArgumentException(
            "retainedUids must name retained objects: " + u.ref().key() + " is not retained");
      }
      if (!named.add(u.ref())) {
        throw new IllegalArgumentException(
            "retainedUids must name each object once: " + u.ref().key() + " is named twice");
      }
    }
  }

  /** A revision whose retained objects, if any, are known by ref alone. */
  public Release(
      String id,
      String namespace,
      String name,
      int revision,
      ReleaseStatus status,
      List<OwnedResource> owns,
      List<ResourceRef> references,
      List<ResourceRef> retained,
      @Nullable String source,
      @Nullable String version,
      @Nullable String description,
      Payloads payloads,
      @Nullable String failure,
      Instant createdAt,
      Instant updatedAt,
      @Nullable Lease lease,
      @Nullable SecretHashKey secretHashKey,
      List<WithheldSecret> withheldSecrets,
      @Nullable ChartOrigin chart,
      @Nullable String attempt,
      List<HookOutcome> hooks) {
    this(
        id,
        namespace,
        name,
        revision,
        status,
        owns,
        references,
        retained,
        source,
        version,
        description,
        payloads,
        failure,
        createdAt,
        updatedAt,
        lease,
        secretHashKey,
        withheldSecrets,
        chart,
        attempt,
        hooks,
        List.of());
  }

  /** A revision whose hooks recorded nothing. */
  public Release(
      String id,
      String namespace,
      String name,
      int revision,
      ReleaseStatus status,
      List<OwnedResource> owns,
      List<ResourceRef> references,
      List<ResourceRef> retained,
      @Nullable String source,
      @Nullable String version,
      @Nullable String description,
      Payloads payloads,
      @Nullable String failure,
      Instant createdAt,
      Instant updatedAt,
      @Nullable Lease lease,
      @Nullable SecretHashKey secretHashKey,
      List<WithheldSecret> withheldSecrets,
      @Nullable ChartOrigin chart,
      @Nullable String attempt) {
    this(
        id,
        namespace,
        name,
        revision,
        status,
        owns,
        references,
        retained,
        source,
        version,
        description,
        payloads,
        failure,
        createdAt,
        updatedAt,
        lease,
        secretHashKey,
        withheldSecrets,
        chart,
        attempt,
        List.of());
  }

  /** A revision rendered from no chart that names no attempt. */
  public Release(
      String id,
      String namespace,
      String name,
      int revision,
      ReleaseStatus status,
      List<OwnedResource> owns,
      List<ResourceRef> references,
      List<ResourceRef> retained,
      @Nullable String source,
      @Nullable String version,
      @Nullable String description,
      Payloads payloads,
      @Nullable String failure,
      Instant createdAt,
      Instant updatedAt,
      @Nullable Lease lease,
      @Nullable SecretHashKey secretHashKey,
      List<WithheldSecret> withheldSecrets) {
    this(
        id,
        namespace,
        name,
        revision,
        status,
        owns,
        references,
        retained,
        source,
        version,
        description,
        payloads,
        failure,
        createdAt,
        updatedAt,
        lease,
        secretHashKey,
        withheldSecrets,
        null,
        null);
  }

  /** A revision without a secret hash key and with every Secret's values recorded. */
  public Release(
      String id,
      String namespace,
      String name,
      int revision,
      ReleaseStatus status,
      List<OwnedResource> owns,
      List<ResourceRef> references,
      List<ResourceRef> retained,
      @Nullable String source,
      @Nullable String version,
      @Nullable String description,
      Payloads payloads,
      @Nullable String failure,
      Instant createdAt,
      Instant updatedAt,
      @Nullable Lease lease) {
    this(
        id,
        namespace,
        name,
        revision,
        status,
        owns,
        references,
        retained,
        source,
        version,
        description,
        payloads,
        failure,
        createdAt,
        updatedAt,
        lease,
        null,
        List.of(),
        null,
        null);
  }

  /** The release's identity: namespace, name and id. */
  public ReleaseIdentity identity() {
    return new ReleaseIdentity(namespace, name, id);
  }

  /** {@code namespace/name}. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }

  /** The recorded content hash of {@code ref}, if this revision owns it. */
  public Optional<String> ownedHash(ResourceRef ref) {
    for (OwnedResource o : owns) {
      if (o.ref().equals(ref)) {
        return Optional.of(o.contentHash());
      }
    }
    return Optional.empty();
  }

  /**
   * Whether letting go of the volume claim {@code ref} keeps its data: the reclaim policy ({@code
   * capstan.dev/reclaim-policy}) this revision's payload gave it, else the live object's, else
   * {@code Retain} (when the policy is unknown, data is kept).
   *
   * @param live the claim as observed, or {@code null}
   */
  public boolean retainsVolume(ResourceRef ref, @Nullable Manifest live) {
    Manifest object = payloads.get(ref).orElse(live);
    if (object == null) {
      return true;
    }
    String policy = object.annotations().get(TypedRendering.RECLAIM_POLICY);
    return !"Delete".equals(policy);
  }

  /**
   * Whether letting go of {@code ref} keeps the object, un-stamped, instead of deleting it: the
   * object carries {@value Manifest#RESOURCE_POLICY}: {@value Manifest#KEEP} as this revision's
   * payload recorded it, or live (a Secret whose values were withheld is recorded without its
   * annotations; an object annotated since, as Helm users do to keep one, counts too). Any owned
   * object, whatever rendered it: a chart, or manifests Helm rendered elsewhere.
   *
   * @param live the object as observed, or {@code null}
   */
  public boolean keepsByResourcePolicy(ResourceRef ref, @Nullable Manifest live) {
    return payloads.get(ref).map(Manifest::keptByResourcePolicy).orElse(false)
        || (live != null && live.keptByResourcePolicy());
  }

  /** A copy in {@code status}, saved at {@code now}. */
  public Release withStatus(ReleaseStatus status, Instant now) {
    return edit(
        d -> {
          d.status = status;
          d.updatedAt = now;
        });
  }

  /** A copy with the given description; everything else, the Secret-hash key included, kept. */
  public Release withDescription(@Nullable String description) {
    return edit(d -> d.description = description);
  }

  /** A copy with the given owned set. */
  public Release withOwns(List<OwnedResource> owns) {
    return edit(d -> d.owns = owns);
  }

  /**
   * The uid of the retained object {@code ref} as it was when this release let go of it; empty when
   * {@code ref} is not retained, or retained without a uid (see {@link #retainedUids()}).
   */
  public Optional<String> retainedUid(ResourceRef ref) {
    for (RetainedUid u : retainedUids) {
      if (u.ref().equals(ref)) {
        return Optional.of(u.uid());
      }
    }
    return Optional.empty();
  }

  /** A copy with the given retained objects, keeping the uids of those retained before. */
  public Release withRetained(List<ResourceRef> retained) {
    Set<ResourceRef> kept = Set.copyOf(retained);
    return withRetained(
        retained, retainedUids.stream().filter(u -> kept.contains(u.ref())).toList());
  }

  /** A copy with the given retained objects and their uids ({@link #retainedUids()}). */
  public Release withRetained(List<ResourceRef> retained, List<RetainedUid> retainedUids) {
    return edit(
        d -> {
          d.retained = retained;
          d.retainedUids = retainedUids;
        });
  }

  /** A copy with the given failure reason. */
  public Release withFailure(@Nullable String failure) {
    return edit(d -> d.failure = failure);
  }

  /** A copy with the given lease. */
  public Release withLease(@Nullable Lease lease) {
    return edit(d -> d.lease = lease);
  }

  /** A copy naming the operation {@code attempt} that writes it. */
  public Release withAttempt(@Nullable String attempt) {
    return edit(d -> d.attempt = attempt);
  }

  /** A copy with these hook outcomes. */
  public Release withHooks(List<HookOutcome> hooks) {
    return edit(d -> d.hooks = hooks);
  }

  /** A copy with the given secret hash key. */
  public Release withSecretHashKey(@Nullable SecretHashKey secretHashKey) {
    return edit(d -> d.secretHashKey = secretHashKey);
  }

  /**
   * A copy whose payloads lack the values of {@code withheld} (the items that render them removed),
   * listed as withheld secrets instead.
   */
  public Release withWithheldSecrets(Payloads payloads, List<WithheldSecret> withheld) {
    return edit(
        d -> {
          d.payloads = payloads;
          d.withheldSecrets = withheld;
        });
  }

  private Release edit(Consumer<Draft> change) {
    Draft d = new Draft(this);
    change.accept(d);
    return new Release(
        id,
        namespace,
        name,
        revision,
        d.status,
        d.owns,
        references,
        d.retained,
        source,
        version,
        d.description,
        d.payloads,
        d.failure,
        createdAt,
        d.updatedAt,
        d.lease,
        d.secretHashKey,
        d.withheldSecrets,
        chart,
        d.attempt,
        d.hooks,
        d.retainedUids);
  }

  /** The fields a wither may change. */
  private static final class Draft {
    ReleaseStatus status;
    List<OwnedResource> owns;
    List<ResourceRef> retained;
    @Nullable String failure;
    Instant updatedAt;
    @Nullable Lease lease;
    @Nullable SecretHashKey secretHashKey;
    Payloads payloads;
    List<WithheldSecret> withheldSecrets;
    @Nullable String description;
    @Nullable String attempt;
    List<HookOutcome> hooks;
    List<RetainedUid> retainedUids;

    Draft(Release r) {
      status = r.status;
      owns = r.owns;
      retained = r.retained;
      failure = r.failure;
      updatedAt = r.updatedAt;
      lease = r.lease;
      secretHashKey = r.secretHashKey;
      payloads = r.payloads;
      withheldSecrets = r.withheldSecrets;
      description = r.description;
      attempt = r.attempt;
      hooks = r.hooks;
      retainedUids = r.retainedUids;
    }
  }

  /**
   * The revision in one line, e.g. {@code Release[shop/web revision 2 deployed]}, with the failure
   * of a failed one: never the payloads (they hold Secrets) nor the objects one by one.
   */
  @Override
  public String toString() {
    return "Release[" + summary() + (failure == null ? "" : ": " + Escapes.escape(failure)) + "]";
  }

  /** The revision in a few words, e.g. {@code shop/web revision 2 deployed}. */
  public String summary() {
    return qualifiedName() + " revision " + revision + " " + status.id();
  }
}
