package dev.capstan.k8s.testing;

import static java.util.Objects.requireNonNull;

/**
 * A namespace created for one test method; it is deleted after the test passes and kept (for
 * inspection) when the test fails.
 *
 * @param name the namespace's name
 */
public record TestNamespace(String name) {
  /** Validates the name. */
  public TestNamespace {
    requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    return name;
  }
}
