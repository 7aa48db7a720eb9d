package dev.capstan.release.memory;

import dev.capstan.common.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Precondition;
import org.jspecify.annotations.Nullable;

/**
 * Why the in-memory cluster refuses a write as the API server would: a precondition the object no
 * longer meets (409), an immutable field changed (422). Read under the cluster's monitor ({@link
 * MemoryObjects}).
 */
final class MemoryRefusals {
  private MemoryRefusals() {}

  /** The API server's refusal of {@code object} changing a field it keeps immutable (HTTP 422). */
  static @Nullable ClusterException immutable(
      MemoryObjects cluster, String operation, Manifest object) {
    StoredObject current = cluster.objects.get(object.ref());
    String immutable =
        current == null ? null : FieldWriters.immutableChange(current.content, object);
    return immutable == null
        ? null
        : new ClusterException(
            operation,
            object.kind().kind(),
            object.namespace(),
            object.name(),
            422,
            object.kind().kind()
                + " \""
                + object.name()
                + "\" is invalid: "
                + immutable
                + ": field is immutable",
            null);
  }

  /**
   * Why the object is not what {@code precondition} requires, as the API server says it, or {@code
   * null} when it is (or, with {@code goneIsFine}, when it is absent).
   */
  static @Nullable String fenced(
      MemoryObjects cluster, ResourceRef ref, Precondition precondition, boolean goneIsFine) {
    if (ref.kind().equals(Kind.NAMESPACE)) {
      NamespaceState ns = cluster.namespaces.get(ref.name());
      if (precondition instanceof Precondition.Observed expected
          && ns != null
          && (!ns.uid.equals(expected.uid())
              || !Long.toString(ns.version).equals(expected.resourceVersion()))) {
        return "the object has been modified; please apply your changes to the latest version and"
            + " try again";
      }
      return null;
    }
    StoredObject o = cluster.objects.get(ref);
    if (precondition instanceof Precondition.Absent) {
      return o == null ? null : ref.kind().kind() + " \"" + ref.name() + "\" already exists";
    }
    if (precondition instanceof Precondition.Observed expected) {
      if (o == null) {
        return goneIsFine
            ? null
            : "uid mismatch: the provided object specified uid "
                + expected.uid()
                + ", and no existing object was found";
      }
      if (!o.uid.equals(expected.uid())) {
        return "uid mismatch: the provided object specified uid "
            + expected.uid()
            + ", found "
            + o.uid;
      }
      if (!Long.toString(o.version).equals(expected.resourceVersion())) {
        return "the object has been modified; please apply your changes to the latest version and"
            + " try again";
      }
    }
    return null;
  }
}
