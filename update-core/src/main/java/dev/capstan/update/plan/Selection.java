package dev.capstan.update.plan;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which components an update considers.
 *
 * @param only when non-empty, only these components (opt-in gating is then bypassed); names are
 *     trimmed, empty names dropped
 * @param includeGroups the opt-in groups to include (generalises mcp-runtime's {@code
 *     --include-auth} and {@code --include-cert-manager}); trimmed, kept sorted
 * @param allowDowngrade whether a target older than the installed version is allowed
 */
public record Selection(List<String> only, Set<String> includeGroups, boolean allowDowngrade) {

  /** Trims and copies the names. */
  public Selection {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (String name : only) {
      if (!name.strip().isEmpty()) {
        names.add(name.strip());
      }
    }
    only = List.copyOf(names);
    TreeSet<String> groups = new TreeSet<>();
    for (String group : includeGroups) {
      if (!group.strip().isEmpty()) {
        groups.add(group.strip());
      }
    }
    includeGroups = Collections.unmodifiableSortedSet(groups);
  }

  /**
   * Returns the default selection: every component that is not opt-in, no downgrades.
   *
   * @return the default selection
   */
  public static Selection defaults() {
    return new Selection(List.of(), Set.of(), false);
  }

  /**
   * Returns a copy limited to some components.
   *
   * @param names the component names
   * @return the copy
   */
  public Selection withOnly(String... names) {
    return new Selection(List.of(names), includeGroups, allowDowngrade);
  }

  /**
   * Returns a copy that includes opt-in groups.
   *
   * @param groups the group names
   * @return the copy
   */
  public Selection withIncludeGroups(String... groups) {
    return withIncludeGroups(Set.of(groups));
  }

  /**
   * Returns a copy that includes opt-in groups.
   *
   * @param groups the group names
   * @return the copy
   */
  public Selection withIncludeGroups(Set<String> groups) {
    return new Selection(only, groups, allowDowngrade);
  }

  /**
   * Returns a copy that allows or refuses downgrades.
   *
   * @param allow whether downgrades are allowed
   * @return the copy
   */
  public Selection withAllowDowngrade(boolean allow) {
    return new Selection(only, includeGroups, allow);
  }
}
