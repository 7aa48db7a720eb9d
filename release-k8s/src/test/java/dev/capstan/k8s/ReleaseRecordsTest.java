package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReleaseRecordsTest {

  @Test
  void recordsSplitIntoChunksOfTheChunkSizeAndNameTheirDigest() {
    byte[] bytes = new byte[2500];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }

    RecordSecrets.Encoded e = RecordSecrets.Encoded.of(bytes, 1000);

    assertThat(e.chunks()).isEqualTo(3);
    assertThat(e.chunk(2)).hasSize(500).startsWith(bytes[2000]);
    assertThat(e.digest()).isEqualTo(e.sha256().substring(0, 16));
    assertThat(e.token("17")).isEqualTo("17:" + e.digest() + ":3");
    assertThat(RecordSecrets.Encoded.of(new byte[1000], 1000).chunks()).isZero();
    assertThat(RecordSecrets.Encoded.of(new byte[1000], 1000).token("9")).isEqualTo("9");
    assertThat(RecordSecrets.chunkName("web", 4, e.digest(), 2))
        .isEqualTo("capstan.release.v1.web.v4." + e.digest() + ".2");
  }

  /** The head Secret of {@code release} as the API server hands it back, at {@code version}. */
  private static V1Secret stored(Release release, String version) {
    RecordSecrets.Encoded e =
        RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(release), 1_000_000);
    V1Secret head = RecordSecrets.head(release, e, version);
    head.setData(new HashMap<>(head.getData()));
    return head;
  }

  /** Revision {@code revision} of shop/web, deployed, holding a ConfigMap of {@code keys} keys. */
  private static Release deployed(int revision, int keys) {
    return ReleaseRecordsIT.release(
        "shop",
        "web",
        revision,
        ReleaseStatus.DEPLOYED,
        Payloads.of(ReleaseRecordsIT.config("shop", keys)));
  }

  @Test
  void aRecordReadAgainIsDecodedOnceAndStillVerified() {
    DecodedRecords decoded = new DecodedRecords(dev.capstan.release.codec.RecordLimits.DEFAULT);
    Release v1 = deployed(1, 40);
    Release v2 = deployed(2, 41);

    StoredRelease first = RecordSecrets.decode(stored(v1, "7"), Map.of(), decoded);
    StoredRelease again = RecordSecrets.decode(stored(v1, "8"), Map.of(), decoded);
    StoredRelease other = RecordSecrets.decode(stored(v2, "9"), Map.of(), decoded);

    assertThat(first.release()).isEqualTo(v1);
    assertThat(again.release()).isSameAs(first.release());
    assertThat(again.version()).isEqualTo("8");
    assertThat(other.release()).isEqualTo(v2).isNotSameAs(first.release());
    assertThat(decoded.size()).isEqualTo(2);
    // a record whose bytes changed is verified, not served from what an earlier read decoded
    V1Secret tampered = stored(v1, "10");
    byte[] bytes = requireNonNull(tampered.getData().get(RecordSecrets.DATA_KEY)).clone();
    bytes[bytes.length / 2] ^= 1;
    tampered.getData().put(RecordSecrets.DATA_KEY, bytes);
    assertThatThrownBy(() -> RecordSecrets.decode(tampered, Map.of(), decoded))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageContaining("fails verification");
  }

  @Test
  void aRecordIsKnownWithoutItsBytesOnlyWhileItsSecretsAreAsTheyWereDecoded() {
    DecodedRecords decoded = new DecodedRecords(dev.capstan.release.codec.RecordLimits.DEFAULT);
    Release v1 = deployed(1, 40);
    V1Secret head = stored(v1, "7");
    head.getMetadata().uid("u-1");
    V1Secret listed = new V1Secret().metadata(head.getMetadata()); // the metadata alone

    assertThat(RecordSecrets.known(listed, name -> null, decoded)).isNull(); // never decoded

    StoredRelease read = RecordSecrets.decode(head, Map.of(), decoded);
    StoredRelease known = RecordSecrets.known(listed, name -> null, decoded);

    assertThat(known).isEqualTo(read);
    assertThat(requireNonNull(known).release()).isSameAs(read.release());
    // written since (a new resourceVersion), or recreated (a new uid): not known
    V1Secret rewritten = new V1Secret().metadata(stored(v1, "8").getMetadata().uid("u-1"));
    assertThat(RecordSecrets.known(rewritten, name -> null, decoded)).isNull();
    V1Secret recreated = new V1Secret().metadata(stored(v1, "7").getMetadata().uid("u-2"));
    assertThat(RecordSecrets.known(recreated, name -> null, decoded)).isNull();
    // a head without a uid (not from the API server) is never known
    V1Secret noUid = stored(v1, "7");
    RecordSecrets.decode(noUid, Map.of(), decoded);
    assertThat(RecordSecrets.known(noUid, name -> null, decoded)).isNull();
  }

  @Test
  void aChunkedRecordIsKnownOnlyWhileEveryChunkIsAsItWasDecoded() {
    DecodedRecords decoded = new DecodedRecords(dev.capstan.release.codec.RecordLimits.DEFAULT);
    Release v1 = deployed(1, 400);
    RecordSecrets.Encoded e = RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(v1), 1000);
    V1Secret head = RecordSecrets.head(v1, e, "7");
    head.getMetadata().uid("u-head");
    Map<String, V1Secret> chunks = new HashMap<>();
    Map<String, V1ObjectMeta> listed = new HashMap<>();
    for (int i = 0; i < e.chunks(); i++) {
      String name = RecordSecrets.chunkName("web", 1, e.digest(), i);
      V1Secret chunk = RecordSecrets.chunk(v1, e, i, name);
      chunk.getMetadata().uid("u-" + i).resourceVersion(String.valueOf(20 + i));
      chunks.put(name, chunk);
      listed.put(name, chunk.getMetadata());
    }
    assertThat(e.chunks()).isGreaterThan(1);

    StoredRelease read = RecordSecrets.decode(head, chunks, decoded);

    assertThat(RecordSecrets.known(head, listed::get, decoded)).isEqualTo(read);
    String first = RecordSecrets.chunkName("web", 1, e.digest(), 0);
    V1ObjectMeta firstChunk = requireNonNull(listed.remove(first));
    assertThat(RecordSecrets.known(head, listed::get, decoded)).isNull(); // a chunk not listed
    listed.put(first, new V1ObjectMeta().name(first).uid("u-0").resourceVersion("99"));
    assertThat(RecordSecrets.known(head, listed::get, decoded)).isNull(); // a chunk written since
    listed.put(first, firstChunk);
    assertThat(RecordSecrets.known(head, listed::get, decoded)).isEqualTo(read);
  }

  @Test
  void versionTokensParse() {
    assertThat(RecordSecrets.Token.parse("17")).isEqualTo(new RecordSecrets.Token("17", "", 0));
    assertThat(RecordSecrets.Token.parse("17:abcd:3"))
        .isEqualTo(new RecordSecrets.Token("17", "abcd", 3));
    assertThatThrownBy(() -> RecordSecrets.Token.parse("17:abcd"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "record version must be RESOURCE_VERSION or RESOURCE_VERSION:DIGEST:CHUNKS: '17:abcd'");
  }

  @Test
  void leasesLastWholeSecondsFromTheirLastRenewal() {
    assertThat(ReleaseLeases.seconds(Duration.ofMillis(1500))).isEqualTo(2);
    assertThat(ReleaseLeases.seconds(Duration.ofMinutes(2))).isEqualTo(120);
    assertThat(ReleaseLeases.seconds(Duration.ofMillis(1))).isEqualTo(1);
    Instant acquired = Instant.parse("2030-01-01T00:00:00Z");
    V1Lease lease =
        new V1Lease()
            .spec(
                new V1LeaseSpec()
                    .holderIdentity("caster-a")
                    .acquireTime(OffsetDateTime.ofInstant(acquired, ZoneOffset.UTC))
                    .renewTime(OffsetDateTime.ofInstant(acquired.plusSeconds(30), ZoneOffset.UTC))
                    .leaseDurationSeconds(60));

    assertThat(ReleaseLeases.held(lease))
        .isEqualTo(
            new dev.capstan.release.model.Lease("caster-a", acquired, acquired.plusSeconds(90)));
    assertThat(ReleaseLeases.held(lease.spec(lease.getSpec().holderIdentity(null)))).isNull();
  }
}
