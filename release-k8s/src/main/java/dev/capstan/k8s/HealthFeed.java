package dev.capstan.k8s;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One stream of updates a health wait reads ({@link HealthWait}): what it is about, of which kind
 * and namespace, and for a history the one object it follows.
 */
record HealthFeed(HealthFeed.Role role, HealthFeed.Scope scope, @Nullable ResourceRef ref) {
  HealthFeed {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(scope, "scope");
  }

  /** A kind in a namespace: what one LIST, or one WATCH of objects, reads. */
  record Scope(Kind kind, String namespace) {
    Scope {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(namespace, "namespace");
    }
  }

  /** What a stream of updates is about. */
  enum Role {
    /** The objects of a scope. */
    OBJECTS,
    /** One object's events since this adapter wrote it. */
    HISTORY,
    /** The pods of a namespace. */
    PODS,
    /** The ReplicaSets of a namespace. */
    REPLICA_SETS
  }

  /** An update of a feed, as the watch loop hands it on. */
  record Event(HealthFeed feed, ResumableWatch.Update<DynamicKubernetesObject> update) {
    Event {
      Objects.requireNonNull(feed, "feed");
      Objects.requireNonNull(update, "update");
    }
  }
}
