package dev.capstan.release.port;

import dev.capstan.release.ClusterException;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.plan.LiveObject;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The object operations both ports share. Every method may throw {@link ClusterException}; none may
 * report a failed read as "absent".
 */
public interface ResourcePort {

  /**
   * Observes, in one batch (one LIST on Kubernetes), the objects of {@code type} in {@code
   * namespace} among {@code names}. Objects not returned are absent.
   *
   * @param type the kind
   * @param namespace the namespace, {@code ""} for cluster-scoped kinds
   * @param names the names of interest
   * @return the live objects found among {@code names}, in any order
   */
  List<LiveObject> observe(ResourceType type, String namespace, Set<String> names);

  /**
   * Creates or updates the object to hold {@code spec}, stamped with {@code stamp}; with a {@code
   * null} stamp, writes it unowned (used to restore the pre-image of an adopted object).
   */
  void apply(ResourceSpec spec, @Nullable OwnershipStamp stamp);

  /**
   * Deletes the object only if it exists and carries a stamp of {@code owner}.
   *
   * @return whether an object was deleted ({@code false}: absent, or not owned by {@code owner})
   */
  boolean delete(ResourceRef ref, ReleaseIdentity owner);

  /**
   * Removes {@code owner}'s stamp from the object, keeping the object and its data (volume reclaim
   * policy {@code RETAIN}).
   *
   * @return whether a stamp was removed ({@code false}: absent, or not owned by {@code owner})
   */
  boolean unstamp(ResourceRef ref, ReleaseIdentity owner);
}
