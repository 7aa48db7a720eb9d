package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Store;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What an operation is about to do, kept with its lease by a store that {@linkplain
 * Store#keepsLeaseIntents() keeps intents}, so that whoever takes the lease over after it expired
 * can record what was interrupted. Every operation names its attempt, an id the records it writes
 * carry too ({@code Release.attempt}): whoever takes the lease over knows the holder recorded its
 * outcome exactly when the latest record names that attempt. A cast names the release id it records
 * a first revision under and every object it may write; it then records its revision once, when it
 * ends. An uninstall names nothing more.
 *
 * <p>Encoded as JSON, e.g. {@code {"v":1,"operation":"cast","attempt":"9f2c...","releaseId":"...",
 * "objects":["apps/Deployment/shop/web"]}}. No content hash goes in: a Secret's plain hash would
 * leave the release's keyed hashes ({@code SecretHashKey}).
 *
 * @param operation what the holder does
 * @param attempt the id of this attempt, or {@code null} in an intent an earlier Capstan wrote
 * @param releaseId the id a cast records when the release has no record yet, or {@code null}
 * @param source the source a cast records, or {@code null}
 * @param version the version label a cast records, or {@code null}
 * @param objects the objects a cast may write, in the spec's order ({@link ResourceRef#key()})
 */
record LeaseIntent(
    Operation operation,
    @Nullable String attempt,
    @Nullable String releaseId,
    @Nullable String source,
    @Nullable String version,
    List<ResourceRef> objects) {

  /** What the holder of a lease does. */
  enum Operation {
    CAST,
    UNINSTALL
  }

  private static final int VERSION = 1;

  /** Requires the operation; copies the objects. */
  LeaseIntent {
    requireNonNull(operation, "operation");
    objects = List.copyOf(objects);
  }

  /**
   * A cast of {@code spec}, as a new attempt, under release id {@code releaseId} when it records
   * the first revision.
   */
  static LeaseIntent cast(String releaseId, ReleaseSpec spec) {
    return cast(newAttempt(), releaseId, spec);
  }

  /** A cast of {@code spec} as attempt {@code attempt}, as {@link #cast(String, ReleaseSpec)}. */
  static LeaseIntent cast(String attempt, String releaseId, ReleaseSpec spec) {
    return new LeaseIntent(
        Operation.CAST,
        requireNonNull(attempt, "attempt"),
        requireNonNull(releaseId, "releaseId"),
        spec.source(),
        spec.version(),
        spec.resources().stream().map(DesiredResource::ref).toList());
  }

  /** An uninstall, as a new attempt. */
  static LeaseIntent uninstall() {
    return uninstall(newAttempt());
  }

  /** An uninstall as attempt {@code attempt}. */
  static LeaseIntent uninstall(String attempt) {
    return new LeaseIntent(
        Operation.UNINSTALL, requireNonNull(attempt, "attempt"), null, null, null, List.of());
  }

  /**
   * A new attempt id: 16 random hex digits, drawn per operation (not from the controller's id
   * source, which a host may make deterministic), so two attempts of one release never share one.
   */
  static String newAttempt() {
    return String.format(
        java.util.Locale.ROOT,
        "%016x",
        java.util.concurrent.ThreadLocalRandom.current().nextLong());
  }

  /**
   * Whether {@code latest}, the release's latest record as the lease's next holder reads it, is
   * this attempt's: the holder recorded its outcome before it stopped. An intent an earlier Capstan
   * wrote names no attempt; its holder then recorded its revision with {@code createdAt} the
   * instant it took the lease ({@code acquiredAt}).
   */
  boolean recordedBy(@Nullable Release latest, Instant acquiredAt) {
    if (latest == null) {
      return false;
    }
    return attempt != null
        ? attempt.equals(latest.attempt())
        : latest.createdAt().equals(acquiredAt);
  }

  /** Whether every one of {@code refs} is among this cast's objects. */
  boolean covers(Collection<ResourceRef> refs) {
    Set<ResourceRef> named = new HashSet<>(objects);
    return operation == Operation.CAST && named.containsAll(refs);
  }

  /**
   * The intent as the store keeps it, or {@code null} when it is longer than {@link
   * Store#MAX_LEASE_INTENT} characters (the operation then records its intent as a revision).
   */
  @Nullable String encode() {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("v", VERSION);
    node.put("operation", operation.name().toLowerCase(java.util.Locale.ROOT));
    if (attempt != null) {
      node.put("attempt", attempt);
    }
    if (releaseId != null) {
      node.put("releaseId", releaseId);
    }
    if (source != null) {
      node.put("source", source);
    }
    if (version != null) {
      node.put("version", version);
    }
    if (!objects.isEmpty()) {
      ArrayNode keys = node.putArray("objects");
      objects.forEach(ref -> keys.add(ref.key()));
    }
    String text = new String(Json.canonical(node), StandardCharsets.UTF_8);
    return text.length() > Store.MAX_LEASE_INTENT ? null : text;
  }

  /**
   * The intent {@code text} names, or {@code null} when there is none or it cannot be read (written
   * by a later version of Capstan, or not by Capstan): the lease's takeover then records only what
   * a pending revision says.
   */
  static @Nullable LeaseIntent decode(@Nullable String text) {
    if (text == null) {
      return null;
    }
    try {
      JsonNode node = Json.mapper().readTree(text);
      if (node == null || node.path("v").asInt() != VERSION) {
        return null;
      }
      Operation operation =
          switch (node.path("operation").asText()) {
            case "cast" -> Operation.CAST;
            case "uninstall" -> Operation.UNINSTALL;
            default -> null;
          };
      if (operation == null) {
        return null;
      }
      JsonNode id = node.get("releaseId");
      List<ResourceRef> objects = new ArrayList<>();
      for (JsonNode key : node.path("objects")) {
        objects.add(ResourceRef.parse(key.asText()));
      }
      if (operation == Operation.CAST && (id == null || !id.isTextual() || id.asText().isEmpty())) {
        return null;
      }
      return new LeaseIntent(
          operation,
          text(node.get("attempt")),
          id == null ? null : id.asText(),
          text(node.get("source")),
          text(node.get("version")),
          objects);
    } catch (java.io.IOException | IllegalArgumentException e) {
      return null;
    }
  }

  private static @Nullable String text(@Nullable JsonNode node) {
    return node == null || !node.isTextual() ? null : node.asText();
  }
}
