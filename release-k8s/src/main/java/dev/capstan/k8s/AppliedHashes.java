package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.capstan.release.model.Kind;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The content hash of what Capstan applied, rebuilt from a live object ({@link
 * AppliedFieldsOf#hash}), remembered by the object's uid and resourceVersion: the API server never
 * stores two contents under one resourceVersion of one object, so a hash rebuilt once holds for as
 * long as the object is not written. A process that observes the same objects again (the daemon's
 * next cast, the controller's next reconcile, a host's re-cast) then cuts, serializes and hashes
 * only the objects written since. At most {@value #CAPACITY} hashes are kept, the least recently
 * used dropped first; an object without a uid or resourceVersion is hashed every time.
 */
final class AppliedHashes {
  /** How many hashes are kept at most. */
  static final int CAPACITY = 4096;

  private record Key(
      String uid, String resourceVersion, String apiVersion, String manager, Kind kind) {}

  /** What a hash rebuilt to: {@code null} when nothing of the manager's could be rebuilt. */
  private record Rebuilt(@Nullable String hash) {}

  private static final Map<Key, Rebuilt> KEPT =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Rebuilt> eldest) {
          return size() > CAPACITY;
        }
      };

  private AppliedHashes() {}

  /**
   * The content hash of {@code object} cut to the fields {@code manager} owns through {@code Apply}
   * ({@code entries}, its managedFields), or {@code null} when it owns none or the cut rebuilds to
   * no manifest of {@code kind}.
   */
  static @Nullable String of(JsonObject object, JsonArray entries, String manager, Kind kind) {
    String uid = JsonTrees.text(object, "metadata", "uid");
    String version = JsonTrees.text(object, "metadata", "resourceVersion");
    String apiVersion = JsonTrees.text(object, "apiVersion");
    if (uid == null || version == null || apiVersion == null) {
      return rebuild(object, entries, manager, kind);
    }
    Key key = new Key(uid, version, apiVersion, manager, kind);
    Rebuilt kept;
    synchronized (KEPT) {
      kept = KEPT.get(key);
    }
    if (kept == null) {
      kept = new Rebuilt(rebuild(object, entries, manager, kind));
      synchronized (KEPT) {
        KEPT.put(key, kept);
      }
    }
    return kept.hash();
  }

  private static @Nullable String rebuild(
      JsonObject object, JsonArray entries, String manager, Kind kind) {
    JsonObject fields = AppliedFieldsOf.owned(entries, manager);
    return fields == null ? null : AppliedFieldsOf.hash(object, fields, kind);
  }
}
