package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.internal.Trees;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A live CustomResourceDefinition.
 *
 * @param name its {@code metadata.name}
 * @param spec its {@code spec}, as a plain tree (maps, lists, strings, longs, doubles, booleans)
 * @param conditions its status conditions
 */
public record CrdState(
    String name, Map<String, @Nullable Object> spec, List<Condition> conditions) {
  /** Validates the fields and deep-copies the spec. */
  public CrdState {
    requireNonNull(name, "name");
    spec = Trees.freezeMap(spec);
    conditions = List.copyOf(conditions);
  }

  /**
   * Returns one condition.
   *
   * @param type the condition type
   * @return the condition, or empty
   */
  public Optional<Condition> condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
  }
}
