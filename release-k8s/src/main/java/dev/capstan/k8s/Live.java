package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.gson.JsonObject;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.plan.LiveObject;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Helpers shared by the object mappings: live objects, metadata, quantities. */
final class Live {
  private Live() {}

  /**
   * The live object for a reconstruction. When the live content cannot be expressed as a spec (a
   * value Capstan would never write), the spec is {@code null} and the observed hash is the hash of
   * the raw object, which no desired hash equals: the plan shows drift and repairs it.
   */
  static LiveObject object(
      ResourceRef ref,
      @Nullable OwnershipStamp stamp,
      JsonObject raw,
      Supplier<? extends ResourceSpec> reconstruct) {
    ResourceSpec spec;
    try {
      spec = reconstruct.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      return new LiveObject(ref, null, stamp, rawHash(raw));
    }
    return new LiveObject(ref, spec, stamp, ContentHash.of(spec));
  }

  /** {@code sha256:} and the hex SHA-256 of an object's JSON. */
  static String rawHash(JsonObject raw) {
    try {
      return ContentHash.PREFIX
          + HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256").digest(raw.toString().getBytes(UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * Metadata for an object Capstan writes: name, namespace, the user's labels and annotations, the
   * stamp (when given) and Capstan's representation annotations.
   */
  static V1ObjectMeta metadata(
      ResourceSpec spec, @Nullable OwnershipStamp stamp, Map<String, String> representation) {
    Map<String, String> labels = new LinkedHashMap<>(spec.labels());
    Map<String, String> annotations = new LinkedHashMap<>(spec.annotations());
    annotations.putAll(representation);
    if (stamp != null) {
      Stamps.write(stamp, labels, annotations);
    }
    return new V1ObjectMeta()
        .name(spec.name())
        .namespace(spec.namespace())
        .labels(labels)
        .annotations(annotations);
  }

  /**
   * A quantity as the spec spelled it, when the live value is the same number: the API server
   * rewrites {@code 1000m} as {@code 1} and {@code 1.5Gi} as {@code 1536Mi}, which is no drift.
   */
  static @Nullable String quantity(@Nullable Quantity live, @Nullable String spelled) {
    if (live == null) {
      return null;
    }
    if (spelled != null) {
      try {
        if (new Quantity(spelled).getNumber().compareTo(live.getNumber()) == 0) {
          return spelled;
        }
      } catch (RuntimeException notAQuantity) {
        // fall through to the live value
      }
    }
    return live.toSuffixedString();
  }

  /** An annotation value, or {@code null}. */
  static @Nullable String annotation(@Nullable V1ObjectMeta metadata, String key) {
    return metadata == null || metadata.getAnnotations() == null
        ? null
        : metadata.getAnnotations().get(key);
  }
}
