package dev.capstan.controller;

import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ManifestInput;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.file.ReleaseTooLargeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the controller reads the ConfigMaps and Secrets a Release takes manifests from, and how a
 * Release's manifests become one release: the inline objects first, then each source's values in
 * the order {@code spec.manifestsFrom} gives (a source's keys in name order). The sources' texts
 * are held to {@link ReleaseFiles#MAX_RELEASE_BYTES} together as each is read, and all the
 * documents to {@link ReleaseFiles#MAX_DOCUMENTS}, as a release's files are; and what reading them
 * takes to the controller's {@link HeapBudget} for a Release ({@link ReleaseHeap}): the texts'
 * characters as each source is read (no source is read past it), then the documents' nodes as they
 * are built.
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
   * @param budget the heap the Release may take
   * @return the release: its payloads and spec
   * @throws InvalidReleaseResourceException when a source is missing or lacks the key named
   * @throws dev.capstan.release.file.InvalidReleaseFileException when a manifest is not valid
   * @throws ReleaseTooLargeException at the first source, text or document over the budget
   */
  static ReleaseFile read(
      ReleaseKey key, ReleaseRequest request, ManifestSources sources, HeapBudget budget) {
    List<ManifestInput> inputs = new ArrayList<>();
    for (int i = 0; i < request.manifests().size(); i++) {
      inputs.add(ManifestInput.document("spec.manifests[" + i + "]", request.manifests().get(i)));
    }
    List<String> problems = new ArrayList<>();
    long total = 0;
    long chars = 0;
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
      Map<String, String> texts = new TreeMap<>();
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
        texts.put(source.label(), text);
      } else {
        data.forEach((k, text) -> texts.put(source.label() + " key " + k, text));
      }
      long size = 0;
      for (String text : texts.values()) {
        size += text.getBytes(StandardCharsets.UTF_8).length;
        chars += text.length();
      }
      try {
        total = ReleaseFiles.releaseBytes(total, size, "sources");
      } catch (IllegalArgumentException e) {
        problems.add(named + ": " + e.getMessage());
        break; // nothing more is read, nor this source kept
      }
      if (!budget.fits(chars, 0)) {
        throw new ReleaseTooLargeException("Release " + key, named, chars, 0, budget);
      }
      texts.forEach((label, text) -> inputs.add(input(source, label, text)));
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseResourceException(key, problems);
    }
    return ReleaseFiles.manifestInputs(
        inputs,
        "Release " + key,
        new Overrides(key.namespace(), request.releaseName(), key.namespace()),
        budget);
  }

  /** A source's text as an input: a Secret's is hidden, its problems show none of it. */
  private static ManifestInput input(ReleaseRequest.Source source, String label, String text) {
    return source.kind() == ReleaseRequest.SourceKind.SECRET
        ? ManifestInput.secretText(label, text)
        : ManifestInput.text(label, text);
  }
}
