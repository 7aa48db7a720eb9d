package dev.capstan.release.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

class ConfigRolloutTest {
  private static final ConfigMapSpec CONFIG =
      ConfigMapSpec.of("shop", "web-config", Map.of("a", "1"));
  private static final SecretSpec CREDS = SecretSpec.of("shop", "creds", Map.of("pw", "hunter2"));
  private static final SecretHashKey KEY = SecretHashKey.generate();

  private static Manifest yaml(String yaml) {
    @SuppressWarnings("unchecked")
    Map<String, Object> tree =
        (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(yaml);
    return Manifest.of(tree, "shop");
  }

  private static Manifest deployment(String name, String podSpec) {
    return yaml(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "
            + name
            + "}\nspec:\n  selector: {matchLabels: {app: "
            + name
            + "}}\n  template:\n    metadata: {labels: {app: "
            + name
            + "}, annotations: {keep: me}}\n    spec:\n"
            + podSpec.indent(6));
  }

  private static Manifest obj(ConfigRollout.Result r, ResourceRef ref) {
    return java.util.Objects.requireNonNull(r.objects().get(ref), ref.key());
  }

  private static Map<ResourceRef, String> hashes(Manifest... objects) {
    Map<ResourceRef, String> hashes = new LinkedHashMap<>();
    for (Manifest m : objects) {
      hashes.put(m.ref(), m.kind().equals(CREDS.ref().kind()) ? KEY.hash(m) : ContentHash.of(m));
    }
    return hashes;
  }

  private static String expected(Map<ResourceRef, String> hashes, ResourceRef... inputs)
      throws Exception {
    StringBuilder text = new StringBuilder();
    for (ResourceRef in : inputs) {
      text.append(in.key()).append('=').append(hashes.get(in)).append('\n');
    }
    return "sha256:"
        + HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(text.toString().getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void onlyWorkloadsThatReadConfigOfTheReleaseGetTheExactAnnotation() throws Exception {
    Manifest config = CONFIG.render().get(0);
    Manifest creds = CREDS.render().get(0);
    Manifest byEnv =
        deployment(
            "by-env",
            "containers:\n- name: c\n  image: i\n  env:\n  - name: A\n    valueFrom: {configMapKeyRef:"
                + " {name: web-config, key: a}}\n  - name: P\n    valueFrom: {secretKeyRef: {name:"
                + " creds, key: pw}}\n");
    Manifest byVolume =
        deployment(
            "by-volume",
            """
            containers: [{name: c, image: i}]
            volumes:
            - {name: v, secret: {secretName: creds}}
            - name: p
              projected: {sources: [{configMap: {name: web-config}}]}
            """);
    Manifest byInit =
        deployment(
            "by-init",
            """
            initContainers: [{name: i, image: i, envFrom: [{configMapRef: {name: web-config}}]}]
            containers: [{name: c, image: i}]
            """);
    Manifest external =
        deployment(
            "external",
            "containers: [{name: c, image: i, envFrom: [{configMapRef: {name: not-ours}}]}]\n");
    Manifest none = deployment("none", "containers: [{name: c, image: i}]\n");
    Manifest job =
        yaml(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n"
                + "    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: i,"
                + " envFrom: [{configMapRef: {name: web-config}}]}]\n");
    Manifest cron =
        yaml(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule:"
                + " '@daily'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
                + "          restartPolicy: Never\n          containers: [{name: c, image: i,"
                + " envFrom: [{secretRef: {name: creds}}]}]\n");
    Manifest stateful =
        yaml(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n"
                + "  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app:"
                + " db}}\n    spec:\n      containers: [{name: c, image: i}]\n      volumes: [{name:"
                + " c, configMap: {name: web-config}}]\n");
    List<Manifest> all =
        List.of(config, creds, byEnv, byVolume, byInit, external, none, job, cron, stateful);
    Map<ResourceRef, String> hashes = hashes(all.toArray(Manifest[]::new));

    ConfigRollout.Result r = ConfigRollout.apply(all, hashes);

    assertThat(r.inputs())
        .containsExactly(
            Map.entry(byEnv.ref(), List.of(config.ref(), creds.ref())),
            Map.entry(byVolume.ref(), List.of(config.ref(), creds.ref())),
            Map.entry(byInit.ref(), List.of(config.ref())),
            Map.entry(cron.ref(), List.of(creds.ref())),
            Map.entry(stateful.ref(), List.of(config.ref())));
    String both = expected(hashes, config.ref(), creds.ref());
    assertThat(obj(r, byEnv.ref()))
        .isEqualTo(
            byEnv.with(
                "spec.template.metadata.annotations",
                Map.of("keep", "me", "capstan.dev/config-hash", both)));
    assertThat(obj(r, byVolume.ref()).get("spec.template.metadata.annotations"))
        .isEqualTo(Map.of("keep", "me", ConfigRollout.CONFIG_HASH, both));
    assertThat(obj(r, byInit.ref()).get("spec.template.metadata.annotations"))
        .isEqualTo(Map.of("keep", "me", ConfigRollout.CONFIG_HASH, expected(hashes, config.ref())));
    assertThat(obj(r, cron.ref()).get("spec.jobTemplate.spec.template.metadata.annotations"))
        .isEqualTo(Map.of(ConfigRollout.CONFIG_HASH, expected(hashes, creds.ref())));
    assertThat(obj(r, stateful.ref()).get("spec.template.metadata.annotations"))
        .isEqualTo(Map.of(ConfigRollout.CONFIG_HASH, expected(hashes, config.ref())));
    for (Manifest untouched : List.of(config, creds, external, none, job)) {
      assertThat(obj(r, untouched.ref())).isSameAs(untouched);
    }
    assertThat(r.objects().keySet())
        .containsExactlyElementsOf(all.stream().map(Manifest::ref).toList());
  }

  @Test
  void unchangedConfigGivesTheSameTemplateAndAChangedInputChangesOnlyItsReaders() {
    Manifest web =
        ServiceSpec.builder("shop", "web")
            .image("web:1")
            .envFromConfigMap("web-config")
            .build()
            .render()
            .get(0);
    Manifest worker =
        ServiceSpec.builder("shop", "worker")
            .image("w:1")
            .envFromSecret("creds")
            .build()
            .render()
            .get(0);
    Manifest config = CONFIG.render().get(0);
    Manifest creds = CREDS.render().get(0);
    List<Manifest> all = List.of(config, creds, web, worker);

    ConfigRollout.Result first = ConfigRollout.apply(all, hashes(config, creds, web, worker));
    ConfigRollout.Result again = ConfigRollout.apply(all, hashes(config, creds, web, worker));
    Manifest changed = CONFIG.with("a", "2").render().get(0);
    ConfigRollout.Result third =
        ConfigRollout.apply(
            List.of(changed, creds, web, worker), hashes(changed, creds, web, worker));

    assertThat(again.objects()).isEqualTo(first.objects());
    assertThat(third.objects().get(web.ref())).isNotEqualTo(first.objects().get(web.ref()));
    assertThat(third.objects().get(worker.ref())).isEqualTo(first.objects().get(worker.ref()));
  }

  @Test
  void aSecretCountsByItsKeyedHashNeverAPlainOne() throws Exception {
    Manifest worker =
        ServiceSpec.builder("shop", "worker")
            .image("w:1")
            .envFromSecret("creds")
            .build()
            .render()
            .get(0);
    Manifest creds = CREDS.render().get(0);
    SecretHashKey other = SecretHashKey.generate();

    Map<ResourceRef, String> keyed = Map.of(creds.ref(), KEY.hash(creds));
    Object annotation =
        obj(ConfigRollout.apply(List.of(creds, worker), keyed), worker.ref())
            .get("spec.template.metadata.annotations");

    assertThat(annotation)
        .isEqualTo(Map.of(ConfigRollout.CONFIG_HASH, expected(keyed, creds.ref())))
        .isNotEqualTo(
            Map.of(
                ConfigRollout.CONFIG_HASH,
                expected(Map.of(creds.ref(), ContentHash.of(creds)), creds.ref())))
        .isNotEqualTo(
            Map.of(
                ConfigRollout.CONFIG_HASH,
                expected(Map.of(creds.ref(), other.hash(creds)), creds.ref())));
  }

  @Test
  void aWorkloadAnnotatedFalseIsLeftAloneAndOnlyTrueOrFalseAreAccepted() {
    Manifest optedOut =
        ServiceSpec.builder("shop", "web")
            .image("web:1")
            .envFromConfigMap("web-config")
            .annotation(ConfigRollout.OPT_OUT, "false")
            .build()
            .render()
            .get(0);
    Manifest config = CONFIG.render().get(0);
    Manifest bad = optedOut.with("metadata.annotations", Map.of(ConfigRollout.OPT_OUT, "no\u001b"));

    ConfigRollout.Result r =
        ConfigRollout.apply(List.of(config, optedOut), hashes(config, optedOut));

    assertThat(obj(r, optedOut.ref())).isSameAs(optedOut);
    assertThat(r.inputs()).isEmpty();
    assertThat(ConfigRollout.problems(Payloads.of(config, optedOut).objects())).isEmpty();
    assertThat(ConfigRollout.problems(List.of(bad)))
        .containsExactly(
            "payloads[apps/Deployment/shop/web].metadata.annotations.capstan.dev/config-rollout"
                + " must be \"true\" or \"false\": 'no\\u001b'");
  }
}
