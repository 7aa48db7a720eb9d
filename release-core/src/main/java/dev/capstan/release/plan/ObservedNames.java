package dev.capstan.release.plan;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What a plan needs observed: the names to read, grouped by scope (kind and namespace), one
 * observation batch each. A {@link LiveState} that observed fewer scopes is refused by the planner.
 */
public final class ObservedNames {
  private ObservedNames() {}

  /**
   * The names, per scope (kind and namespace), that {@link Planner#plan} looks at: the desired
   * objects, the references (ensured namespaces among them), the objects the latest revision owns
   * and the namespaces it ensured with {@link EnsuredNamespace#DELETE_WITH_RELEASE} (a cast that
   * drops one may delete it). Observe each scope in one batch; a state that observed fewer is
   * refused by the planner.
   */
  public static Map<LiveState.Scope, Set<String>> of(ReleaseSpec spec, @Nullable Release latest) {
    Set<ResourceRef> refs = new TreeSet<>(spec.references());
    spec.resources().forEach(r -> refs.add(r.ref()));
    if (latest != null) {
      latest.owns().forEach(o -> refs.add(o.ref()));
      ReleaseSpec.ensured(latest.payloads()).stream()
          .filter(EnsuredNamespace::deleteWithRelease)
          .forEach(e -> refs.add(e.ref()));
    }
    return of(refs);
  }

  /**
   * The names of {@code refs}, grouped by scope (kind and namespace): one observation batch each.
   */
  public static Map<LiveState.Scope, Set<String>> of(Iterable<ResourceRef> refs) {
    Map<LiveState.Scope, Set<String>> names = new HashMap<>();
    for (ResourceRef ref : refs) {
      names
          .computeIfAbsent(new LiveState.Scope(ref.kind(), ref.namespace()), s -> new TreeSet<>())
          .add(ref.name());
    }
    return names;
  }
}
