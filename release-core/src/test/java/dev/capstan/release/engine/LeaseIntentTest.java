package dev.capstan.release.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a lease says an operation is about to do, as the store keeps it, and back. */
class LeaseIntentTest {
  private static final ResourceRef A = ResourceRef.of(Kind.CONFIG_MAP, "shop", "a");
  private static final ResourceRef B = ResourceRef.of(Kind.CONFIG_MAP, "shop", "b");

  @Test
  void aCastNamesItsObjectsItsReleaseIdSourceAndVersionAndReadsBackTheSame() {
    Payloads payloads =
        Payloads.of(
            ConfigMapSpec.of("shop", "a", Map.of("k", "v")),
            ConfigMapSpec.of("shop", "b", Map.of("k", "v")));
    ReleaseSpec spec =
        ReleaseSpec.of("shop", "web", payloads).withSource("oci://charts/web").withVersion("1.2");

    LeaseIntent intent = LeaseIntent.cast("0123456789abcdef", "id-7", spec);
    String text = intent.encode();

    assertThat(text)
        .isEqualTo(
            "{\"v\":1,\"operation\":\"cast\",\"attempt\":\"0123456789abcdef\",\"releaseId\":\"id-7\","
                + "\"source\":\"oci://charts/web\",\"version\":\"1.2\","
                + "\"objects\":[\"ConfigMap/shop/a\",\"ConfigMap/shop/b\"]}");
    assertThat(LeaseIntent.decode(text)).isEqualTo(intent);
    assertThat(intent.covers(List.of(B))).isTrue();
    assertThat(intent.covers(List.of(A, ResourceRef.of(Kind.SECRET, "shop", "a")))).isFalse();
  }

  @Test
  void anUninstallNamesNothingMoreAndCoversNoObject() {
    String text = LeaseIntent.uninstall("00000000000000ff").encode();

    assertThat(text)
        .isEqualTo("{\"v\":1,\"operation\":\"uninstall\",\"attempt\":\"00000000000000ff\"}");
    assertThat(LeaseIntent.decode(text)).isEqualTo(LeaseIntent.uninstall("00000000000000ff"));
    assertThat(LeaseIntent.uninstall().covers(List.of())).isFalse();
  }

  @Test
  void anIntentLongerThanAStoreKeepsIsNotEncoded() {
    List<ResourceRef> many =
        java.util.stream.IntStream.range(0, Store.MAX_LEASE_INTENT / 20)
            .mapToObj(i -> ResourceRef.of(Kind.CONFIG_MAP, "shop", "config-" + i))
            .toList();

    LeaseIntent intent =
        new LeaseIntent(LeaseIntent.Operation.CAST, "a1", "id-1", null, null, many);

    assertThat(intent.encode()).isNull();
  }

  @Test
  void everyAttemptHasItsOwnIdAndAnIntentOfAnEarlierCapstanNamesNone() {
    LeaseIntent a = LeaseIntent.uninstall();
    LeaseIntent b = LeaseIntent.uninstall();

    assertThat(a.attempt()).matches("[0-9a-f]{16}").isNotEqualTo(b.attempt());
    // written before attempts existed: read, with no attempt
    assertThat(LeaseIntent.decode("{\"v\":1,\"operation\":\"uninstall\"}"))
        .isEqualTo(
            new LeaseIntent(LeaseIntent.Operation.UNINSTALL, null, null, null, null, List.of()));
  }

  @Test
  void whatCannotBeReadIsNoIntent() {
    assertThat(LeaseIntent.decode(null)).isNull();
    assertThat(LeaseIntent.decode("not json {")).isNull();
    assertThat(LeaseIntent.decode("{\"v\":2,\"operation\":\"cast\",\"releaseId\":\"x\"}")).isNull();
    assertThat(LeaseIntent.decode("{\"v\":1,\"operation\":\"rollout\"}")).isNull();
    // a cast must name the id its first revision gets
    assertThat(LeaseIntent.decode("{\"v\":1,\"operation\":\"cast\"}")).isNull();
    assertThat(
            LeaseIntent.decode(
                "{\"v\":1,\"operation\":\"cast\",\"releaseId\":\"x\",\"objects\":[\"nope\"]}"))
        .isNull();
  }
}
