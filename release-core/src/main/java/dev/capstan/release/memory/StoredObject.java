package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An object, its stamp, the hash of its content, and the content last written with a stamp ({@code
 * apply}, {@code put}) with its hash: they differ once an out-of-band edit changed it, and it
 * drifted when the edit changed what was applied ({@link #holds}). Drift is not read from the
 * stamp's hash, since a Secret's is keyed per release. The applied content is {@code null} only in
 * a state imported from before it was kept (then any change is drift). The uid and version are what
 * the API server would report.
 */
final class StoredObject {
  final Manifest content;
  final @Nullable OwnershipStamp stamp;
  final String hash;
  final String appliedHash;
  final @Nullable Manifest applied;
  final String uid;
  final long version;

  StoredObject(
      Manifest content,
      @Nullable OwnershipStamp stamp,
      String hash,
      String appliedHash,
      @Nullable Manifest applied,
      String uid,
      long version) {
    this.content = content;
    this.stamp = stamp;
    this.hash = hash;
    this.appliedHash = appliedHash;
    this.applied = applied;
    this.uid = uid;
    this.version = version;
  }

  /**
   * Whether the live tree still holds every value the applied one set: maps key by key (an empty
   * map or list applied holds nothing, so a writer may fill it), lists whose items all carry a
   * {@code name} item by name, other lists and values as a whole.
   */
  static boolean holds(@Nullable Object live, @Nullable Object applied) {
    if (applied instanceof Map<?, ?> want) {
      if (want.isEmpty()) {
        return true;
      }
      if (!(live instanceof Map<?, ?> have)) {
        return false;
      }
      for (Map.Entry<?, ?> e : want.entrySet()) {
        if (!holds(have.get(e.getKey()), e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (applied instanceof List<?> want) {
      if (want.isEmpty()) {
        return true;
      }
      if (!(live instanceof List<?> have)) {
        return false;
      }
      if (!want.stream()
          .allMatch(i -> i instanceof Map<?, ?> m && m.get("name") instanceof String)) {
        return want.equals(have);
      }
      for (Object item : want) {
        Object name = requireNonNull(((Map<?, ?>) item).get("name"));
        Object match =
            have.stream()
                .filter(i -> i instanceof Map<?, ?> m && name.equals(m.get("name")))
                .findFirst()
                .orElse(null);
        if (!holds(match, item)) {
          return false;
        }
      }
      return true;
    }
    return applied == null || applied.equals(live);
  }
}
