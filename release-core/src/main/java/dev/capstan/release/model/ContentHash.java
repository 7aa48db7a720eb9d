package dev.capstan.release.model;

import dev.capstan.common.JsonMappers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Content hashes: {@code sha256:} and the hex SHA-256 of an object's canonical JSON (keys sorted,
 * no insignificant whitespace, absent optional fields left out). Equal specs have equal hashes on
 * every machine, so a hash stamped on a live object tells whether it still holds what was applied.
 */
public final class ContentHash {
  /** The prefix of every hash. */
  public static final String PREFIX = "sha256:";

  /** The prefix of a Secret's hash keyed per release ({@link SecretHashKey}). */
  public static final String KEYED_PREFIX = "hmac-sha256:";

  private ContentHash() {}

  /** The content hash of an object. */
  public static String of(Manifest object) {
    return PREFIX + sha256Hex(JsonMappers.canonical(object.content()));
  }

  /**
   * The content hash of an item that renders to one object (a secret, configmap, volume or
   * manifest; for a service, of its Deployment).
   */
  public static String of(ResourceSpec spec) {
    return of(spec.render().get(0));
  }

  /** The canonical JSON of an object, the text that {@link #of(Manifest)} hashes. */
  public static String canonicalJson(Manifest object) {
    return new String(JsonMappers.canonical(object.content()), StandardCharsets.UTF_8);
  }

  /**
   * Whether {@code hash} has the form this class produces, or the form of a Secret's keyed hash
   * ({@link SecretHashKey}).
   */
  public static boolean isValid(String hash) {
    return hasForm(hash, PREFIX) || isKeyed(hash);
  }

  /** Whether {@code hash} is a Secret's hash keyed per release ({@link SecretHashKey}). */
  public static boolean isKeyed(String hash) {
    return hasForm(hash, KEYED_PREFIX);
  }

  private static boolean hasForm(String hash, String prefix) {
    return hash.length() == prefix.length() + 64
        && hash.startsWith(prefix)
        && hash.substring(prefix.length()).chars().allMatch(c -> Character.digit(c, 16) >= 0);
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
