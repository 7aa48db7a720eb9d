package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StampsTest {
  private static final String HASH = "sha256:" + "ab".repeat(32);

  @Test
  void aStampIsWrittenToAnnotationsAndSelectableLabelsAndReadBack() {
    OwnershipStamp stamp =
        OwnershipStamp.of(new ReleaseIdentity("shop", "web", "0b9c-41"), 7, HASH);
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();

    Stamps.write(stamp, labels, annotations);

    assertThat(labels)
        .containsExactly(
            Map.entry("app.kubernetes.io/managed-by", "capstan"),
            Map.entry("capstan.dev/release-namespace", "shop"),
            Map.entry("capstan.dev/release-name", "web"),
            Map.entry("capstan.dev/release-id", "0b9c-41"));
    assertThat(annotations)
        .containsExactly(
            Map.entry("capstan.dev/release", "shop/web"),
            Map.entry("capstan.dev/release-id", "0b9c-41"),
            Map.entry("capstan.dev/revision", "7"),
            Map.entry("capstan.dev/content-hash", HASH));
    assertThat(Stamps.read(annotations)).isEqualTo(stamp);
  }

  @Test
  void anIdThatIsNoLabelValueStaysInTheAnnotationsOnly() {
    OwnershipStamp stamp =
        OwnershipStamp.of(new ReleaseIdentity("shop", "web", "team a/release #1"), 1, HASH);
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();

    Stamps.write(stamp, labels, annotations);

    assertThat(labels).doesNotContainKey("capstan.dev/release-id");
    assertThat(Stamps.read(annotations)).isEqualTo(stamp);
  }

  @Test
  void aBrokenStampIsNoStamp() {
    Map<String, String> good =
        Map.of(
            "capstan.dev/release", "shop/web",
            "capstan.dev/release-id", "id",
            "capstan.dev/revision", "3",
            "capstan.dev/content-hash", HASH);

    assertThat(Stamps.read(good)).isNotNull();
    for (Map.Entry<String, String> broken :
        Map.of(
                "capstan.dev/release", "no-slash",
                "capstan.dev/revision", "0",
                "capstan.dev/content-hash", "md5:1")
            .entrySet()) {
      Map<String, String> copy = new LinkedHashMap<>(good);
      copy.put(broken.getKey(), broken.getValue());
      assertThat(Stamps.read(copy)).as(broken.toString()).isNull();
    }
    Map<String, String> missing = new LinkedHashMap<>(good);
    missing.remove("capstan.dev/release-id");
    assertThat(Stamps.read(missing)).isNull();
  }

  @Test
  void unstampingRemovesTheStampAndKeepsWhatDescribesTheContent() {
    V1ObjectMeta meta =
        new V1ObjectMeta()
            .labels(
                Map.of(
                    "app.kubernetes.io/managed-by", "capstan",
                    "capstan.dev/release-name", "web",
                    "tier", "db"))
            .annotations(
                Map.of(
                    "capstan.dev/release", "shop/web",
                    "capstan.dev/reclaim-policy", "Retain",
                    "note", "x"));

    String patch = Stamps.removalPatch(meta, "42", Set.of("capstan.dev/reclaim-policy"));

    assertThat(com.google.gson.JsonParser.parseString(patch))
        .isEqualTo(
            com.google.gson.JsonParser.parseString(
                "{\"metadata\":{\"resourceVersion\":\"42\","
                    + "\"labels\":{\"app.kubernetes.io/managed-by\":null,\"capstan.dev/release-name\":null},"
                    + "\"annotations\":{\"capstan.dev/release\":null}}}"));
  }
}
