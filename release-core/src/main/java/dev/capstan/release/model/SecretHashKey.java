package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * A release's key for the content hashes of its Secrets: 32 random bytes, made at the release's
 * first cast and kept in its record. A Secret's content hash is {@code hmac-sha256:} and the hex
 * HMAC-SHA256, under this key, of its plain {@link ContentHash} ({@code sha256:...}). Whoever can
 * read the Secret object (its {@code capstan.dev/content-hash} annotation) but not the record
 * cannot test guesses of its values; the same values in two releases hash differently.
 *
 * <p>The key never prints: {@link #toString()} is a mask, and only the record codec writes {@link
 * #toBase64()}.
 */
public final class SecretHashKey {
  /** The key length in bytes. */
  public static final int LENGTH = 32;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ALGORITHM = "HmacSHA256";

  private final byte[] bytes;

  private SecretHashKey(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A new random key from {@link SecureRandom}. */
  public static SecretHashKey generate() {
    byte[] bytes = new byte[LENGTH];
    RANDOM.nextBytes(bytes);
    return new SecretHashKey(bytes);
  }

  /**
   * The key in {@code base64} (as the record holds it).
   *
   * @throws IllegalArgumentException if it is not base64 of {@value #LENGTH} bytes (the value is
   *     not echoed: it is a key)
   */
  public static SecretHashKey ofBase64(String base64) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(requireNonNull(base64, "base64"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("secret hash key must be base64 (value not shown)", e);
    }
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException(
          "secret hash key must be " + LENGTH + " bytes: " + bytes.length + " bytes given");
    }
    return new SecretHashKey(bytes);
  }

  /** The key in base64, for the record codec only: whoever holds it can test guesses. */
  public String toBase64() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * The keyed content hash of a Secret whose plain {@link ContentHash} is {@code plainHash}; a hash
   * that is already keyed is returned as it is.
   *
   * @throws IllegalArgumentException if {@code plainHash} is not a content hash
   */
  public String keyed(String plainHash) {
    if (ContentHash.isKeyed(plainHash)) {
      return plainHash;
    }
    if (!ContentHash.isValid(plainHash)) {
      throw new IllegalArgumentException(
          "a content hash must be sha256: and 64 hex digits to be keyed: "
              + Escapes.quote(plainHash));
    }
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(bytes, ALGORITHM));
      byte[] digest = mac.doFinal(plainHash.getBytes(StandardCharsets.US_ASCII));
      return ContentHash.KEYED_PREFIX + HexFormat.of().formatHex(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
    }
  }

  /** The keyed content hash of a Secret object. */
  public String hash(Manifest secret) {
    return keyed(ContentHash.of(secret));
  }

  /** Whether {@code keyedHash} is this key's hash of {@code secret} (compared in constant time). */
  public boolean verifies(Manifest secret, String keyedHash) {
    return MessageDigest.isEqual(
        hash(secret).getBytes(StandardCharsets.US_ASCII),
        keyedHash.getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SecretHashKey other && MessageDigest.isEqual(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** Always a mask: the key never prints. */
  @Override
  public String toString() {
    return "SecretHashKey(hidden)";
  }
}
