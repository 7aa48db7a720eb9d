package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

/**
 * The namespace and name of a {@code Release} resource: the work queue's key.
 *
 * @param namespace the Release's namespace
 * @param name the Release's name
 */
public record ReleaseKey(String namespace, String name) {
  /** Requires both parts. */
  public ReleaseKey {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
  }

  /** {@code namespace/name}, as kubectl names it. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
