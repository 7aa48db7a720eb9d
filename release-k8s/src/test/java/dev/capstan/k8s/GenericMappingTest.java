package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The generic mapping between live objects and manifests: content, stamp and drift. */
class GenericMappingTest {
  private static final ReleaseIdentity OWNER = new ReleaseIdentity("shop", "app", "id-1");

  private static final Manifest SETTINGS =
      Manifest.of(
          Map.of(
              "apiVersion",
              "v1",
              "kind",
              "ConfigMap",
              "metadata",
              Map.of(
                  "name",
                  "settings",
                  "namespace",
                  "shop",
                  "labels",
                  Map.of("tier", "front"),
                  "annotations",
                  Map.of("team", "shop", "capstan.dev/reclaim-policy", "Retain")),
              "data",
              Map.of("color", "blue")));

  /** The object as the server returns it after Capstan applied {@code object} stamped. */
  private static JsonObject served(Manifest object, OwnershipStamp stamp) {
    JsonObject raw = JsonTrees.toJsonTree(object.content());
    JsonObject meta = raw.getAsJsonObject("metadata");
    Map<String, String> labels = new TreeMap<>(object.labels());
    Map<String, String> annotations = new TreeMap<>(object.annotations());
    Stamps.write(stamp, labels, annotations);
    meta.add("labels", JsonTrees.toJsonTree(labels));
    meta.add("annotations", JsonTrees.toJsonTree(annotations));
    // a uid of its own: drift hashes are kept by uid and resourceVersion (AppliedHashes)
    meta.addProperty("uid", java.util.UUID.randomUUID().toString());
    meta.addProperty("resourceVersion", "4711");
    meta.addProperty("generation", 3);
    meta.addProperty("creationTimestamp", "2026-11-30T06:00:00Z");
    raw.add("status", JsonParser.parseString("{\"phase\":\"Active\"}"));
    entry(raw, "capstan", "Apply", "2026-11-30T06:00:00Z", null, "{\"f:data\":{\"f:color\":{}}}");
    return raw;
  }

  private static void entry(
      JsonObject raw,
      String manager,
      String operation,
      String time,
      @org.jspecify.annotations.Nullable String subresource,
      String fieldsV1) {
    JsonObject meta = raw.getAsJsonObject("metadata");
    JsonArray entries =
        meta.has("managedFields") ? meta.getAsJsonArray("managedFields") : new JsonArray();
    JsonObject e = new JsonObject();
    e.addProperty("manager", manager);
    e.addProperty("operation", operation);
    e.addProperty("time", time);
    if (subresource != null) {
      e.addProperty("subresource", subresource);
    }
    e.addProperty("fieldsType", "FieldsV1");
    e.add("fieldsV1", JsonParser.parseString(fieldsV1));
    entries.add(e);
    meta.add("managedFields", entries);
    // every write the entry stands for gives the object a new resourceVersion, as the server does
    if (meta.get("resourceVersion") != null) {
      meta.addProperty(
          "resourceVersion", String.valueOf(meta.get("resourceVersion").getAsLong() + 1));
    }
  }

  private static OwnershipStamp stamp(Manifest m) {
    return OwnershipStamp.of(OWNER, 2, ContentHash.of(m));
  }

