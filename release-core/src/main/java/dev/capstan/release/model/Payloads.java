package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The rendered objects of one release, keyed by {@link ResourceRef}, in apply order. Immutable;
 * build one with {@link #builder()}. Each spec's content hash is computed once, when first asked
 * for.
 */
public final class Payloads {
  private static final Payloads EMPTY = new Payloads(List.of());

  private final Map<ResourceRef, ResourceSpec> specs;

  /** Computed on first use: decoding a record must not hash every payload it carries. */
  private volatile @Nullable Map<ResourceRef, String> hashes;

  private Payloads(Collection<? extends ResourceSpec> specs) {
    TreeMap<ResourceRef, ResourceSpec> byRef = new TreeMap<>(ResourceRef.APPLY_ORDER);
    for (ResourceSpec spec : specs) {
      requireNonNull(spec, "payload");
      if (byRef.put(spec.ref(), spec) != null) {
        throw new IllegalArgumentException(
            "payloads must have unique refs: duplicate " + Escapes.quote(spec.ref().key()));
      }
    }
    this.specs = Collections.unmodifiableMap(new LinkedHashMap<>(byRef));
  }

  /** No payloads. */
  public static Payloads empty() {
    return EMPTY;
  }

  /** Payloads holding {@code specs}; refs must be unique. */
  public static Payloads of(Collection<? extends ResourceSpec> specs) {
    return specs.isEmpty() ? EMPTY : new Payloads(specs);
  }

  /** Payloads holding {@code specs}; refs must be unique. */
  public static Payloads of(ResourceSpec... specs) {
    return of(List.of(specs));
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The specs in apply order. */
  public List<ResourceSpec> specs() {
    return List.copyOf(specs.values());
  }

  /** The refs in apply order. */
  public List<ResourceRef> refs() {
    return List.copyOf(specs.keySet());
  }

  /** The spec of {@code ref}, if present. */
  public Optional<ResourceSpec> get(ResourceRef ref) {
    return Optional.ofNullable(specs.get(ref));
  }

  /** The content hash of {@code ref}'s spec, if present. */
  public Optional<String> hash(ResourceRef ref) {
    return Optional.ofNullable(hashes().get(ref));
  }

  /** Content hashes by ref, in apply order (computed once, on first use). */
  public Map<ResourceRef, String> hashes() {
    Map<ResourceRef, String> h = hashes;
    if (h == null) {
      Map<ResourceRef, String> computed = new LinkedHashMap<>();
      specs.forEach((ref, spec) -> computed.put(ref, ContentHash.of(spec)));
      h = Collections.unmodifiableMap(computed);
      hashes = h;
    }
    return h;
  }

  /** The number of objects. */
  public int size() {
    return specs.size();
  }

  /** A copy with {@code spec} added or replacing the spec with the same ref. */
  public Payloads with(ResourceSpec spec) {
    Map<ResourceRef, ResourceSpec> copy = new LinkedHashMap<>(specs);
    copy.put(spec.ref(), spec);
    return new Payloads(copy.values());
  }

  /** A copy without {@code ref}. */
  public Payloads without(ResourceRef ref) {
    Map<ResourceRef, ResourceSpec> copy = new LinkedHashMap<>(specs);
    copy.remove(ref);
    return new Payloads(copy.values());
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Payloads other && specs.equals(other.specs);
  }

  @Override
  public int hashCode() {
    return specs.hashCode();
  }

  /** Lists the refs; secret values never print. */
  @Override
  public String toString() {
    return "Payloads" + specs.keySet();
  }

  /** Collects specs for {@link Payloads}; not thread-safe. */
  public static final class Builder {
    private final List<ResourceSpec> specs = new ArrayList<>();

    private Builder() {}

    /** Adds a service. */
    public Builder service(ServiceSpec spec) {
      return add(spec);
    }

    /** Adds a secret. */
    public Builder secret(SecretSpec spec) {
      return add(spec);
    }

    /** Adds a configmap. */
    public Builder configMap(ConfigMapSpec spec) {
      return add(spec);
    }

    /** Adds a volume. */
    public Builder volume(VolumeSpec spec) {
      return add(spec);
    }

    /** Adds any spec. */
    public Builder add(ResourceSpec spec) {
      specs.add(requireNonNull(spec, "spec"));
      return this;
    }

    /**
     * Builds the payloads.
     *
     * @throws IllegalArgumentException naming the key of a duplicate ref
     */
    public Payloads build() {
      return Payloads.of(specs);
    }
  }
}
