package dev.capstan.cli.update;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads environment variables. */
@FunctionalInterface
public interface Environment {

  /**
   * Reads one variable.
   *
   * @param name the variable name
   * @return its value, or null when unset
   */
  @Nullable String get(String name);

  /**
   * Returns the process environment.
   *
   * @return {@link System#getenv(String)}
   */
  static Environment system() {
    return System::getenv;
  }

  /**
   * Returns a fixed environment.
   *
   * @param variables the variables
   * @return an environment holding exactly those
   */
  static Environment of(Map<String, String> variables) {
    Map<String, String> copy = Map.copyOf(variables);
    return copy::get;
  }
}
