package dev.capstan.release.file;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Releases of plain Kubernetes manifests (files, text, or inputs of a {@code Release} resource):
 * one release named by the {@link Overrides}, whose namespaced objects without a namespace go to
 * its namespace. Problems are collected and thrown together ({@link InvalidReleaseFileException}).
 */
final class ManifestReleases {
  private ManifestReleases() {}

  /** A release of the plain manifests {@code read} gives the reader. */
  static ReleaseFile of(String source, Overrides overrides, Consumer<ManifestReader> read) {
    List<String> problems = new ArrayList<>();
    String name = overrides.name() == null ? "" : overrides.name();
    String namespace = namespace(overrides);
    if (name.isBlank()) {
      problems.add(
          "a release of plain manifests needs a name (capstan release cast NAME -f "
              + source
              + ")");
    }
    ManifestReader reader = new ManifestReader(problems);
    read.accept(reader);
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    if (problems.isEmpty() && manifests.isEmpty()) {
      problems.add("holds no Kubernetes object");
    }
    Payloads payloads = Payloads.empty();
    if (problems.isEmpty()) {
      try {
        payloads = Payloads.of(manifests);
        ReleaseSpec.of(namespace, name, Payloads.empty());
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return new ReleaseFile(name, namespace, null, null, payloads, List.of());
  }

  /**
   * The objects of manifest text as {@link ReleaseFiles#manifestText} reads them, hooks among them,
   * before they are sorted into a release's objects and hooks: for a rendered chart, whose hooks of
   * an event Helm does not know are skipped, as Helm skips them, rather than refused.
   *
   * @throws InvalidReleaseFileException listing every problem with the document index and field
   */
  static List<Manifest> objects(String text, String source, Overrides overrides) {
    return objects(text, source, overrides, HeapBudget.UNBOUNDED);
  }

  /**
   * As {@link #objects(String, String, Overrides)}, within {@code budget}.
   *
   * @throws ReleaseTooLargeException at the first document over the budget
   */
  static List<Manifest> objects(
      String text, String source, Overrides overrides, HeapBudget budget) {
    List<String> problems = new ArrayList<>();
    String namespace = namespace(overrides);
    ManifestReader reader = new ManifestReader(problems, budget, source);
    reader.text(source, text);
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return manifests;
  }

  /** {@link ReleaseFiles#manifestInputs}. */
  static ReleaseFile inputs(
      List<ManifestInput> inputs, String source, Overrides overrides, HeapBudget budget) {
    List<String> problems = new ArrayList<>();
    String name = overrides.name() == null ? "" : overrides.name();
    String namespace = namespace(overrides);
    if (name.isBlank()) {
      problems.add("a release of plain manifests needs a name");
    }
    ManifestReader reader = new ManifestReader(problems, budget, source);
    for (ManifestInput input : inputs) {
      String text = input.text();
      if (text != null) {
        reader.text(input.label(), text, input.hidden());
      } else {
        reader.inline("(" + input.label() + ")", input.tree());
      }
    }
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    Payloads payloads = Payloads.empty();
    if (problems.isEmpty()) {
      try {
        payloads = Payloads.of(manifests);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return new ReleaseFile(name, namespace, null, null, payloads, List.of());
  }

  /** The release's namespace: the overrides', else their fallback. */
  private static String namespace(Overrides overrides) {
    return overrides.namespace() == null || overrides.namespace().isBlank()
        ? overrides.fallbackNamespace()
        : overrides.namespace();
  }
}
