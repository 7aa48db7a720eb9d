package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A snapshot of live objects, observed in batches of one kind and namespace. It tells "absent"
 * (observed, not there) apart from "not observed" (a programming error: the planner refuses it).
 */
public final class LiveState {
  private final Map<ResourceRef, LiveObject> objects;
  private final Set<Scope> observed;

  private LiveState(Map<ResourceRef, LiveObject> objects, Set<Scope> observed) {
    // A HashMap, not Map.copyOf: the immutable map probes linearly on raw hash codes, which
    // cluster for refs with sequential names and made lookups in large states superlinear.
    this.objects = java.util.Collections.unmodifiableMap(new HashMap<>(objects));
    this.observed = Set.copyOf(observed);
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The live object at {@code ref}, or empty when it was observed absent.
   *
   * @throws IllegalStateException when the ref's kind and namespace were not observed
   */
  public Optional<LiveObject> get(ResourceRef ref) {
    if (!observed.contains(new Scope(ref.kind(), ref.namespace()))) {
      throw new IllegalStateException(
          "live state has no observation of "
              + ref.kind()
              + " in namespace '"
              + ref.namespace()
              + "' (needed for "
              + ref.key()
              + ")");
    }
    return Optional.ofNullable(objects.get(ref));
  }

  /** Every observed object. */
  public Collection<LiveObject> objects() {
    return objects.values();
  }

  /** One observed batch: a kind in a namespace ({@code ""} for cluster-scoped kinds). */
  public record Scope(Kind kind, String namespace) {
    /** Requires both parts. */
    public Scope {
      requireNonNull(kind, "kind");
      requireNonNull(namespace, "namespace");
    }
  }

  /** Collects observed batches; not thread-safe. */
  public static final class Builder {
    private final Map<ResourceRef, LiveObject> objects = new HashMap<>();
    private final Set<Scope> observed = new HashSet<>();

    private Builder() {}

    /** Records that {@code kind} in {@code namespace} was observed, finding {@code found}. */
    public Builder observed(Kind kind, String namespace, Collection<LiveObject> found) {
      Scope scope = new Scope(kind, namespace);
      observed.add(scope);
      for (LiveObject o : found) {
        if (!new Scope(o.ref().kind(), o.ref().namespace()).equals(scope)) {
          throw new IllegalArgumentException(
              "observed "
                  + o.ref().key()
                  + " in a batch of "
                  + kind
                  + " in "
                  + Escapes.quote(namespace));
        }
        objects.put(o.ref(), o);
      }
      return this;
    }

    /** Builds the snapshot. */
    public LiveState build() {
      return new LiveState(objects, observed);
    }
  }
}
