package dev.capstan.update.plan;

import dev.capstan.update.catalog.Catalog;
import java.util.ArrayList;
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
 * @param includeGroups the opt-in groups to include; trimmed, kept sorted
 * @param allowDowngrade whether a target older than the installed version is allowed
 * @param allowUnsafeCrdChanges whether CRD changes the safety gate refuses (a stored version
 *     removed or no longer served, a storage version changed without a path, a schema narrowed) are
 *     applied anyway
 */
public record Selection(
    List<String> only,
    Set<String> includeGroups,
    boolean allowDowngrade,
    boolean allowUnsafeCrdChanges) {

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
   * Creates a selection that keeps the CRD safety gate.
   *
   * @param only see the record
   * @param includeGroups see the record
   * @param allowDowngrade see the record
   */
  public Selection(List<String> only, Set<String> includeGroups, boolean allowDowngrade) {
    this(only, includeGroups, allowDowngrade, false);
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
   * Returns the names of {@link #only()} that are not components of a catalog; the planner refuses
   * a selection that has any.
   *
   * @param catalog the host's catalog
   * @return the unknown names, in the selection's order
   */
  public List<String> unknownComponents(Catalog catalog) {
    return only.stream().filter(n -> catalog.component(n).isEmpty()).toList();
  }

  /**
   * Returns the groups of {@link #includeGroups()} that are not opt-in groups of a catalog; the
   * planner refuses a selection that has any.
   *
   * @param catalog the host's catalog
   * @return the unknown groups, sorted
   */
  public List<String> unknownGroups(Catalog catalog) {
    return includeGroups.stream().filter(g -> !catalog.groups().contains(g)).toList();
  }

  /**
   * Returns what is wrong with this selection for {@code catalog}: unknown component names and
   * unknown groups, each with what the catalog knows, naming the two settings as the caller calls
   * them.
   *
   * @param catalog the host's catalog
   * @param onlyName what the caller calls {@link #only()}, for example {@code Selection.only}
   * @param groupsName what the caller calls {@link #includeGroups()}
   * @return the problems, empty when the selection fits the catalog
   */
  public List<String> problems(Catalog catalog, String onlyName, String groupsName) {
    List<String> problems = new ArrayList<>();
    List<String> unknown = unknownComponents(catalog);
    if (!unknown.isEmpty()) {
      problems.add(
          onlyName
              + " has unknown component(s) "
              + String.join(", ", unknown)
              + "; known components: "
              + String.join(", ", catalog.names()));
    }
    List<String> unknownGroups = unknownGroups(catalog);
    if (!unknownGroups.isEmpty()) {
      problems.add(
          groupsName
              + " has unknown group(s) "
              + String.join(", ", unknownGroups)
              + "; known groups: "
              + (catalog.groups().isEmpty() ? "none" : String.join(", ", catalog.groups())));
    }
    return problems;
  }

  /**
   * Returns a copy limited to some components.
   *
   * @param names the component names
   * @return the copy
   */
  public Selection withOnly(String... names) {
    return new Selection(List.of(names), includeGroups, allowDowngrade, allowUnsafeCrdChanges);
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
    return new Selection(only, groups, allowDowngrade, allowUnsafeCrdChanges);
  }

  /**
   * Returns a copy that allows or refuses downgrades.
   *
   * @param allow whether downgrades are allowed
   * @return the copy
   */
  public Selection withAllowDowngrade(boolean allow) {
    return new Selection(only, includeGroups, allow, allowUnsafeCrdChanges);
  }

  /**
   * Returns a copy that allows or refuses CRD changes the safety gate blocks.
   *
   * @param allow whether unsafe CRD changes are applied anyway
   * @return the copy
   */
  public Selection withAllowUnsafeCrdChanges(boolean allow) {
    return new Selection(only, includeGroups, allowDowngrade, allow);
  }
}
