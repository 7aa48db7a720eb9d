package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A hook of a Helm revision: an object Helm creates around an install or upgrade ({@code
 * pre-install}, {@code post-upgrade}, ...) and does not track as part of the release.
 *
 * @param name the hook's object name
 * @param kind the hook's object kind
 * @param path the template it came from
 * @param manifest the rendered object (YAML); may hold Secret values, never printed
 * @param events the events it runs on, e.g. {@code post-install}
 */
public record HelmHook(
    String name, String kind, String path, String manifest, List<String> events) {
  /** Requires every part; copies the events. */
  public HelmHook {
    requireNonNull(name, "name");
    requireNonNull(kind, "kind");
    requireNonNull(path, "path");
    requireNonNull(manifest, "manifest");
    events = List.copyOf(events);
  }

  /** Names the hook only: its manifest may hold Secret values. */
  @Override
  public String toString() {
    return "HelmHook[" + kind + " " + name + " from " + path + " on " + events + "]";
  }
}
