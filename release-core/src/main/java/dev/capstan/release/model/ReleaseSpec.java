package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What a release should be: its home namespace and name, the objects it wants (by reference and
 * content hash), the shared or external objects it relies on, and the cast options. This is all
 * {@code plan} needs ("render-lite"); {@link #of(String, String, Payloads)} derives it from the
 * rendered payloads.
 *
 * <p>References are objects the release needs but never owns or deletes: namespaces, storage
 * classes, and any external object (a pre-existing secret, say). Each must exist when the release
 * is cast; a missing one makes the plan not applyable (a namespace may be created with {@link
 * ReleaseOptions#createNamespace()}).
 *
 * <p>Ensured namespaces are the {@code Namespace} documents the release carries: each is created
 * when missing and has its labels and annotations applied as the release's fields, and is otherwise
 * a reference like any other (see {@link EnsuredNamespace}).
 *
 * @param namespace the release's home namespace (where its records live)
 * @param name the release name: a DNS-1123 label of at most 53 characters
 * @param resources the objects the release owns, unique, kept in apply order
 * @param references the objects it relies on, unique, kept in apply order; every ensured namespace
 *     is among them
 * @param ensured the namespaces the release ensures, unique, by name
 * @param options the cast options
 * @param source where the release came from (free text, shown in history), or {@code null}
 * @param version the release's version label (free text), or {@code null}
 * @param chart the Helm chart the objects were rendered from, recorded with the revision, or {@code
 *     null} when they came from elsewhere
 */
public record ReleaseSpec(
    String namespace,
    String name,
    List<DesiredResource> resources,
    List<ResourceRef> references,
    List<EnsuredNamespace> ensured,
    ReleaseOptions options,
    @Nullable String source,
    @Nullable String version,
    @Nullable ChartOrigin chart) {

  /** The longest release name: Kubernetes object names derived from it must stay valid. */
  public static final int MAX_NAME_LENGTH = 53;

  /**
   * Validates names and uniqueness; keeps resources and references in apply order; adds every
   * ensured namespace to the references.
   */
  public ReleaseSpec {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    if (!Names.isLabel(namespace, 63)) {
      throw new IllegalArgumentException(
          "release namespace " + Names.LABEL_RULE + ": " + Names.quote(namespace));
    }
    if (!Names.isLabel(name, MAX_NAME_LENGTH)) {
      throw new IllegalArgumentException(
          "release name must be a DNS-1123 label of at most "
              + MAX_NAME_LENGTH
              + " characters (lower-case alphanumerics and '-', starting and ending with an"
              + " alphanumeric): "
              + Names.quote(name));
    }
    resources = new ArrayList<>(Copies.list(resources, "resources"));
    resources.sort((a, b) -> ResourceRef.APPLY_ORDER.compare(a.ref(), b.ref()));
    // kept in apply order (rank, key): the planner merge-joins them with the recorded owns
    Set<ResourceRef> seen = new HashSet<>();
    for (DesiredResource r : resources) {
      if (!seen.add(r.ref())) {
        throw new IllegalArgumentException(
            "resources must have unique refs: duplicate " + Escapes.quote(r.ref().key()));
      }
    }
    java.util.TreeMap<String, EnsuredNamespace> byName = new java.util.TreeMap<>();
    for (EnsuredNamespace e : Copies.list(ensured, "ensured")) {
      if (byName.put(e.name(), e) != null) {
        throw new IllegalArgumentException(
            "ensured namespaces must be unique: duplicate " + Escapes.quote(e.name()));
      }
    }
    ensured = List.copyOf(byName.values());
    Set<ResourceRef> allReferences = new TreeSet<>(Copies.list(references, "references"));
    ensured.forEach(e -> allReferences.add(e.ref()));
    references = List.copyOf(allReferences);
    for (ResourceRef ref : references) {
      if (seen.contains(ref)) {
        throw new IllegalArgumentException(
            "references must not name an object the release owns: " + Escapes.quote(ref.key()));
      }
    }
    resources = List.copyOf(resources);
    requireNonNull(options, "options");
  }

  /** A spec rendered from no chart. */
  public ReleaseSpec(
      String namespace,
      String name,
      List<DesiredResource> resources,
      List<ResourceRef> references,
      List<EnsuredNamespace> ensured,
      ReleaseOptions options,
      @Nullable String source,
      @Nullable String version) {
    this(namespace, name, resources, references, ensured, options, source, version, null);
  }

  /** A spec that ensures no namespace. */
  public ReleaseSpec(
      String namespace,
      String name,
      List<DesiredResource> resources,
      List<ResourceRef> references,
      ReleaseOptions options,
      @Nullable String source,
      @Nullable String version) {
    this(namespace, name, resources, references, List.of(), options, source, version);
  }

  /**
   * The spec for {@code payloads}: one desired resource per rendered object, with its content hash
   * and wave, an ensured namespace per {@code Namespace} object, and a reference to every namespace
   * the objects live in and every storage class their volume claims use.
   */
  public static ReleaseSpec of(String namespace, String name, Payloads payloads) {
    List<DesiredResource> resources = new ArrayList<>();
    payloads
        .hashes()
        .forEach(
            (ref, hash) -> {
              if (!ref.kind().equals(Kind.NAMESPACE)) {
                resources.add(
                    new DesiredResource(ref, hash, Waves.of(payloads.get(ref).orElseThrow())));
              }
            });
    return new ReleaseSpec(
        namespace,
        name,
        resources,
        implicitReferences(payloads),
        ensured(payloads),
        ReleaseOptions.defaults(),
        null,
        null);
  }

  /** The namespaces {@code payloads} ensure: their {@code Namespace} objects. */
  public static List<EnsuredNamespace> ensured(Payloads payloads) {
    List<EnsuredNamespace> out = new ArrayList<>();
    for (Manifest object : payloads.objects()) {
      if (object.kind().equals(Kind.NAMESPACE)) {
        out.add(EnsuredNamespace.of(object));
      }
    }
    return out;
  }

  /** The namespace this spec ensures by that name, if any. */
  public java.util.Optional<EnsuredNamespace> ensured(String namespaceName) {
    return ensured.stream().filter(e -> e.name().equals(namespaceName)).findFirst();
  }

  /**
   * The namespaces {@code payloads} need, its hooks' included. A volume claim's storage class is
   * not among them: a claim bound statically names a class no StorageClass object backs, as
   * Kubernetes allows; a class the release creates is one of its objects, and one it relies on can
   * be listed as a reference.
   */
  public static List<ResourceRef> implicitReferences(Payloads payloads) {
    Set<ResourceRef> refs = new TreeSet<>();
    for (Manifest object : payloads.objects()) {
      if (!object.namespace().isEmpty()) {
        refs.add(ResourceRef.namespace(object.namespace()));
      }
    }
    for (Hook hook : payloads.hooks()) {
      if (!hook.ref().namespace().isEmpty()) {
        refs.add(ResourceRef.namespace(hook.ref().namespace()));
      }
    }
    return List.copyOf(refs);
  }

  /** {@code namespace/name}. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }

  /** A copy with {@code ref} added to the references. */
  public ReleaseSpec withReference(ResourceRef ref) {
    List<ResourceRef> copy = new ArrayList<>(references);
    copy.add(ref);
    return new ReleaseSpec(
        namespace, name, resources, copy, ensured, options, source, version, chart);
  }

  /** A copy with the given desired resources (kept in apply order). */
  public ReleaseSpec withResources(List<DesiredResource> resources) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /** A copy ensuring the given namespaces (added to the references). */
  public ReleaseSpec withEnsured(List<EnsuredNamespace> ensured) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /** A copy with the given options. */
  public ReleaseSpec withOptions(ReleaseOptions options) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /** A copy with {@code adopt} set. */
  public ReleaseSpec withAdopt(boolean adopt) {
    return withOptions(options.withAdopt(adopt));
  }

  /** A copy with {@code atomic} set. */
  public ReleaseSpec withAtomic(boolean atomic) {
    return withOptions(options.withAtomic(atomic));
  }

  /** A copy with {@code createNamespace} set. */
  public ReleaseSpec withCreateNamespace(boolean createNamespace) {
    return withOptions(options.withCreateNamespace(createNamespace));
  }

  /** A copy with the given source description. */
  public ReleaseSpec withSource(@Nullable String source) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /**
   * A copy recording that its objects were rendered from {@code chart} (each revision it casts
   * keeps it; see {@link Release#chart()}).
   */
  public ReleaseSpec withChart(@Nullable ChartOrigin chart) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /** A copy with the given version label. */
  public ReleaseSpec withVersion(@Nullable String version) {
    return new ReleaseSpec(
        namespace, name, resources, references, ensured, options, source, version, chart);
  }

  /**
   * The spec in one line, e.g. {@code ReleaseSpec[shop/web: 3 objects, 2 references]}, with its
   * version when it has one.
   */
  @Override
  public String toString() {
    return "ReleaseSpec["
        + qualifiedName()
        + (version == null ? "" : " " + Escapes.escape(version))
        + ": "
        + resources.size()
        + (resources.size() == 1 ? " object, " : " objects, ")
        + references.size()
        + (references.size() == 1 ? " reference]" : " references]");
  }
}