  @Test
  void anUntouchedObjectReadsBackAsItsManifestWithoutStampOrServerFields() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));

    Manifest live = LiveContent.content(raw, Kind.CONFIG_MAP);

    assertThat(live).isEqualTo(SETTINGS);
    assertThat(java.util.Objects.requireNonNull(live).annotations())
        .containsEntry("capstan.dev/reclaim-policy", "Retain");
    assertThat(ContentHash.of(live)).isEqualTo(ContentHash.of(SETTINGS));
  }

  @Test
  void readingTheContentLeavesTheServedObjectAsItWasAndDropsMapsThatHeldOnlyTheStamp() {
    Manifest bare =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "ConfigMap",
                "metadata",
                Map.of("name", "bare", "namespace", "shop"),
                "data",
                Map.of("replicas", "3", "big", "12345678901234567890")));
    JsonObject raw = served(bare, stamp(bare));
    raw.getAsJsonObject("data").addProperty("count", 42);
    raw.getAsJsonObject("data")
        .addProperty("huge", new java.math.BigInteger("12345678901234567890"));
    raw.getAsJsonObject("data").addProperty("negative", -7);
    raw.getAsJsonObject("data").add("gone", com.google.gson.JsonNull.INSTANCE);
    String before = raw.toString();

    Manifest live = java.util.Objects.requireNonNull(LiveContent.content(raw, Kind.CONFIG_MAP));

    assertThat(raw.toString()).isEqualTo(before);
    assertThat(live.labels()).isEmpty();
    assertThat(live.annotations()).isEmpty();
    assertThat(live.content()).doesNotContainKey("status");
    assertThat(live.content().get("metadata"))
        .isEqualTo(Map.of("name", "bare", "namespace", "shop"));
    assertThat(live.content().get("data"))
        .isEqualTo(
            Map.of(
                "replicas",
                "3",
                "big",
                "12345678901234567890",
                "count",
                42L,
                "huge",
                new java.math.BigInteger("12345678901234567890"),
                "negative",
                -7L));
  }

  @Test
  void theStampIsReadFromTheAnnotationsAndAnUnstampedObjectHasNone() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));
    Map<String, String> annotations = new LinkedHashMap<>();
    raw.getAsJsonObject("metadata")
        .getAsJsonObject("annotations")
        .entrySet()
        .forEach(e -> annotations.put(e.getKey(), e.getValue().getAsString()));

    assertThat(Stamps.read(annotations)).isEqualTo(stamp(SETTINGS));
    assertThat(Stamps.read(Map.of("team", "shop"))).isNull();
    assertThat(raw.getAsJsonObject("metadata").getAsJsonObject("labels").toString())
        .isEqualTo(
            "{\"app.kubernetes.io/managed-by\":\"capstan\",\"capstan.dev/release-id\":\"id-1\","
                + "\"capstan.dev/release-name\":\"app\",\"capstan.dev/release-namespace\":\"shop\","
                + "\"tier\":\"front\"}");
  }

  @Test
  void aFieldAnotherManagerTookAfterCapstansApplyIsDrift() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));
    // the server moves a field to the manager that changed it: Capstan's entry loses it
    raw.getAsJsonObject("metadata")
        .getAsJsonArray("managedFields")
        .get(0)
        .getAsJsonObject()
        .getAsJsonObject("fieldsV1")
        .getAsJsonObject("f:data")
        .remove("f:color");
    entry(
        raw,
        "kubectl-edit",
        "Update",
        "2026-11-30T06:00:05Z",
        null,
        "{\"f:data\":{\"f:color\":{}}}");

    assertThat(Drift.of(raw, "capstan")).isEqualTo("field data.color set by kubectl-edit");
  }

  @Test
  void aContainerFieldIsNamedByItsListKey() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));
    entry(
        raw,
        "kubectl-client-side-apply",
        "Apply",
        "2026-11-30T06:01:00Z",
        null,
        "{\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"web\\\"}\":"
            + "{\".\":{},\"f:image\":{}}}}}}}");

    assertThat(Drift.of(raw, "capstan"))
        .isEqualTo(
            "field spec.template.spec.containers[name=web].image set by"
                + " kubectl-client-side-apply");
  }

  @Test
  void metadataStatusOlderEditsAndABindersVolumeNameAreNoDrift() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));
    entry(
        raw,
        "kube-controller-manager",
        "Update",
        "2026-11-30T06:00:01Z",
        null,
        "{\"f:metadata\":{\"f:annotations\":{\"f:deployment.kubernetes.io/revision\":{}}}}");
    entry(
        raw,
        "kube-controller-manager",
        "Update",
        "2026-11-30T06:00:01Z",
        "status",
        "{\"f:status\":{\"f:replicas\":{}}}");
    entry(raw, "old-tool", "Update", "2026-11-30T05:00:00Z", null, "{\"f:data\":{\"f:size\":{}}}");

    assertThat(Drift.of(raw, "capstan")).isNull();

    JsonObject claim =
        JsonParser.parseString(
                "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\","
                    + "\"metadata\":{\"name\":\"data\",\"namespace\":\"shop\"}}")
            .getAsJsonObject();
    entry(claim, "capstan", "Apply", "2026-11-30T06:00:00Z", null, "{\"f:spec\":{}}");
    entry(
        claim,
        "kube-controller-manager",
        "Update",
        "2026-11-30T06:00:02Z",
        null,
        "{\"f:spec\":{\"f:volumeName\":{}}}");
    assertThat(Drift.of(claim, "capstan")).isNull();
  }

  @Test
  void anObjectCapstanNeverAppliedHasNoDrift() {
    JsonObject raw = JsonTrees.toJsonTree(SETTINGS.content());
    entry(raw, "kubectl-edit", "Update", "2026-11-30T06:00:05Z", null, "{\"f:data\":{}}");

    assertThat(Drift.of(raw, "capstan")).isNull();
  }

  @Test
  void aKeyAnotherManagerAddsIsNoDriftWhileCapstansFieldsStillHashAsApplied() {
    JsonObject raw = served(SETTINGS, stamp(SETTINGS));
    raw.getAsJsonObject("metadata").remove("managedFields");
    entry(
        raw,
        "capstan",
        "Apply",
        "2026-11-30T06:00:00Z",
        null,
        "{\"f:metadata\":{\"f:labels\":{\"f:tier\":{},\"f:app.kubernetes.io/managed-by\":{}},"
            + "\"f:annotations\":{\"f:team\":{},\"f:capstan.dev/reclaim-policy\":{},"
            + "\"f:capstan.dev/release\":{}}},\"f:data\":{\"f:color\":{}}}");
    raw.getAsJsonObject("data").addProperty("extra", "1");
    entry(
        raw,
        "sidecar-tool",
        "Apply",
        "2026-11-30T06:00:05Z",
        null,
        "{\"f:data\":{\"f:extra\":{}}}");
    String hash = ContentHash.of(SETTINGS);

    assertThat(Drift.of(raw, "capstan", Kind.CONFIG_MAP, hash, null)).isNull();
    // without the hash, the rule alone cannot tell an added key from a taken one
    assertThat(Drift.of(raw, "capstan")).isEqualTo("field data.extra set by sidecar-tool");

    // once Capstan's color is taken, its fields no longer hash as applied: drift
    raw.getAsJsonObject("data").addProperty("color", "red");
    JsonObject capstans =
        raw.getAsJsonObject("metadata").getAsJsonArray("managedFields").get(0).getAsJsonObject();
    capstans.getAsJsonObject("fieldsV1").getAsJsonObject("f:data").remove("f:color");
    entry(
        raw,
        "kubectl-edit",
        "Update",
        "2026-11-30T06:00:09Z",
        null,
        "{\"f:data\":{\"f:color\":{}}}");
    assertThat(Drift.of(raw, "capstan", Kind.CONFIG_MAP, hash, null))
        .isEqualTo("field data.extra set by sidecar-tool");
    // with what Capstan applied, the key it never set is the sidecar's, and the taken one drift
    assertThat(Drift.of(raw, "capstan", Kind.CONFIG_MAP, hash, SETTINGS))
        .isEqualTo("field data.color set by kubectl-edit");
  }

  /** A Secret as the server returns it after Capstan applied {@code data}, stamped. */
  private static JsonObject servedSecret(String capstanFields) {
    JsonObject raw =
        JsonParser.parseString(
                "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"Opaque\","
                    + "\"metadata\":{\"name\":\"webhook-tls\",\"namespace\":\"shop\"},"
                    + "\"data\":{\"tls.crt\":\"Q0VSVA==\"}}")
            .getAsJsonObject();
    entry(raw, "capstan", "Apply", "2026-11-30T06:00:00Z", null, capstanFields);
    return raw;
  }

  /** The Secret Capstan applied: with {@code data}, or without any when it is {@code null}. */
  private static Manifest secret(@org.jspecify.annotations.Nullable Map<String, ?> data) {
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("apiVersion", "v1");
    tree.put("kind", "Secret");
    tree.put("metadata", Map.of("name", "webhook-tls", "namespace", "shop"));
    tree.put("type", "Opaque");
    if (data != null) {
      tree.put("data", data);
    }
    return Manifest.of(tree);
  }

  @Test
  void aFieldCapstanAppliedEmptyOrNotAtAllThatAControllerFilledIsNoDrift() {
    // a Secret shipped with data: {} (or none), whose controller wrote its certificate: Capstan's
    // entry no longer names data at all (SSA moved the map to the controller), as on the server
    JsonObject raw = servedSecret("{\"f:type\":{}}");
    entry(
        raw,
        "cert-controller",
        "Update",
        "2026-11-30T06:00:05Z",
        null,
        "{\"f:data\":{\".\":{},\"f:tls.crt\":{}}}");

    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", secret(Map.of()))).isNull();
    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", secret(null))).isNull();
    // a value Capstan applied there, which the controller changed: drift
    assertThat(
            Drift.of(
                raw, "capstan", Kind.SECRET, "hmac-sha256:00", secret(Map.of("tls.crt", "T0xE"))))
        .isEqualTo("field data[\"tls.crt\"] set by cert-controller");
    // not knowing what Capstan applied, every field taken since counts, as before
    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", null))
        .isEqualTo("field data[\"tls.crt\"] set by cert-controller");
  }

  @Test
  void aSecretValueCapstanAppliedAsStringDataThatAnotherManagerChangedIsDrift() {
    // Capstan's entry keeps the key under stringData, which the server moved to data
    JsonObject raw = servedSecret("{\"f:stringData\":{\"f:tls.crt\":{}},\"f:type\":{}}");
    entry(
        raw, "ops-tool", "Apply", "2026-11-30T06:00:05Z", null, "{\"f:data\":{\"f:tls.crt\":{}}}");
    Map<String, Object> tree = new LinkedHashMap<>(secret(null).content());
    tree.put("stringData", Map.of("tls.crt", "OLD"));

    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", Manifest.of(tree)))
        .isEqualTo("field data[\"tls.crt\"] set by ops-tool");
    // once repaired, ops-tool still owns data.tls.crt, but it holds what Capstan applied
    tree.put("stringData", Map.of("tls.crt", "CERT"));
    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", Manifest.of(tree))).isNull();
  }

  @Test
  void aFieldCapstanStillOwnsIsNoDriftThoughAnotherManagerAppliedItToo() {
    // another manager applied the same value: both own it, nothing changed
    JsonObject raw = servedSecret("{\"f:data\":{\"f:tls.crt\":{}},\"f:type\":{}}");
    entry(
        raw, "ops-tool", "Apply", "2026-11-30T06:00:05Z", null, "{\"f:data\":{\"f:tls.crt\":{}}}");

    assertThat(Drift.of(raw, "capstan", Kind.SECRET, "hmac-sha256:00", null)).isNull();
    assertThat(
            Drift.of(
                raw,
                "capstan",
                Kind.SECRET,
                "hmac-sha256:00",
                secret(Map.of("tls.crt", "Q0VSVA=="))))
        .isNull();
  }

  @Test
  void listItemsAreMatchedByTheirKeyFieldsAndAnInjectedContainerIsNoDrift() {
    Manifest applied =
        Manifest.of(
            Map.of(
                "apiVersion",
                "apps/v1",
                "kind",
                "Deployment",
                "metadata",
                Map.of("name", "web", "namespace", "shop"),
                "spec",
                Map.of(
                    "template",
                    Map.of(
                        "spec",
                        Map.of(
                            "containers",
                            java.util.List.of(
                                Map.of(
                                    "name",
                                    "web",
                                    "image",
                                    "web:1",
                                    "ports",
                                    java.util.List.of(
                                        Map.of("containerPort", 8080, "name", "http")))))))));
    JsonObject raw = JsonTrees.toJsonTree(applied.content());
    // live, the server defaulted the port's protocol (part of its list key)
    JsonObject port =
        raw.getAsJsonObject("spec")
            .getAsJsonObject("template")
            .getAsJsonObject("spec")
            .getAsJsonArray("containers")
            .get(0)
            .getAsJsonObject()
            .getAsJsonArray("ports")
            .get(0)
            .getAsJsonObject();
    port.addProperty("protocol", "TCP");
    String containers = "{'f:spec':{'f:template':{'f:spec':{'f:containers':{";
    String webPort =
        "'k:{\\\"name\\\":\\\"web\\\"}':{'f:ports':{'k:{\\\"containerPort\\\":8080,\\\"protocol\\\":\\\"TCP\\\"}':{";
    entry(
        raw,
        "capstan",
        "Apply",
        "2026-11-30T06:00:00Z",
        null,
        (containers + webPort + "'.':{},'f:containerPort':{},'f:name':{}}}}}}}}}")
            .replace('\'', '"'));
    // a webhook injected a sidecar: its item and fields are the webhook's alone
    entry(
        raw,
        "sidecar-injector",
        "Update",
        "2026-11-30T06:00:05Z",
        null,
        (containers + "'k:{\\\"name\\\":\\\"proxy\\\"}':{'.':{},'f:image':{}}}}}}}")
            .replace('\'', '"'));
    assertThat(Drift.of(raw, "capstan", Kind.DEPLOYMENT, null, applied)).isNull();

    // the port Capstan applied, keyed with the protocol the server defaulted, renamed by hand:
    // the name is kubectl-edit's now
    port.addProperty("name", "web-http");
    JsonObject capstans =
        raw.getAsJsonObject("metadata").getAsJsonArray("managedFields").get(0).getAsJsonObject();
    capstans
        .getAsJsonObject("fieldsV1")
        .getAsJsonObject("f:spec")
        .getAsJsonObject("f:template")
        .getAsJsonObject("f:spec")
        .getAsJsonObject("f:containers")
        .getAsJsonObject("k:{\"name\":\"web\"}")
        .getAsJsonObject("f:ports")
        .getAsJsonObject("k:{\"containerPort\":8080,\"protocol\":\"TCP\"}")
        .remove("f:name");
    entry(
        raw,
        "kubectl-edit",
        "Update",
        "2026-11-30T06:00:09Z",
        null,
        (containers + webPort + "'f:name':{}}}}}}}}}").replace('\'', '"'));
    assertThat(Drift.of(raw, "capstan", Kind.DEPLOYMENT, null, applied))
        .isEqualTo(
            "field spec.template.spec.containers[name=web].ports[containerPort=8080].name set by"
                + " kubectl-edit");
    // renamed back to what Capstan applied: no drift, whoever owns the name
    port.addProperty("name", "http");
    assertThat(Drift.of(raw, "capstan", Kind.DEPLOYMENT, null, applied)).isNull();
  }

  /** A Deployment Capstan applied with {@code replicas} and a container, as served. */
  private static Manifest deployment(Map<String, Object> container) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "apps/v1",
            "kind",
            "Deployment",
            "metadata",
            Map.of("name", "web", "namespace", "shop"),
            "spec",
            Map.of(
                "replicas",
                2,
                "template",
                Map.of("spec", Map.of("containers", java.util.List.of(container))))));
  }

  private static final String CAPSTANS_DEPLOYMENT =
      ("{'f:spec':{'f:replicas':{},'f:template':{'f:spec':{'f:containers':"
              + "{'k:{\\\"name\\\":\\\"web\\\"}':{'.':{},'f:name':{},'f:image':{},'f:stdin':{}}}}}}}")
          .replace('\'', '"');

  @Test
  void aFieldRemovedByHandIsDriftThoughNoManagerHoldsIt() {
    Manifest applied =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "ConfigMap",
                "metadata",
                Map.of("name", "settings", "namespace", "shop"),
                "data",
                Map.of("color", "blue", "size", "m")));
    // kubectl patch --type json remove /data/color: the field is gone, and so is every
    // manager's ownership of it (Capstan's entry keeps size only)
    JsonObject raw =
        JsonParser.parseString(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                    + "\"settings\",\"namespace\":\"shop\"},\"data\":{\"size\":\"m\"}}")
            .getAsJsonObject();
    entry(raw, "capstan", "Apply", "2026-11-30T06:00:00Z", null, "{\"f:data\":{\"f:size\":{}}}");

    assertThat(Drift.of(raw, "capstan", Kind.CONFIG_MAP, ContentHash.of(applied), applied))
        .isEqualTo("field data.color removed");
    Drift.Finding finding =
        Drift.find(
            raw,
            LiveContent.content(raw, Kind.CONFIG_MAP),
            "capstan",
            Kind.CONFIG_MAP,
            ContentHash.of(applied),
            applied);
    assertThat(finding.fields())
        .containsExactly(dev.capstan.release.plan.FieldDrift.removed("data.color", "/data/color"));
    // the older rule, not knowing what Capstan applied, cannot see it
    assertThat(Drift.of(raw, "capstan")).isNull();
  }

  @Test
  void replicasWrittenThroughTheScaleSubresourceAreDriftNamingItAndAZeroValueCapstanOwnsIsNot() {
    Manifest applied = deployment(Map.of("name", "web", "image", "web:1", "stdin", false));
    JsonObject raw = JsonTrees.toJsonTree(applied.content());
    // stored without the false Capstan applied (omitempty), which Capstan's entry still owns
    raw.getAsJsonObject("spec")
        .getAsJsonObject("template")
        .getAsJsonObject("spec")
        .getAsJsonArray("containers")
        .get(0)
        .getAsJsonObject()
        .remove("stdin");
    raw.getAsJsonObject("spec").addProperty("replicas", 5);
    entry(
        raw,
        "capstan",
        "Apply",
        "2026-11-30T06:00:00Z",
        null,
        CAPSTANS_DEPLOYMENT.replace("\"f:replicas\":{},", ""));
    entry(
        raw,
        "kubectl",
        "Update",
        "2026-11-30T06:00:05Z",
        "scale",
        "{\"f:spec\":{\"f:replicas\":{}}}");

    Drift.Finding finding =
        Drift.find(
            raw,
            LiveContent.content(raw, Kind.DEPLOYMENT),
            "capstan",
            Kind.DEPLOYMENT,
            "sha256:00",
            applied);

    assertThat(finding.reason())
        .isEqualTo("field spec.replicas set by kubectl (scale subresource)");
    assertThat(finding.fields())
        .containsExactly(
            dev.capstan.release.plan.FieldDrift.taken(
                "spec.replicas", "/spec/replicas", "kubectl", "scale"));
  }

  @Test
  void givingUpAFieldTakesItOutOfCapstansApplyEntryOnly() {
    Manifest applied = deployment(Map.of("name", "web", "image", "web:1"));
    JsonObject raw = JsonTrees.toJsonTree(applied.content());
    entry(raw, "capstan", "Apply", "2026-11-30T06:00:00Z", null, CAPSTANS_DEPLOYMENT);
    entry(
        raw,
        "kube-controller-manager",
        "Update",
        "2026-11-30T06:00:01Z",
        "status",
        "{\"f:status\":{\"f:replicas\":{}}}");

    com.google.gson.JsonArray kept =
        FieldManagers.withoutFields(
            raw, java.util.List.of("/spec/replicas", "/spec/template/spec/containers/0/image"));

    assertThat(kept).isNotNull();
    assertThat(kept.get(0).getAsJsonObject().get("fieldsV1").toString())
        .isEqualTo(
            ("{'f:spec':{'f:template':{'f:spec':{'f:containers':{'k:{\\\"name\\\":\\\"web\\\"}':"
                    + "{'.':{},'f:name':{},'f:stdin':{}}}}}}}")
                .replace('\'', '"'));
    assertThat(kept.get(1))
        .isEqualTo(raw.getAsJsonObject("metadata").getAsJsonArray("managedFields").get(1));
    // nothing of Capstan's at those pointers: nothing to give up
    assertThat(FieldManagers.withoutFields(raw, java.util.List.of("/spec/paused"))).isNull();
  }

  @Test
  void numbersKeepTheirForm() {
    JsonObject raw =
        JsonParser.parseString("{\"replicas\":3,\"ratio\":1.50,\"big\":123456789012345678901}")
            .getAsJsonObject();

    Map<String, Object> tree = JsonTrees.toJava(raw);

    assertThat(tree.get("replicas")).isEqualTo(3L);
    assertThat(tree.get("ratio")).isEqualTo(new BigDecimal("1.50"));
    assertThat(tree.get("big")).isEqualTo(new java.math.BigInteger("123456789012345678901"));
    assertThat(JsonTrees.toJson(tree))
        .isEqualTo("{\"replicas\":3,\"ratio\":1.50,\"big\":123456789012345678901}");
  }
}
