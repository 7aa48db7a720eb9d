package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * One secret value: immutable bytes that never print. {@link #toString()} shows a mask, so a secret
 * can not leak through logging, exception messages or record {@code toString}.
 */
public final class SecretValue {
  private final byte[] bytes;

  private SecretValue(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A value holding the UTF-8 bytes of {@code text}. */
  public static SecretValue of(String text) {
    return new SecretValue(requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8));
  }

  /** A value holding a copy of {@code bytes}. */
  public static SecretValue ofBytes(byte[] bytes) {
    return new SecretValue(requireNonNull(bytes, "bytes").clone());
  }

  /** A value from its base64 form (as stored in records and Kubernetes Secrets). */
  public static SecretValue ofBase64(String base64) {
    return new SecretValue(Base64.getDecoder().decode(requireNonNull(base64, "base64")));
  }

  /** A copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The bytes decoded as UTF-8. */
  public String utf8() {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** The bytes in base64. */
  public String base64() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** The number of bytes. */
  public int length() {
    return bytes.length;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SecretValue other && MessageDigest.isEqual(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** Always a mask: {@code (secret, N bytes)}. */
  @Override
  public String toString() {
    return "(secret, " + bytes.length + " bytes)";
  }
}
