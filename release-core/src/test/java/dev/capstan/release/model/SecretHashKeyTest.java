package dev.capstan.release.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretHashKeyTest {
  private static final Manifest SECRET =
      SecretSpec.of("shop", "db", Map.of("password", "hunter2")).render().get(0);

  @Test
  void aKeyedHashCannotBeGuessedWithoutTheKeyAndVerifiesWithIt() {
    SecretHashKey key = SecretHashKey.generate();
    SecretHashKey other = SecretHashKey.generate();

    String hash = key.hash(SECRET);

    assertThat(hash).matches("hmac-sha256:[0-9a-f]{64}");
    assertThat(ContentHash.isKeyed(hash)).isTrue();
    assertThat(ContentHash.isValid(hash)).isTrue();
    // an attacker's guess: the plain hash of the same values, or the HMAC under another key
    assertThat(hash).isNotEqualTo(ContentHash.of(SECRET));
    assertThat(hash.substring("hmac-sha256:".length()))
        .isNotEqualTo(ContentHash.of(SECRET).substring("sha256:".length()));
    assertThat(other.hash(SECRET)).isNotEqualTo(hash);
    assertThat(key.verifies(SECRET, hash)).isTrue();
    assertThat(other.verifies(SECRET, hash)).isFalse();
    Manifest guess = SecretSpec.of("shop", "db", Map.of("password", "hunter3")).render().get(0);
    assertThat(key.verifies(guess, hash)).isFalse();
  }

  @Test
  void theSameValuesInTwoReleasesHashDifferentlyAndOneKeyIsStable() {
    SecretHashKey first = SecretHashKey.generate();
    SecretHashKey second = SecretHashKey.generate();

    assertThat(first.hash(SECRET)).isNotEqualTo(second.hash(SECRET));
    assertThat(first.hash(SECRET)).isEqualTo(first.hash(SECRET));
    assertThat(SecretHashKey.ofBase64(first.toBase64()).hash(SECRET)).isEqualTo(first.hash(SECRET));
  }

  @Test
  void theHmacIsOfThePlainContentHashSoASpecAloneCanBeKeyed() throws Exception {
    byte[] raw = new byte[32];
    raw[0] = 1;
    SecretHashKey key = SecretHashKey.ofBase64(Base64.getEncoder().encodeToString(raw));
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(raw, "HmacSHA256"));
    String expected =
        "hmac-sha256:"
            + java.util.HexFormat.of()
                .formatHex(
                    mac.doFinal(
                        ContentHash.of(SECRET).getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    assertThat(key.keyed(ContentHash.of(SECRET))).isEqualTo(expected);
    assertThat(key.hash(SECRET)).isEqualTo(expected);
    assertThat(key.keyed(expected)).isEqualTo(expected);
  }

  @Test
  void theKeyNeverPrintsAndBadKeysAreRefusedWithoutEchoingThem() {
    SecretHashKey key = SecretHashKey.generate();

    assertThat(key.toString()).isEqualTo("SecretHashKey(hidden)");
    assertThat(Base64.getDecoder().decode(key.toBase64())).hasSize(32);
    assertThat(key).isEqualTo(SecretHashKey.ofBase64(key.toBase64()));
    assertThatThrownBy(() -> SecretHashKey.ofBase64("c2hvcnQ="))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("secret hash key must be 32 bytes: 5 bytes given");
    assertThatThrownBy(() -> SecretHashKey.ofBase64("not base64!"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("secret hash key must be base64 (value not shown)");
    assertThatThrownBy(() -> key.keyed("md5:abc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a content hash must be sha256: and 64 hex digits to be keyed: 'md5:abc'");
  }
}
