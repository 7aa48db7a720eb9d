package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An object as observed in the cluster.
 *
 * @param ref the object
 * @param content its content as the adapter reads it back, without the ownership stamp and without
 *     what the server manages (status, resourceVersion, managedFields): the pre-image an atomic
 *     revert writes back; for a namespace its name, labels and annotations; {@code null} when the
 *     adapter does not read it (storage classes)
 * @param stamp the ownership stamp it carries, or {@code null} when unowned
 * @param drift how the live object departs from what its stamp's revision applied (a field another
 *     manager took over, a field gone, content that hashes differently), or {@code null} when it
 *     does not, or the adapter cannot tell
 * @param uid the object's identity as the cluster assigned it (a re-created object has a new one),
 *     or {@code null} when the adapter does not report it
 * @param resourceVersion the version of the object as observed (any write changes it), or {@code
 *     null} when the adapter does not report it; together with {@code uid} the precondition of a
 *     write based on this observation
 * @param ensuredBy for a namespace, the releases ({@code namespace/name}) that ensure it and whose
 *     labels or annotations it holds (their field managers, {@code EnsuredNamespace.fieldManager}),
 *     sorted; empty otherwise, or when the adapter cannot tell
 * @param status the object's {@code status} as observed, for the kinds whose status a plan reads: a
 *     CustomResourceDefinition's ({@code storedVersions}, for the CRD safety gate); {@code null}
 *     for other kinds, or when the adapter does not report it
 * @param driftFields the fields Capstan applied that the object no longer holds as applied and that
 *     Capstan no longer owns, each with who holds it now, in the applied object's order; {@link
 *     #drift} describes the first. The planner judges them against the release's ignore rules.
 *     Empty when nothing moved, or when the adapter tells drift otherwise (then {@code drift} alone
 *     says how)
 */
public record LiveObject(
    ResourceRef ref,
    @Nullable Manifest content,
    @Nullable OwnershipStamp stamp,
    @Nullable String drift,
    @Nullable String uid,
    @Nullable String resourceVersion,
    List<String> ensuredBy,
    @Nullable Map<String, Object> status,
    List<FieldDrift> driftFields) {

  /** Requires the ref; content must match it; copies the status. */
  public LiveObject {
    requireNonNull(ref, "ref");
    if (content != null && !content.ref().equals(ref)) {
      throw new IllegalArgumentException(
          "live object content " + content.ref().key() + " does not match ref " + ref.key());
    }
    ensuredBy = List.copyOf(new java.util.TreeSet<>(ensuredBy));
    status = status == null ? null : Trees.copyObject(status, "status");
    driftFields = List.copyOf(driftFields);
  }

  /** An observed object whose drift, if any, is told by {@code drift} alone. */
  public LiveObject(
      ResourceRef ref,
      @Nullable Manifest content,
      @Nullable OwnershipStamp stamp,
      @Nullable String drift,
      @Nullable String uid,
      @Nullable String resourceVersion,
      List<String> ensuredBy,
      @Nullable Map<String, Object> status) {
    this(ref, content, stamp, drift, uid, resourceVersion, ensuredBy, status, List.of());
  }

  /** An observed object that no release ensures, whose status the adapter does not report. */
  public LiveObject(
      ResourceRef ref,
      @Nullable Manifest content,
      @Nullable OwnershipStamp stamp,
      @Nullable String drift,
      @Nullable String uid,
      @Nullable String resourceVersion) {
    this(ref, content, stamp, drift, uid, resourceVersion, List.of(), null);
  }

  /** An observed object whose uid and version the adapter does not report. */
  public LiveObject(
      ResourceRef ref,
      @Nullable Manifest content,
      @Nullable OwnershipStamp stamp,
      @Nullable String drift) {
    this(ref, content, stamp, drift, null, null);
  }

  /** A shared object (namespace, storage class) that exists, of which nothing else is known. */
  public static LiveObject present(ResourceRef ref) {
    return new LiveObject(ref, null, null, null);
  }

  /** The labels of {@link #content()}, or none when it is not known. */
  public java.util.SortedMap<String, String> labels() {
    return content == null ? java.util.Collections.emptySortedMap() : content.labels();
  }

  /** The annotations of {@link #content()}, or none when it is not known. */
  public java.util.SortedMap<String, String> annotations() {
    return content == null ? java.util.Collections.emptySortedMap() : content.annotations();
  }
}
