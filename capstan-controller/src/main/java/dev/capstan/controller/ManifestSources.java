package dev.capstan.controller;

import dev.capstan.release.file.ManifestInput;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the controller reads the ConfigMaps and Secrets a Release takes manifests from, and how a
 * Release's manifests become one release: the inline objects first, then each source's values in
 * the order {@code spec.manifestsFrom} gives (a source's keys in name order).
 */
interface ManifestSources {
  /**
   * The data of a ConfigMap, or null when it does not exist.
   *
   * @param namespace its namespace
   * @param name its name
   */
  @Nullable Map<String, String> configMap(String namespace, String name);

  /**
   * The data of a Secret, decoded as UTF-8 text, or null when it does not exist. The values are
   * read as manifests only; they never reach a status, an event or a log line.
   */
  @Nullable Map<String, String> secret(String namespace, String name);

  /**
   * The release a request describes.
   *
   * @param key the Release
   * @param request its checked spec
   * @param sources where sources are read
   * @return the release: its payloads and spec
   * @throws InvalidReleaseResourceException when a source is missing or lacks the key named
   * @throws dev.capstan.release.file.InvalidReleaseFileException when a manifest is not valid
   */
  static ReleaseFile read(ReleaseKey key, ReleaseRequest request, ManifestSources sources) {
    List<ManifestInput> inputs = new ArrayList<>();
    for (int i = 0; i < request.manifests().size(); i++) {
      inputs.add(ManifestInput.document("spec.manifests[" + i + "]", request.manifests().get(i)));
    }
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < request.sources().size(); i++) {
      ReleaseRequest.Source source = request.sources().get(i);
      String at = "spec.manifestsFrom[" + i + "]";
      Map<String, String> data =
          source.kind() == ReleaseRequest.SourceKind.CONFIG_MAP
              ? sources.configMap(key.namespace(), source.name())
              : sources.secret(key.namespace(), source.name());
      String named = at + ": " + source.kind().kind() + " " + key.namespace() + "/" + source.name();
      if (data == null) {
        problems.add(named + " does not exist");
        continue;
      }
      String only = source.key();
      if (only != null) {
        String text = data.get(only);
        if (text == null) {
          problems.add(
              named
                  + " has no key "
                  + dev.capstan.common.Escapes.quote(only)
                  + "; it has "
                  + String.join(", ", new TreeMap<>(data).keySet()));
          continue;
        }
        inputs.add(input(source, source.label(), text));
      } else {
        new TreeMap<>(data)
            .forEach((k, text) -> inputs.add(input(source, source.label() + " key " + k, text)));
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseResourceException(key, problems);
    }
    return ReleaseFiles.manifestInputs(
        inputs,
        "Release " + key,
        new Overrides(key.namespace(), request.releaseName(), key.namespace()));
  }

  /** A source's text as an input: a Secret's is hidden, its problems show none of it. */
  private static ManifestInput input(ReleaseRequest.Source source, String label, String text) {
    return source.kind() == ReleaseRequest.SourceKind.SECRET
        ? ManifestInput.secretText(label, text)
        : ManifestInput.text(label, text);
  }
}
