package dev.capstan.update.catalog;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.cluster.Workload;

/**
 * How to tell that the platform is installed: this Deployment exists.
 *
 * @param workload the Deployment that every install has
 * @param hint what to tell the operator when it is missing, for example {@code run `mcp-runtime
 *     setup` first}
 */
public record InstalledCheck(Workload workload, String hint) {
  /** Validates the fields. */
  public InstalledCheck {
    requireNonNull(workload, "workload");
    requireNonNull(hint, "hint");
  }
}
