package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Copies;
import java.util.List;
import java.util.TreeSet;

/**
 * A Secret whose values a revision did not record ({@link ReleaseOptions#recordSecretValues()}
 * off): the record keeps its data keys and its keyed content hash, so a rollback can check the
 * values given again.
 *
 * @param ref the Secret
 * @param keys the names of its {@code data} and {@code stringData} entries, sorted
 * @param contentHash its content hash, keyed per release ({@link SecretHashKey})
 */
public record WithheldSecret(ResourceRef ref, List<String> keys, String contentHash) {
  /** Requires a Secret and a keyed hash; sorts the keys. */
  public WithheldSecret {
    requireNonNull(ref, "ref");
    if (!ref.kind().equals(Kind.SECRET)) {
      throw new IllegalArgumentException(
          "withheldSecrets: only a Secret's values are withheld: " + Escapes.quote(ref.key()));
    }
    keys = List.copyOf(new TreeSet<>(Copies.list(keys, "withheldSecrets[" + ref.key() + "].keys")));
    requireNonNull(contentHash, "contentHash");
    if (!ContentHash.isKeyed(contentHash)) {
      throw new IllegalArgumentException(
          "withheldSecrets["
              + ref.key()
              + "].contentHash must be hmac-sha256: and 64 hex digits: "
              + Escapes.quote(contentHash));
    }
  }

  /** The withheld form of a Secret object whose keyed hash is {@code keyedHash}. */
  public static WithheldSecret of(Manifest secret, String keyedHash) {
    TreeSet<String> keys = new TreeSet<>();
    for (String field : List.of("data", "stringData")) {
      if (secret.get(field) instanceof java.util.Map<?, ?> map) {
        map.keySet().forEach(k -> keys.add(String.valueOf(k)));
      }
    }
    return new WithheldSecret(secret.ref(), List.copyOf(keys), keyedHash);
  }
}
