package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

/**
 * A release by its namespace and name, as an operation on many releases takes them ({@code
 * ReleaseController.uninstallAll}).
 *
 * @param namespace the release's namespace
 * @param name the release's name
 */
public record ReleaseRef(String namespace, String name) {
  /** Requires both parts. */
  public ReleaseRef {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
  }

  /** The release as {@code namespace/name}. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }
}
