package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SECRET_VALUE;
import static dev.capstan.release.Fixtures.WEB;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.engine.EffectiveRelease;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.WithheldSecret;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** A Secret's content hash is keyed per release; records may keep Secrets' values out. */
class SecretHashingTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static List<String> lines(Plan plan) {
    return plan.changes().stream()
        .filter(c -> c.action() != Action.UNCHANGED && c.action() != Action.REFERENCE)
        .map(SecretHashingTest::line)
        .toList();
  }

  private static String line(PlannedChange c) {
    return c.action().name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  @Test
  void theSecretsAnnotationCannotBeTestedWithoutTheRecordsKey() {
    Payloads p = payloads(web("web:1"), creds("hunter2"));
    Fixtures.Harness second = new Fixtures.Harness();

    Release first = h.cast("app", p).release();
    Release other = second.cast("app", p).release();

    String stamped = h.cluster.stamp(CREDS).orElseThrow().contentHash();
    Manifest secret = obj(creds("hunter2"));
    SecretHashKey key = first.secretHashKey();
    assertThat(key).isNotNull();
    assertThat(stamped).startsWith("hmac-sha256:").isNotEqualTo(ContentHash.of(secret));
    assertThat(first.ownedHash(CREDS)).contains(stamped);
    // the same values in another release (its own key) hash differently
    assertThat(second.cluster.stamp(CREDS).orElseThrow().contentHash()).isNotEqualTo(stamped);
    assertThat(other.secretHashKey()).isNotEqualTo(key);
    assertThat(SecretHashKey.generate().verifies(secret, stamped)).isFalse();
    // with the record's key, the hash verifies, and a guess does not
    assertThat(key.verifies(secret, stamped)).isTrue();
    assertThat(key.verifies(obj(creds("hunter3")), stamped)).isFalse();
    // the key stays the release's across revisions and never prints
    Release next = h.cast("app", payloads(web("web:2"), creds("hunter2"))).release();
    assertThat(next.secretHashKey()).isEqualTo(key);
    assertThat(h.cluster.stamp(CREDS).orElseThrow().contentHash()).isEqualTo(stamped);
    assertThat(next.toString()).doesNotContain(key.toBase64());
    assertThat(PlanRenderer.json(h.controller.plan(spec("app", p), p)))
        .doesNotContain(key.toBase64())
        .doesNotContain(ContentHash.of(secret));
    assertThat(h.events.toString()).doesNotContain(key.toBase64());
  }

  @Test
  void aRecordWithoutAKeyGetsOneAndItsUnchangedSecretsAreRestampedOnceNotForever() {
    Payloads p = payloads(web("web:1"), creds(SECRET_VALUE));
    Release cast = h.cast("app", p).release();
    // what a Capstan before keyed hashes left: plain hashes in stamps and record, no key
    for (Manifest object : p.objects()) {
      h.cluster.put(object, OwnershipStamp.of(cast.identity(), 1, ContentHash.of(object)));
    }
    StoredRelease stored = h.cluster.latestRecord(NS, "app").orElseThrow();
    Release legacy =
        stored
            .release()
            .withSecretHashKey(null)
            .withOwns(
                p.hashes().entrySet().stream()
                    .map(e -> new OwnedResource(e.getKey(), e.getValue()))
                    .toList());
    h.cluster.updateRecord(legacy, stored.version());

    Plan plan = h.controller.plan(spec("app", p), p);
    assertThat(lines(plan))
        .containsExactly(
            "update Secret/default/creds (" + EffectiveRelease.REKEYED + ")",
            "update apps/Deployment/default/web (config changed: Secret/default/creds)");
    Release upgraded = h.cast("app", p).release();

    SecretHashKey key = upgraded.secretHashKey();
    assertThat(key).isNotNull();
    assertThat(h.cluster.stamp(CREDS).orElseThrow().contentHash())
        .isEqualTo(key.hash(obj(creds(SECRET_VALUE))));
    // from now on an unchanged release is a no-op: no update, no drift, the key kept
    CastResult again = h.cast("app", p);
    assertThat(again.plan().changesNothing()).isTrue();
    assertThat(again.release().secretHashKey()).isEqualTo(key);
    assertThat(h.controller.plan(spec("app", p)).changesNothing()).isTrue();
    assertThat(h.cluster.object(WEB)).contains(Fixtures.written(upgraded, p, WEB));
  }

  @Test
  void withoutSecretValuesInRecordsTheRecordHoldsKeysAndKeyedHashesOnly() throws Exception {
    Payloads v1 = payloads(web("web:1"), creds(SECRET_VALUE));
    Release r1 =
        h.controller
            .cast(
                spec("app", v1)
                    .withOptions(spec("app", v1).options().withRecordSecretValues(false)),
                v1)
            .release();

    SecretHashKey key = java.util.Objects.requireNonNull(r1.secretHashKey());
    assertThat(r1.payloads().refs()).containsExactly(WEB, Fixtures.WEB_SERVICE);
    assertThat(r1.withheldSecrets())
        .containsExactly(
            new WithheldSecret(CREDS, List.of("password"), key.hash(obj(creds(SECRET_VALUE)))));
    byte[] bytes = ReleaseRecordCodec.encode(h.controller.get(NS, "app").orElseThrow());
    String json =
        new String(
            new GZIPInputStream(new ByteArrayInputStream(bytes)).readAllBytes(),
            StandardCharsets.UTF_8);
    assertThat(json)
        .doesNotContain(SECRET_VALUE)
        .doesNotContain(
            Base64.getEncoder().encodeToString(SECRET_VALUE.getBytes(StandardCharsets.UTF_8)))
        .contains("\"keys\":[\"password\"]");
    // a no-op cast stays a no-op; a new value is cast and withheld again
    Payloads v2 = payloads(web("web:1"), creds(SECRET_VALUE + "-2"));
    assertThat(h.cast("app", v1).plan().changesNothing()).isTrue();
    h.controller.cast(
        spec("app", v2).withOptions(spec("app", v2).options().withRecordSecretValues(false)), v2);
  }

  @Test
  void aRollbackTakesWithheldValuesFromTheCallerAndChecksThem() {
    Payloads v1 = payloads(web("web:1"), creds(SECRET_VALUE));
    Payloads v2 = payloads(web("web:2"), creds(SECRET_VALUE + "-2"));
    for (Payloads p : List.of(v1, v2)) {
      h.controller.cast(
          spec("app", p).withOptions(spec("app", p).options().withRecordSecretValues(false)), p);
    }

    // the plan needs no values: the withheld Secret is planned by its recorded keyed hash
    assertThat(lines(h.controller.planRollback(NS, "app", 1)))
        .containsExactly(
            "update Secret/default/creds",
            "update apps/Deployment/default/web (config changed: Secret/default/creds)");
    assertThatThrownBy(() -> h.controller.rollback(NS, "app", 1))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessage(
            "invalid release default/app (1 problem; nothing was written):\n"
                + "  - payloads[Secret/default/creds]: revision 1 of default/app was recorded"
                + " without this Secret's values (recordSecretValues off); give it again to roll"
                + " back");
    assertThatThrownBy(
            () -> h.controller.rollback(NS, "app", 1, payloads(creds(SECRET_VALUE + "-2"))))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessage(
            "invalid release default/app (1 problem; nothing was written):\n"
                + "  - payloads[Secret/default/creds]: the values given do not hash as revision 1"
                + " of default/app recorded them (keyed content hash differs); give the values"
                + " that revision had");
    assertThatThrownBy(
            () ->
                h.controller.rollback(
                    NS, "app", 1, payloads(creds(SECRET_VALUE), Fixtures.configMap("x", "1"))))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessageEndingWith(
            "  - payloads[ConfigMap/default/x]: revision 1 of default/app recorded this object;"
                + " give only the Secrets whose values it did not record");
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(2);

    CastResult back = h.controller.rollback(NS, "app", 1, payloads(creds(SECRET_VALUE)));

    assertThat(back.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(back.release().description()).isEqualTo("rollback to 1");
    assertThat(h.cluster.object(CREDS)).contains(obj(creds(SECRET_VALUE)));
    assertThat(back.release().payloads().get(CREDS)).isEmpty();
    assertThat(back.release().withheldSecrets())
        .extracting(WithheldSecret::ref)
        .containsExactly(CREDS);
    assertThat(back.release().withheldSecrets().get(0).contentHash())
        .isEqualTo(h.cluster.stamp(CREDS).orElseThrow().contentHash());
  }
}
