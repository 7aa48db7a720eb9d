package dev.capstan.update.manifest;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One CustomResourceDefinition of a release's CRD bundle.
 *
 * @param name its {@code metadata.name}
 * @param spec its {@code spec}, a plain tree compared by value with the live CRD's spec
 * @param document the whole document, as applied
 */
public record CrdDocument(
    String name, Map<String, @Nullable Object> spec, Map<String, @Nullable Object> document) {
  /** Validates the name and deep-copies the trees. */
  public CrdDocument {
    requireNonNull(name, "name");
    spec = Trees.freezeMap(spec);
    document = Trees.freezeMap(document);
  }

  /**
   * Tells whether a live spec equals this document's spec (deep, by value; numbers normalised).
   *
   * @param liveSpec the live CRD's spec
   * @return true when applying would not change the spec
   */
  public boolean specEquals(Map<String, @Nullable Object> liveSpec) {
    return Trees.sameValue(spec, Trees.freezeMap(liveSpec));
  }
}
