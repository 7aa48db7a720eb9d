package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The items of one release (manifests and typed specs) and the Kubernetes objects they render to,
 * keyed by {@link ResourceRef} in apply order. Immutable; build one with {@link #builder()}. Each
 * object's content hash is computed once, when first asked for.
 *
 * <p>A {@code Namespace} object is an ensured namespace ({@link EnsuredNamespace}), never owned;
 * other shared kinds are refused: a release only references them. An object whose annotations
 * declare a {@link Hook} is a hook ({@link #hooks()}), not one of the release's {@link #objects()}:
 * never owned, planned or pruned.
 */
public final class Payloads {
  private static final Payloads EMPTY = new Payloads(List.of());

  private final List<ResourceSpec> items;
  private final Map<ResourceRef, Manifest> objects;
  private final Map<ResourceRef, Hook> hooks;

  /** Computed on first use: decoding a record must not hash every payload it carries. */
  private volatile @Nullable Map<ResourceRef, String> hashes;

  private Payloads(Collection<? extends ResourceSpec> items) {
    List<ResourceSpec> list = new ArrayList<>(items.size());
    TreeMap<ResourceRef, Manifest> byRef = new TreeMap<>(ResourceRef.APPLY_ORDER);
    TreeMap<ResourceRef, Hook> hooksByRef = new TreeMap<>(ResourceRef.APPLY_ORDER);
    for (ResourceSpec item : items) {
      requireNonNull(item, "payload");
      list.add(item);
      for (Manifest object : item.render()) {
        Hook hook = Hook.declaredBy(object).orElse(null);
        if (hook != null) {
          if (byRef.containsKey(object.ref()) || hooksByRef.put(object.ref(), hook) != null) {
            throw new IllegalArgumentException(
                "payloads must have unique objects: duplicate "
                    + Escapes.quote(object.ref().key()));
          }
          continue;
        }
        if (hooksByRef.containsKey(object.ref()) || byRef.put(object.ref(), object) != null) {
          throw new IllegalArgumentException(
              "payloads must have unique objects: duplicate " + Escapes.quote(object.ref().key()));
        }
        if (object.kind().equals(Kind.NAMESPACE)) {
          // ensured, not owned: only its name, labels and annotations are applied
          EnsuredNamespace.of(object);
        } else if (object.kind().shared()) {
          throw new IllegalArgumentException(
              "payloads: "
                  + object.ref().key()
                  + " is of a shared kind a release only references, never owns; create it"
                  + " outside the release and list it under references instead of the object");
        }
        Waves.of(object);
      }
    }
    this.items = Collections.unmodifiableList(list);
    this.objects = Collections.unmodifiableMap(new LinkedHashMap<>(byRef));
    this.hooks = Collections.unmodifiableMap(new LinkedHashMap<>(hooksByRef));
  }

  /** No payloads. */
  public static Payloads empty() {
    return EMPTY;
  }

  /** Payloads holding {@code items}; the objects they render to must be unique. */
  public static Payloads of(Collection<? extends ResourceSpec> items) {
    return items.isEmpty() ? EMPTY : new Payloads(items);
  }

  /** Payloads holding {@code items}; the objects they render to must be unique. */
  public static Payloads of(ResourceSpec... items) {
    return of(List.of(items));
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The items as given (typed specs and manifests). */
  public List<ResourceSpec> specs() {
    return items;
  }

  /** The rendered objects in apply order. */
  public List<Manifest> objects() {
    return List.copyOf(objects.values());
  }

  /** The hooks, in apply order of their objects; none of them is among {@link #objects()}. */
  public List<Hook> hooks() {
    return List.copyOf(hooks.values());
  }

  /** The hooks that run in {@code phase}, in run order ({@link Hook#ORDER}). */
  public List<Hook> hooks(HookPhase phase) {
    return hooks.values().stream().filter(h -> h.runsIn(phase)).sorted(Hook.ORDER).toList();
  }

  /** The refs of the rendered objects, in apply order. */
  public List<ResourceRef> refs() {
    return List.copyOf(objects.keySet());
  }

  /** The rendered object at {@code ref}, if present. */
  public Optional<Manifest> get(ResourceRef ref) {
    return Optional.ofNullable(objects.get(ref));
  }

  /** The item that renders {@code ref}, if any. */
  public Optional<ResourceSpec> item(ResourceRef ref) {
    for (ResourceSpec item : items) {
      if (item.ref().equals(ref)) {
        return Optional.of(item);
      }
      for (Manifest m : item.render()) {
        if (m.ref().equals(ref)) {
          return Optional.of(item);
        }
      }
    }
    return Optional.empty();
  }

  /** The content hash of the object at {@code ref}, if present. */
  public Optional<String> hash(ResourceRef ref) {
    return Optional.ofNullable(hashes().get(ref));
  }

  /** Content hashes by ref, in apply order (computed once, on first use). */
  public Map<ResourceRef, String> hashes() {
    Map<ResourceRef, String> h = hashes;
    if (h == null) {
      Map<ResourceRef, String> computed = new LinkedHashMap<>();
      objects.forEach((ref, object) -> computed.put(ref, ContentHash.of(object)));
      h = Collections.unmodifiableMap(computed);
      hashes = h;
    }
    return h;
  }

  /** The number of rendered objects. */
  public int size() {
    return objects.size();
  }

  /** A copy with {@code spec} added, or replacing the item with the same {@link #item ref}. */
  public Payloads with(ResourceSpec spec) {
    List<ResourceSpec> copy = new ArrayList<>();
    boolean replaced = false;
    for (ResourceSpec item : items) {
      if (item.ref().equals(spec.ref())) {
        copy.add(spec);
        replaced = true;
      } else {
        copy.add(item);
      }
    }
    if (!replaced) {
      copy.add(spec);
    }
    return new Payloads(copy);
  }

  /** A copy without the item that renders {@code ref}. */
  public Payloads without(ResourceRef ref) {
    ResourceSpec item = item(ref).orElse(null);
    List<ResourceSpec> copy = new ArrayList<>(items);
    copy.remove(item);
    return new Payloads(copy);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Payloads other
        && objects.equals(other.objects)
        && hooks.equals(other.hooks);
  }

  @Override
  public int hashCode() {
    return objects.hashCode() * 31 + hooks.hashCode();
  }

  /** Lists the refs; secret values never print. */
  @Override
  public String toString() {
    return "Payloads" + objects.keySet() + (hooks.isEmpty() ? "" : " hooks " + hooks.keySet());
  }

  /**
   * Collects items for {@link Payloads}; not thread-safe. Manifests given as trees are resolved at
   * {@link #build()}: a namespaced object without a namespace is put in the {@link #namespace
   * default namespace}; the scope of a custom kind comes from a CustomResourceDefinition among the
   * items, else from the {@link #kinds kinds given} (e.g. from the cluster's discovery), else from
   * whether the object names a namespace.
   */
  public static final class Builder {
    private final List<Object> entries = new ArrayList<>();
    private final Map<String, Kind> kinds = new HashMap<>();
    private @Nullable String namespace;

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

    /** Adds any item. */
    public Builder add(ResourceSpec spec) {
      entries.add(requireNonNull(spec, "spec"));
      return this;
    }

    /**
     * Adds a hook (its object, with the hook in Capstan's annotations: {@link Hook#toManifest}).
     */
    public Builder hook(Hook hook) {
      return add(hook.toManifest());
    }

    /** Adds any object as a tree (deep-copied at {@link #build()}). */
    public Builder manifest(Map<String, ?> object) {
      entries.add(new LinkedHashMap<>(requireNonNull(object, "object")));
      return this;
    }

    /**
     * Adds any object of a Kubernetes client library's model as it is: client-java's {@code
     * V1Deployment}, {@code V1ConfigMap}, any {@code KubernetesObject} (with {@code release-k8s} on
     * the class path), or the model of any library whose {@link ManifestConverter} is there. It is
     * converted to a tree now and resolved at {@link #build()} like a tree given to {@link
     * #manifest(Map)}; a {@link Manifest} or another {@link ResourceSpec} is added as by {@link
     * #add}.
     *
     * @throws IllegalArgumentException if no converter knows the object's type, naming it
     */
    public Builder manifest(Object model) {
      requireNonNull(model, "model");
      if (model instanceof ResourceSpec spec) {
        return add(spec);
      }
      Map<?, ?> tree = ManifestConverters.tree(model);
      for (Object key : tree.keySet()) {
        if (!(key instanceof String)) {
          throw new IllegalArgumentException(
              "payloads: a manifest's keys must be strings: " + Escapes.quote(key));
        }
      }
      entries.add(new LinkedHashMap<>(tree));
      return this;
    }

    /** The namespace of namespaced manifests that name none. */
    public Builder namespace(@Nullable String namespace) {
      this.namespace = namespace;
      return this;
    }

    /** Kinds whose scope is known (e.g. from the cluster), for manifests of custom kinds. */
    public Builder kinds(Collection<Kind> known) {
      known.forEach(k -> kinds.put(k.key(), k));
      return this;
    }

    /**
     * Builds the payloads.
     *
     * @throws IllegalArgumentException naming the item (by position) and the problem
     */
    public Payloads build() {
      Map<String, Kind> scopes = new HashMap<>(kinds);
      for (Object entry : entries) {
        if (entry instanceof Map<?, ?> tree && isCrd(tree)) {
          Kind defined = Kind.definedBy(tree);
          if (defined != null) {
            scopes.put(defined.key(), defined);
          }
        } else if (entry instanceof Manifest m && m.kind().isCrd()) {
          Kind defined = Kind.definedBy(m.content());
          if (defined != null) {
            scopes.put(defined.key(), defined);
          }
        }
      }
      List<ResourceSpec> specs = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        Object entry = entries.get(i);
        if (entry instanceof ResourceSpec spec) {
          specs.add(spec);
          continue;
        }
        Map<?, ?> tree = (Map<?, ?>) entry;
        try {
          Kind kind = scopes.get(keyOf(tree));
          @SuppressWarnings("unchecked")
          Map<String, ?> object = (Map<String, ?>) tree;
          specs.add(Manifest.of(object, namespace, kind));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("payloads[" + i + "]: " + e.getMessage(), e);
        }
      }
      return Payloads.of(specs);
    }

    private static boolean isCrd(Map<?, ?> tree) {
      return "CustomResourceDefinition".equals(tree.get("kind"))
          && String.valueOf(tree.get("apiVersion")).startsWith("apiextensions.k8s.io/");
    }

    private static @Nullable String keyOf(Map<?, ?> tree) {
      if (!(tree.get("apiVersion") instanceof String apiVersion)
          || !(tree.get("kind") instanceof String kind)) {
        return null;
      }
      int slash = apiVersion.indexOf('/');
      return slash < 0 ? kind : apiVersion.substring(0, slash) + "/" + kind;
    }
  }
}
