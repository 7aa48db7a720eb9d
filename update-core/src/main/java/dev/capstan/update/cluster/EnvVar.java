package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/**
 * One environment variable of a container.
 *
 * @param name the variable name
 * @param value its literal value; empty when unset or taken from a reference
 */
public record EnvVar(String name, String value) {
  /** Validates the fields. */
  public EnvVar {
    requireNonNull(name, "name");
    requireNonNull(value, "value");
  }

  /**
   * Creates a variable.
   *
   * @param name the name
   * @param value the value
   * @return the variable
   */
  public static EnvVar of(String name, String value) {
    return new EnvVar(name, value);
  }
}
