package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Observation: the live objects of a kind in a namespace, by one LIST (paged), filtered to the
 * names asked for (with a single name, selected by field; a single Namespace is one GET), with
 * their content, stamp and {@linkplain Drift drift}; with the owner's stamp selector for several
 * names of a kind Capstan stamps, and a second LIST for what that one missed.
 */
final class Observations {
  private final DynamicApis apis;

  Observations(DynamicApis apis) {
    this.apis = apis;
  }

  /** {@link KubernetesOrchestrator#observe(Kind, String, Set, Map)}. */
  List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    requireNonNull(kind, "kind");
    requireNonNull(applied, "applied");
    requireNonNull(namespace, "namespace");
    List<LiveObject> out = new ArrayList<>();
    read(kind, namespace, names, applied, null, out);
    return out;
  }

  /** {@link KubernetesOrchestrator#observeOwned}. */
  List<LiveObject> observeOwned(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      ReleaseIdentity owner) {
    requireNonNull(kind, "kind");
    requireNonNull(applied, "applied");
    requireNonNull(namespace, "namespace");
    String selector = Stamps.selector(owner);
    if (selector == null || names.size() < 2 || kind.equals(Kind.NAMESPACE) || kind.shared()) {
      return observe(kind, namespace, names, applied);
    }
    List<LiveObject> out = new ArrayList<>();
    read(kind, namespace, names, applied, selector, out);
    if (out.size() < names.size()) {
      Set<String> missing = new TreeSet<>(names);
      out.forEach(o -> missing.remove(o.ref().name()));
      read(kind, namespace, missing, applied, null, out);
    }
    return out;
  }

  /** The largest LIST page an observation asks for. */
  static final int MAX_OBSERVATION_PAGE = 5000;

  /**
   * The LIST page size for observing {@code wanted} names: room for them and as many other objects
   * of the kind (within {@link ResourceApi#PAGE_SIZE} and {@link #MAX_OBSERVATION_PAGE}), so a
   * namespace holding little else, such as a fleet's releases observed together, comes in one page.
   */
  static int observationPage(int wanted) {
    return Math.max(ResourceApi.PAGE_SIZE, Math.min(2 * wanted, MAX_OBSERVATION_PAGE));
  }

  /**
   * Adds to {@code out} the objects among {@code names} that one LIST returns: by name for one
   * name, else of the whole namespace or, with {@code ownerSelector}, of the objects it selects.
   */
  private void read(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      @Nullable String ownerSelector,
      List<LiveObject> out) {
    if (names.isEmpty()) {
      return;
    }
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isEmpty() || resource.get().namespaced() != kind.namespaced()) {
      return;
    }
    DynamicApis.Api api = apis.api(resource.get());
    String field =
        names.size() == 1 && ownerSelector == null
            ? "metadata.name=" + names.iterator().next()
            : null;
    List<String> labels = new ArrayList<>();
    if (ownerSelector != null) {
      labels.add(ownerSelector);
    }
    if (kind.equals(Kind.SECRET)) {
      labels.add(ReleaseRecords.NOT_RECORDS);
    }
    String label = labels.isEmpty() ? null : String.join(",", labels);
    List<JsonObject> found =
        kind.equals(Kind.NAMESPACE) && names.size() == 1
            ? api.calls.getRaw(null, names.iterator().next()).map(api::typed).stream().toList()
            : api.list(scope(kind, namespace), label, field, observationPage(names.size()), names);
    for (JsonObject raw : found) {
      String name = JsonTrees.text(raw, "metadata", "name");
      if (name == null || !names.contains(name)) {
        continue;
      }
      ResourceRef ref = ResourceRef.of(kind, kind.namespaced() ? namespace : "", name);
      if (kind.equals(Kind.NAMESPACE)) {
        out.add(
            new LiveObject(
                ref,
                LiveContent.content(raw, kind),
                null,
                null,
                JsonTrees.text(raw, "metadata", "uid"),
                JsonTrees.text(raw, "metadata", "resourceVersion"),
                LiveContent.ensuredBy(raw),
                null));
        continue;
      }
      if (kind.shared()) {
        out.add(LiveObject.present(ref));
        continue;
      }
      OwnershipStamp stamp = Stamps.read(LiveContent.annotations(raw));
      Manifest content = LiveContent.content(raw, kind);
      Drift.Finding drift =
          stamp == null
              ? Drift.Finding.NONE
              : Drift.find(
                  raw, content, Stamps.MANAGER_NAME, kind, stamp.contentHash(), applied.get(name));
      // a CRD's status (its storedVersions) is what the CRD safety gate reads; other statuses are
      // not converted (health reads them from its own watch)
      JsonObject status = kind.isCrd() ? JsonTrees.object(raw, "status") : null;
      out.add(
          new LiveObject(
              ref,
              content,
              stamp,
              drift.reason(),
              JsonTrees.text(raw, "metadata", "uid"),
              JsonTrees.text(raw, "metadata", "resourceVersion"),
              List.of(),
              status == null ? null : JsonTrees.toJava(status),
              drift.fields()));
    }
  }

  /**
   * One LIST of the kind's metadata at its version across every namespace, with {@code limit};
   * empty when the kind is not served at that version.
   */
  Optional<Orchestrator.Instances> instances(Kind kind, int limit) {
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isEmpty()) {
      return Optional.empty();
    }
    boolean[] more = new boolean[1];
    List<ResourceRef> found = new ArrayList<>();
    for (JsonObject raw : apis.api(resource.get()).calls.firstPageMetadata(limit, more)) {
      String name = JsonTrees.text(raw, "metadata", "name");
      if (name != null) {
        String namespace = JsonTrees.text(raw, "metadata", "namespace");
        found.add(
            ResourceRef.of(kind, kind.namespaced() && namespace != null ? namespace : "", name));
      }
    }
    return Optional.of(new Orchestrator.Instances(found, more[0]));
  }

  private static @Nullable String scope(Kind kind, String namespace) {
    return kind.namespaced() ? namespace : null;
  }
}
