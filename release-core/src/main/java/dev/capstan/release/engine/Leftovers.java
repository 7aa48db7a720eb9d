package dev.capstan.release.engine;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.Planner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an uninstall leaves in the cluster besides retained objects, and why: the namespaces the
 * release ensures (deleted only when allowed and safe), and the claims that StatefulSets' {@code
 * volumeClaimTemplates} made, which Kubernetes keeps when a StatefulSet is deleted (unless its
 * {@code persistentVolumeClaimRetentionPolicy.whenDeleted} is {@code Delete}).
 */
final class Leftovers {
  private Leftovers() {}

  /** The ensured namespaces an uninstall with {@code options} may delete, if nothing keeps them. */
  static List<EnsuredNamespace> deletable(Release latest, UninstallOptions options) {
    return Planner.ensuredBy(latest).values().stream()
        .filter(e -> options.deleteNamespaces() || e.deleteWithRelease())
        .toList();
  }

  /**
   * Why the uninstall keeps {@code namespace} though it may delete it, or empty when it deletes it:
   * absent, ensured by another release too, or the release's own namespace while its records stay.
   */
  static Optional<String> keeps(
      EnsuredNamespace namespace, Optional<LiveObject> live, Release latest, boolean purge) {
    String at = namespace.ref().key() + ": ";
    if (live.isEmpty()) {
      return Optional.of(at + "not there any more");
    }
    List<String> others =
        live.get().ensuredBy().stream().filter(r -> !r.equals(latest.qualifiedName())).toList();
    if (!others.isEmpty()) {
      return Optional.of(
          at
              + "kept: release "
              + String.join(", ", others)
              + (others.size() == 1 ? " ensures" : " ensure")
              + " it too");
    }
    if (namespace.name().equals(latest.namespace()) && !purge) {
      return Optional.of(
          at
              + "kept: it is the release's own namespace and holds its record; uninstall with"
              + " purge (the CLI's --purge) to delete it with the records");
    }
    return Optional.empty();
  }

  /** Lines for the ensured namespaces the uninstall may not delete: they are shared, and kept. */
  static List<String> keptNamespaces(Release latest, UninstallOptions options) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, EnsuredNamespace> e : Planner.ensuredBy(latest).entrySet()) {
      if (!options.deleteNamespaces() && !e.getValue().deleteWithRelease()) {
        out.add(
            e.getValue().ref().key()
                + ": kept: the release ensures it, and namespaces are shared (deleteNamespaces,"
                + " the CLI's --delete-namespaces, deletes it with everything in it)");
      }
    }
    return out;
  }

  /** Lines for the StatefulSets the uninstall deletes whose templates made volume claims. */
  static List<String> statefulSetClaims(Release latest, List<ResourceRef> deleted) {
    List<String> out = new ArrayList<>();
    for (OwnedResource owned : latest.owns()) {
      ResourceRef ref = owned.ref();
      if (!ref.kind().equals(Kind.STATEFUL_SET) || !deleted.contains(ref)) {
        continue;
      }
      Optional<Manifest> object = latest.payloads().get(ref);
      if (object.isEmpty()
          || !(object.get().get("spec.volumeClaimTemplates") instanceof List<?> templates)
          || templates.isEmpty()) {
        continue;
      }
      List<String> claims = new ArrayList<>();
      for (Object t : templates) {
        if (t instanceof Map<?, ?> template
            && template.get("metadata") instanceof Map<?, ?> meta
            && meta.get("name") instanceof String name) {
          claims.add(name + "-" + ref.name() + "-0");
        }
      }
      boolean deletedWithIt =
          "Delete"
              .equals(object.get().get("spec.persistentVolumeClaimRetentionPolicy.whenDeleted"));
      String names = String.join(", ", claims) + ", … (one per replica)";
      out.add(
          deletedWithIt
              ? ref.key()
                  + ": the PersistentVolumeClaims its volumeClaimTemplates made ("
                  + names
                  + ") are deleted by Kubernetes with it"
                  + " (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete)"
              : ref.key()
                  + ": the PersistentVolumeClaims its volumeClaimTemplates made ("
                  + names
                  + ") are kept with their data, as Kubernetes keeps them; they are not the"
                  + " release's (it never owned them): delete them in namespace "
                  + ref.namespace()
                  + " once the data is no longer needed");
    }
    return out;
  }
}
