package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.Kind;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AppliedHashesTest {
  private static JsonObject configMap(String uid, String version, String color) {
    JsonObject o =
        JsonParser.parseString(
                """
                {"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": "settings", "namespace": "shop", "uid": "UID",
                   "resourceVersion": "RV",
                   "managedFields": [{"manager": "capstan", "operation": "Apply",
                     "apiVersion": "v1", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:data": {"f:color": {}}}}]},
                 "data": {"color": "COLOR", "size": "10"}}
                """
                    .replace("UID", uid)
                    .replace("RV", version)
                    .replace("COLOR", color))
            .getAsJsonObject();
    if (uid.isEmpty()) {
      o.getAsJsonObject("metadata").remove("uid");
    }
    return o;
  }

  private static JsonArray entries(JsonObject o) {
    return o.getAsJsonObject("metadata").getAsJsonArray("managedFields");
  }

  private static String fresh(JsonObject o) {
    JsonObject owned = Objects.requireNonNull(AppliedFieldsOf.owned(entries(o), "capstan"));
    return Objects.requireNonNull(AppliedFieldsOf.hash(o, owned, Kind.CONFIG_MAP));
  }

  @Test
  void aHashIsRebuiltOncePerUidAndResourceVersion() {
    String uid = UUID.randomUUID().toString();
    JsonObject blue = configMap(uid, "7", "blue");
    String hash = AppliedHashes.of(blue, entries(blue), "capstan", Kind.CONFIG_MAP);
    assertThat(hash).isEqualTo(fresh(blue));

    // the same uid and resourceVersion are the same stored content: the kept hash answers (a
    // content the server could never serve under them shows it is not rebuilt)
    JsonObject forged = configMap(uid, "7", "red");
    assertThat(fresh(forged)).isNotEqualTo(hash);
    assertThat(AppliedHashes.of(forged, entries(forged), "capstan", Kind.CONFIG_MAP))
        .isEqualTo(hash);

    // written since: a new resourceVersion is hashed anew
    JsonObject red = configMap(uid, "8", "red");
    assertThat(AppliedHashes.of(red, entries(red), "capstan", Kind.CONFIG_MAP))
        .isEqualTo(fresh(red))
        .isNotEqualTo(hash);
    // another manager's fields are another hash (none here: it owns nothing)
    assertThat(AppliedHashes.of(red, entries(red), "someone-else", Kind.CONFIG_MAP)).isNull();
  }

  @Test
  void anObjectWithoutUidIsHashedEveryTime() {
    JsonObject blue = configMap("", "7", "blue");
    JsonObject red = configMap("", "7", "red");
    assertThat(AppliedHashes.of(blue, entries(blue), "capstan", Kind.CONFIG_MAP))
        .isEqualTo(fresh(blue));
    assertThat(AppliedHashes.of(red, entries(red), "capstan", Kind.CONFIG_MAP))
        .isEqualTo(fresh(red))
        .isNotEqualTo(fresh(blue));
  }
}
