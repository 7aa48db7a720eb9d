package dev.capstan.release.model;

import dev.capstan.common.Escapes;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The {@link ManifestConverter}s on the class or module path, found once, and the one place a model
 * object becomes a tree.
 */
final class ManifestConverters {
  private ManifestConverters() {}

  /** Found on first use: most hosts never give a model object. */
  private static final class Found {
    static final List<ManifestConverter> ALL =
        ServiceLoader.load(ManifestConverter.class, ManifestConverter.class.getClassLoader())
            .stream()
            .map(ServiceLoader.Provider::get)
            .toList();
  }

  /**
   * {@code model} as a tree: a map as it is, any other object through the first converter that
   * accepts it.
   *
   * @throws IllegalArgumentException if no converter accepts it, naming its type and what does
   */
  static Map<?, ?> tree(Object model) {
    if (model instanceof Map<?, ?> map) {
      return map;
    }
    for (ManifestConverter converter : Found.ALL) {
      if (converter.accepts(model)) {
        return converter.toTree(model);
      }
    }
    throw new IllegalArgumentException(
        "a "
            + Escapes.escape(model.getClass().getName())
            + " is no manifest: give a Map tree, a Manifest, or an object of a client library"
            + " whose ManifestConverter is on the class path (release-k8s converts client-java's"
            + " models; for fabric8's, see docs/manifests.md, \"Objects of a client library\")");
  }
}
