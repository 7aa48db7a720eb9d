package dev.capstan.release.memory;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An object, its stamp, the hash of its content, the content last written with a stamp ({@code
 * apply}, {@code put}) with its hash, and who wrote over the fields of that content since: they
 * differ once an out-of-band edit changed it, and it drifted when the edit changed or removed what
 * was applied ({@code AppliedFields}). Drift is not read from the stamp's hash, since a Secret's is
 * keyed per release. The applied content is {@code null} only in a state imported from before it
 * was kept (then any change is drift). The uid and version are what the API server would report.
 */
final class StoredObject {
  /** A writer of a field: its field manager, and the subresource it wrote through, if any. */
  record Writer(String manager, @Nullable String subresource) {}

  final Manifest content;
  final @Nullable OwnershipStamp stamp;
  final String hash;
  final String appliedHash;
  final @Nullable Manifest applied;
  final String uid;
  final long version;

  /**
   * Who last changed each field of {@link #applied} that now holds another value, by the field's
   * JSON pointer in it: what managed fields say on Kubernetes.
   */
  final Map<String, Writer> takenBy;

  StoredObject(
      Manifest content,
      @Nullable OwnershipStamp stamp,
      String hash,
      String appliedHash,
      @Nullable Manifest applied,
      String uid,
      long version) {
    this(content, stamp, hash, appliedHash, applied, uid, version, Map.of());
  }

  StoredObject(
      Manifest content,
      @Nullable OwnershipStamp stamp,
      String hash,
      String appliedHash,
      @Nullable Manifest applied,
      String uid,
      long version,
      Map<String, Writer> takenBy) {
    this.content = content;
    this.stamp = stamp;
    this.hash = hash;
    this.appliedHash = appliedHash;
    this.applied = applied;
    this.uid = uid;
    this.version = version;
    this.takenBy = Map.copyOf(takenBy);
  }
}
