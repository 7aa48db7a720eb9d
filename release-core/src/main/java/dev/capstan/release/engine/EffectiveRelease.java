package dev.capstan.release.engine;

import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.WithheldSecret;
import dev.capstan.release.plan.IgnoredField;
import dev.capstan.release.rollout.ConfigRollout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a cast plans and writes, derived from the caller's spec and payloads and the release's key:
 * Secrets' content hashes keyed per release ({@link SecretHashKey}), and the workloads that read
 * config annotated by {@link ConfigRollout} and hashed again. The planner, the stamps and the owned
 * hashes in records see only these hashes; the record keeps the caller's payloads.
 */
public final class EffectiveRelease {
  /** Why an unchanged Secret of a record without a key is updated once. */
  public static final String REKEYED =
      "values unchanged; its content hash is now keyed per release (written once)";

  public final ReleaseSpec spec;
  final SecretHashKey key;

  /** The objects to write: the payloads with config readers annotated. */
  public final Payloads objects;

  /** Why a config reader is updated, by ref: the inputs whose hash moved since the record. */
  final Map<ResourceRef, String> reasons;

  /**
   * The objects as the cast would apply them, by ref, as far as they are known (without payloads:
   * those the record holds at the desired content): what drift is told by.
   */
  final Map<ResourceRef, Manifest> applied;

  /**
   * The fields that rules of paths ({@link ReleaseOptions#driftIgnore()}) leave to others, by
   * object: present in the object, left out of {@link #applied} and of its content hash.
   */
  final Map<ResourceRef, List<IgnoredField>> ignored;

  private EffectiveRelease(
      ReleaseSpec spec,
      SecretHashKey key,
      Payloads objects,
      Map<ResourceRef, String> reasons,
      Map<ResourceRef, Manifest> applied,
      Map<ResourceRef, List<IgnoredField>> ignored) {
    this.spec = spec;
    this.key = key;
    this.objects = objects;
    this.reasons = reasons;
    this.applied = applied;
    this.ignored = ignored;
  }

  /**
   * The effective release.
   *
   * @param spec the caller's spec (plain hashes, or hashes already keyed for withheld Secrets)
   * @param payloads the caller's payloads, possibly without withheld Secrets, or {@code null} when
   *     only the spec is known (then the objects the latest record holds at the same content stand
   *     in for them)
   * @param key the release's key
   * @param latest the latest record, for the reasons, or {@code null}
   */
  public static EffectiveRelease of(
      ReleaseSpec spec, @Nullable Payloads payloads, SecretHashKey key, @Nullable Release latest) {
    Map<ResourceRef, String> hashes = new LinkedHashMap<>();
    Map<ResourceRef, String> reasons = new LinkedHashMap<>();
    for (DesiredResource d : spec.resources()) {
      if (!d.ref().kind().equals(Kind.SECRET)) {
        hashes.put(d.ref(), d.contentHash());
        continue;
      }
      hashes.put(d.ref(), key.keyed(d.contentHash()));
      if (latest != null && latest.ownedHash(d.ref()).equals(Optional.of(d.contentHash()))) {
        // recorded by a Capstan that did not key Secret hashes: same values, new stamp
        reasons.put(d.ref(), REKEYED);
      }
    }
    ConfigRollout.Result rollout =
        ConfigRollout.apply(
            payloads != null ? payloads.objects() : recordedObjects(spec, latest), hashes);
    Payloads objects = payloads == null ? Payloads.empty() : payloads;
    if (payloads != null && !rollout.inputs().isEmpty()) {
      List<dev.capstan.release.model.ResourceSpec> items =
          new ArrayList<>(rollout.objects().values());
      payloads.hooks().forEach(h -> items.add(h.object())); // hooks as given: no config rollout
      objects = Payloads.of(items);
    }
    rollout
        .inputs()
        .forEach(
            (workload, inputs) -> {
              if (hashes.containsKey(workload)) {
                hashes.put(
                    workload,
                    ContentHash.of(Objects.requireNonNull(rollout.objects().get(workload))));
              }
              List<String> changed = new ArrayList<>();
              for (ResourceRef input : inputs) {
                if (latest != null
                    && !latest.ownedHash(input).equals(Optional.ofNullable(hashes.get(input)))) {
                  changed.add(input.key());
                }
              }
              if (!changed.isEmpty()) {
                reasons.put(workload, "config changed: " + String.join(", ", changed));
              }
            });
    Map<ResourceRef, Manifest> applied = new HashMap<>(rollout.objects());
    Map<ResourceRef, List<IgnoredField>> ignored = new HashMap<>();
    if (!spec.options().driftIgnore().isEmpty()) {
      for (DesiredResource d : spec.resources()) {
        Manifest object = applied.get(d.ref());
        if (object == null) {
          continue;
        }
        List<IgnoredField> fields = ignoredPaths(object, spec.options());
        if (!fields.isEmpty()) {
          Manifest kept =
              object.withContent(
                  DriftIgnore.withoutPointers(
                      object.content(), fields.stream().map(IgnoredField::pointer).toList()));
          applied.put(d.ref(), kept);
          ignored.put(d.ref(), List.copyOf(fields));
          String plain = ContentHash.of(kept);
          hashes.put(d.ref(), d.ref().kind().equals(Kind.SECRET) ? key.keyed(plain) : plain);
        }
      }
    }
    List<DesiredResource> resources = new ArrayList<>();
    for (DesiredResource d : spec.resources()) {
      resources.add(
          new DesiredResource(d.ref(), Objects.requireNonNull(hashes.get(d.ref())), d.wave()));
    }
    return new EffectiveRelease(
        spec.withResources(resources),
        key,
        objects,
        reasons,
        Map.copyOf(applied),
        Map.copyOf(ignored));
  }

  /** The fields of {@code object} at the pointers of the rules of paths that apply to it. */
  private static List<IgnoredField> ignoredPaths(Manifest object, ReleaseOptions options) {
    List<IgnoredField> out = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (DriftIgnore rule : options.driftIgnoreFor(object.ref())) {
      for (String pointer : rule.paths()) {
        if (DriftIgnore.at(object.content(), pointer) != null && seen.add(pointer)) {
          out.add(new IgnoredField(pointer, pointer, rule.describe(), null));
        }
      }
    }
    return out;
  }

  /**
   * Without payloads, the objects known all the same: those the latest record holds at the very
   * content the spec wants (same plain hash).
   */
  private static List<Manifest> recordedObjects(ReleaseSpec spec, @Nullable Release latest) {
    List<Manifest> known = new ArrayList<>();
    if (latest != null) {
      for (DesiredResource d : spec.resources()) {
        if (latest.payloads().hash(d.ref()).equals(Optional.of(d.contentHash()))) {
          known.add(latest.payloads().get(d.ref()).orElseThrow());
        }
      }
    }
    return known;
  }

  /** The release's key: the record's, else {@code fresh} (a first cast, or an older record). */
  static SecretHashKey keyOf(@Nullable Release latest, SecretHashKey fresh) {
    SecretHashKey recorded = latest == null ? null : latest.secretHashKey();
    return recorded != null ? recorded : fresh;
  }

  /** The keyed hash of every Secret among {@code payloads}, as withheld from a record. */
  List<WithheldSecret> withheld(Payloads payloads) {
    List<WithheldSecret> out = new ArrayList<>();
    for (Manifest object : payloads.objects()) {
      if (object.kind().equals(Kind.SECRET)) {
        out.add(WithheldSecret.of(object, key.hash(object)));
      }
    }
    return out;
  }
}
