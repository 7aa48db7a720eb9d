package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.rollout.ConfigRollout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A ConfigMap or Secret change rolls out the workloads of the release that read it. */
class ConfigRolloutCastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final ResourceRef WEB = ResourceRef.of(Kind.DEPLOYMENT, NS, "web");
  private static final ResourceRef WORKER = ResourceRef.of(Kind.DEPLOYMENT, NS, "worker");
  private static final ResourceRef API = ResourceRef.of(Kind.DEPLOYMENT, NS, "api");
  private static final ResourceRef RAW = ResourceRef.of(Kind.DEPLOYMENT, NS, "raw");
  private static final ResourceRef QUIET = ResourceRef.of(Kind.DEPLOYMENT, NS, "quiet");

  private static Payloads release(String config, String password) {
    return Payloads.builder()
        .configMap(ConfigMapSpec.of(NS, "web-config", Map.of("level", config)))
        .secret(SecretSpec.of(NS, "creds", Map.of("password", password)))
        .service(
            ServiceSpec.builder(NS, "web")
                .image("web:1")
                .port("http", 8080)
                .envFromConfigMap("web-config")
                .build())
        .service(ServiceSpec.builder(NS, "worker").image("worker:1").envFromSecret("creds").build())
        .service(ServiceSpec.builder(NS, "api").image("api:1").build())
        .add(raw("raw", ""))
        .add(raw("quiet", "  annotations: {capstan.dev/config-rollout: \"false\"}\n"))
        .build();
  }

  private static Manifest raw(String name, String annotations) {
    return yaml(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "
            + name
            + "\n"
            + annotations
            + "spec:\n  selector: {matchLabels: {app: "
            + name
            + "}}\n  template:\n    metadata: {labels: {app: "
            + name
            + "}}\n    spec:\n      containers: [{name: c, image: 'raw:1'}]\n      volumes:"
            + " [{name: cfg, configMap: {name: web-config}}]\n");
  }

  private static List<String> lines(Plan plan) {
    return plan.changes().stream()
        .filter(c -> c.action() != Action.UNCHANGED && c.action() != Action.REFERENCE)
        .map(ConfigRolloutCastTest::line)
        .toList();
  }

  private static String line(PlannedChange c) {
    return c.action().name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  private Object configHash(ResourceRef workload) {
    Object annotations =
        h.cluster.object(workload).orElseThrow().get("spec.template.metadata.annotations");
    return annotations instanceof Map<?, ?> m && m.get(ConfigRollout.CONFIG_HASH) != null
        ? m.get(ConfigRollout.CONFIG_HASH)
        : "none";
  }

  @Test
  void aConfigMapChangeUpdatesExactlyItsReadersWithTheReasonAndANoOpCastIsANoOp() {
    Payloads first = release("info", "pw-1");
    h.cast("app", first);
    Object webHash = configHash(WEB);
    Object rawHash = configHash(RAW);
    Object workerHash = configHash(WORKER);

    assertThat(webHash).asString().matches("sha256:[0-9a-f]{64}");
    assertThat(rawHash).isEqualTo(webHash);
    assertThat(workerHash).asString().matches("sha256:[0-9a-f]{64}").isNotEqualTo(webHash);
    assertThat(configHash(API)).isEqualTo("none");
    assertThat(configHash(QUIET)).isEqualTo("none");

    Plan same = h.controller.plan(spec("app", first), first);
    assertThat(same.changesNothing()).isTrue();
    CastResult noOp = h.cast("app", first);
    assertThat(noOp.plan().changesNothing()).isTrue();
    assertThat(configHash(WEB)).isEqualTo(webHash);

    Payloads changed = release("debug", "pw-1");
    Plan plan = h.controller.plan(spec("app", changed), changed);
    assertThat(lines(plan))
        .containsExactly(
            "update ConfigMap/default/web-config",
            "update apps/Deployment/default/raw (config changed: ConfigMap/default/web-config)",
            "update apps/Deployment/default/web (config changed: ConfigMap/default/web-config)");

    CastResult cast = h.cast("app", changed);

    assertThat(lines(cast.plan())).isEqualTo(lines(plan));
    assertThat(configHash(WEB)).isNotEqualTo(webHash).isEqualTo(configHash(RAW));
    assertThat(configHash(WORKER)).isEqualTo(workerHash);
    assertThat(h.cast("app", changed).plan().changesNothing()).isTrue();
  }

  @Test
  void aSecretChangeUpdatesItsReaderNamingTheSecretAndNeverShowsAPlainHash() {
    h.cast("app", release("info", "pw-1"));
    Object workerHash = configHash(WORKER);

    CastResult r = h.cast("app", release("info", "pw-2"));

    assertThat(lines(r.plan()))
        .containsExactly(
            "update Secret/default/creds",
            "update apps/Deployment/default/worker (config changed: Secret/default/creds)");
    assertThat(configHash(WORKER)).isNotEqualTo(workerHash);
    assertThat(r.release().ownedHash(ResourceRef.of(Kind.SECRET, NS, "creds")).orElseThrow())
        .startsWith("hmac-sha256:");
  }

  @Test
  void aWorkloadThatChangesItselfAndItsConfigIsOneUpdateAndTheSpecAlonePlansTheSame() {
    h.cast("app", release("info", "pw-1"));

    Payloads both =
        release("debug", "pw-1")
            .with(
                ServiceSpec.builder(NS, "web")
                    .image("web:2")
                    .port("http", 8080)
                    .envFromConfigMap("web-config")
                    .build());
    Plan plan = h.controller.plan(spec("app", both), both);

    assertThat(lines(plan))
        .containsExactly(
            "update ConfigMap/default/web-config",
            "update apps/Deployment/default/raw (config changed: ConfigMap/default/web-config)",
            "update apps/Deployment/default/web (config changed: ConfigMap/default/web-config)");
    // without payloads, the recorded objects at the same content stand in for them
    assertThat(h.controller.plan(spec("app", release("info", "pw-1"))).changesNothing()).isTrue();
    Payloads changed = release("debug", "pw-1");
    assertThat(lines(h.controller.plan(spec("app", changed))))
        .isEqualTo(lines(h.controller.plan(spec("app", changed), changed)));
  }
}
