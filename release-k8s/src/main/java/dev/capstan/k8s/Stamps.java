package dev.capstan.k8s;

import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The ownership stamp as Kubernetes metadata. Annotations are authoritative (any value fits):
 * {@value #RELEASE} ({@code namespace/name}), {@value #RELEASE_ID}, {@value #REVISION} and {@value
 * #CONTENT_HASH}. Labels make owned objects selectable: {@value #MANAGED_BY}{@code =capstan}
 * always, and {@value #LABEL_NAMESPACE}, {@value #LABEL_NAME}, {@value #LABEL_ID} when the value is
 * a valid label value (a custom release id may not be).
 */
final class Stamps {
  static final String PREFIX = "capstan.dev/";
  static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  /** The field manager of every write the release adapters make. */
  static final String MANAGER_NAME = OwnershipStamp.MANAGER;

  static final String RELEASE = PREFIX + "release";
  static final String RELEASE_ID = PREFIX + "release-id";
  static final String REVISION = PREFIX + "revision";
  static final String CONTENT_HASH = PREFIX + "content-hash";

  static final String LABEL_NAMESPACE = PREFIX + "release-namespace";
  static final String LABEL_NAME = PREFIX + "release-name";
  static final String LABEL_ID = PREFIX + "release-id";

  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  private Stamps() {}

  /** Adds the stamp's labels to {@code labels} and its annotations to {@code annotations}. */
  static void write(
      OwnershipStamp stamp, Map<String, String> labels, Map<String, String> annotations) {
    ReleaseIdentity owner = stamp.owner();
    labels.putIfAbsent(MANAGED_BY, stamp.manager());
    putLabel(labels, LABEL_NAMESPACE, owner.namespace());
    putLabel(labels, LABEL_NAME, owner.name());
    putLabel(labels, LABEL_ID, owner.id());
    annotations.put(RELEASE, owner.qualifiedName());
    annotations.put(RELEASE_ID, owner.id());
    annotations.put(REVISION, Integer.toString(stamp.revision()));
    annotations.put(CONTENT_HASH, stamp.contentHash());
  }

  /**
   * The label selector of the objects {@code owner} stamps: each of its labels that {@link #write}
   * sets, or {@code null} when it sets none (no part of the identity is a valid label value).
   */
  static @Nullable String selector(ReleaseIdentity owner) {
    Map<String, String> labels = new TreeMap<>();
    putLabel(labels, LABEL_NAMESPACE, owner.namespace());
    putLabel(labels, LABEL_NAME, owner.name());
    putLabel(labels, LABEL_ID, owner.id());
    if (labels.isEmpty()) {
      return null;
    }
    StringBuilder selector = new StringBuilder();
    labels.forEach(
        (key, value) ->
            selector
                .append(selector.length() == 0 ? "" : ",")
                .append(key)
                .append('=')
                .append(value));
    return selector.toString();
  }

  private static void putLabel(Map<String, String> labels, String key, String value) {
    if (value.length() <= 63 && LABEL_VALUE.matcher(value).matches()) {
      labels.put(key, value);
    }
  }

  /** The stamp an object's metadata carries, or {@code null} when it has none (or a broken one). */
  static @Nullable OwnershipStamp read(@Nullable V1ObjectMeta metadata) {
    return metadata == null ? null : read(metadata.getAnnotations());
  }

  /** The stamp in these annotations, or {@code null}. */
  static @Nullable OwnershipStamp read(@Nullable Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    String release = annotations.get(RELEASE);
    String id = annotations.get(RELEASE_ID);
    String revision = annotations.get(REVISION);
    String hash = annotations.get(CONTENT_HASH);
    if (release == null || id == null || id.isEmpty() || revision == null || hash == null) {
      return null;
    }
    int slash = release.indexOf('/');
    if (slash <= 0 || slash == release.length() - 1 || !ContentHash.isValid(hash)) {
      return null;
    }
    try {
      int rev = Integer.parseInt(revision);
      if (rev < 1) {
        return null;
      }
      return OwnershipStamp.of(
          new ReleaseIdentity(release.substring(0, slash), release.substring(slash + 1), id),
          rev,
          hash);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Whether the metadata carries a stamp of {@code owner}. */
  static boolean ownedBy(@Nullable V1ObjectMeta metadata, ReleaseIdentity owner) {
    OwnershipStamp stamp = read(metadata);
    return stamp != null && stamp.ownedBy(owner);
  }

  /** Whether a label key belongs to the stamp (and so is no user label). */
  static boolean isStampLabel(String key, String value) {
    return key.startsWith(PREFIX)
        || (key.equals(MANAGED_BY) && value.equals(OwnershipStamp.MANAGER));
  }

  /** Whether an annotation key is Capstan's (stamp or representation), so no user annotation. */
  static boolean isCapstanAnnotation(String key) {
    return key.startsWith(PREFIX);
  }

  /**
   * The user labels among {@code labels}: without the stamp's, and (for an object Capstan manages)
   * only those Capstan applied.
   */
  static SortedMap<String, String> userLabels(
      @Nullable Map<String, String> labels, OwnedFields owned) {
    return userEntries(labels, owned.at("f:metadata", "f:labels"), Stamps::isStampLabel);
  }

  /** The user annotations among {@code annotations}; see {@link #userLabels}. */
  static SortedMap<String, String> userAnnotations(
      @Nullable Map<String, String> annotations, OwnedFields owned) {
    return userEntries(
        annotations, owned.at("f:metadata", "f:annotations"), (k, v) -> isCapstanAnnotation(k));
  }

  private static SortedMap<String, String> userEntries(
      @Nullable Map<String, String> entries,
      OwnedFields owned,
      BiPredicate<String, String> capstans) {
    SortedMap<String, String> out = new TreeMap<>();
    if (entries != null) {
      entries.forEach(
          (k, v) -> {
            if (!capstans.test(k, v) && owned.ownsKey(k)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  /**
   * The JSON merge patch that removes the stamp (labels and annotations) from an object still at
   * {@code resourceVersion}, keeping the annotations in {@code keep}.
   */
  static String removalPatch(V1ObjectMeta metadata, String resourceVersion, Set<String> keep) {
    JsonObject labels = new JsonObject();
    if (metadata.getLabels() != null) {
      metadata
          .getLabels()
          .forEach(
              (k, v) -> {
                if (isStampLabel(k, v)) {
                  labels.add(k, JsonNull.INSTANCE);
                }
              });
    }
    JsonObject annotations = new JsonObject();
    if (metadata.getAnnotations() != null) {
      metadata.getAnnotations().keySet().stream()
          .filter(k -> isCapstanAnnotation(k) && !keep.contains(k))
          .forEach(k -> annotations.add(k, JsonNull.INSTANCE));
    }
    JsonObject meta = new JsonObject();
    meta.addProperty("resourceVersion", resourceVersion);
    meta.add("labels", labels);
    meta.add("annotations", annotations);
    JsonObject patch = new JsonObject();
    patch.add("metadata", meta);
    return patch.toString(); // JsonElement.toString keeps the nulls that delete keys
  }

  /**
   * Metadata holding every stamp label and annotation, for {@link #removalPatch} of an object known
   * (from an observation) to carry a stamp, without reading it again: the patch removes each key,
   * and removing a key that is not there changes nothing.
   */
  static V1ObjectMeta stampOnly() {
    Map<String, String> labels = new TreeMap<>();
    labels.put(MANAGED_BY, OwnershipStamp.MANAGER);
    for (String key : List.of(LABEL_NAMESPACE, LABEL_NAME, LABEL_ID)) {
      labels.put(key, "");
    }
    Map<String, String> annotations = new TreeMap<>();
    for (String key : List.of(RELEASE, RELEASE_ID, REVISION, CONTENT_HASH)) {
      annotations.put(key, "");
    }
    return new V1ObjectMeta().labels(labels).annotations(annotations);
  }

  /** The annotation {@code key} of {@code metadata}, or {@code null}. */
  static @Nullable String annotation(@Nullable V1ObjectMeta metadata, String key) {
    return metadata == null || metadata.getAnnotations() == null
        ? null
        : metadata.getAnnotations().get(key);
  }
}
