package dev.capstan.release;

import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that payloads match their spec and that every object a payload refers to is in the release
 * or among its references. Runs before anything is written.
 */
final class PayloadValidator {
  private PayloadValidator() {}

  /**
   * Lists every problem found.
   *
   * @throws InvalidReleaseException if there is any
   */
  static void validate(ReleaseSpec spec, Payloads payloads) {
    List<String> problems = new ArrayList<>();
    Map<ResourceRef, String> hashes = payloads.hashes();
    Set<ResourceRef> desired = new HashSet<>();
    for (DesiredResource d : spec.resources()) {
      desired.add(d.ref());
      String payloadHash = hashes.get(d.ref());
      if (payloadHash == null) {
        problems.add("resources[" + d.ref().key() + "]: no payload was given for it");
      } else if (!payloadHash.equals(d.contentHash())) {
        problems.add(
            "resources["
                + d.ref().key()
                + "].contentHash must equal the payload's hash: spec has "
                + d.contentHash()
                + ", payload has "
                + payloadHash);
      }
    }
    for (ResourceRef ref : payloads.refs()) {
      if (!desired.contains(ref)) {
        problems.add("payloads[" + ref.key() + "]: not among the spec's resources");
      }
    }
    Set<ResourceRef> known = new HashSet<>(desired);
    known.addAll(spec.references());
    for (ResourceSpec payload : payloads.specs()) {
      String at = "payloads[" + payload.ref().key() + "]";
      if (payload instanceof ServiceSpec s) {
        for (int i = 0; i < s.envFrom().size(); i++) {
          ServiceSpec.EnvFrom from = s.envFrom().get(i);
          requireKnown(
              known,
              ResourceRef.of(from.type(), s.namespace(), from.name()),
              at + ".envFrom[" + i + "]",
              problems);
        }
        for (int i = 0; i < s.volumeMounts().size(); i++) {
          requireKnown(
              known,
              ResourceRef.of(ResourceType.VOLUME, s.namespace(), s.volumeMounts().get(i).volume()),
              at + ".volumeMounts[" + i + "]",
              problems);
        }
      } else if (payload instanceof VolumeSpec v && v.storageClass() != null) {
        requireKnown(
            known, ResourceRef.storageClass(v.storageClass()), at + ".storageClass", problems);
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(spec.qualifiedName(), problems);
    }
  }

  private static void requireKnown(
      Set<ResourceRef> known, ResourceRef ref, String field, List<String> problems) {
    if (!known.contains(ref)) {
      problems.add(
          field
              + " refers to "
              + ref.key()
              + ", which is neither in this release nor among its references");
    }
  }
}
