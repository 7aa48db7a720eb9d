package dev.capstan.release.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.release.diff.FieldChange.Op;
import dev.capstan.release.model.Manifest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

class ManifestDiffTest {
  private static final String SECRET_VALUE = "hunter2-S3CR3T";

  private static Manifest yaml(String yaml) {
    @SuppressWarnings("unchecked")
    Map<String, Object> tree =
        (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(yaml);
    return Manifest.of(tree, "shop");
  }

  private static Manifest deployment(String image, String labels, String env) {
    return yaml(
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          labels: {app: web%s}
        spec:
          replicas: 2
          template:
            spec:
              containers:
              - name: sidecar
                image: envoy:1.30
              - name: web
                image: %s
                env:
                - {name: DB_HOST, value: db}%s
        """
            .formatted(labels, image, env));
  }

  private static final Manifest WEB = deployment("ghcr.io/acme/web:1.0.0", ", tier: frontend", "");

  @Test
  void aChangedImageIsOneReplaceAtTheContainersName() {
    Manifest after = deployment("ghcr.io/acme/web:1.1.0", ", tier: frontend", "");

    assertThat(ManifestDiff.between(WEB, after))
        .containsExactly(
            FieldChange.replaced(
                "spec.template.spec.containers[name=web].image",
                "ghcr.io/acme/web:1.0.0",
                "ghcr.io/acme/web:1.1.0"));
  }

  @Test
  void anAddedEnvVarIsOneAddOfTheWholeVarByName() {
    Manifest after =
        deployment(
            "ghcr.io/acme/web:1.0.0",
            ", tier: frontend",
            "\n        - {name: LOG_LEVEL, value: debug}");

    assertThat(ManifestDiff.between(WEB, after))
        .containsExactly(
            FieldChange.added(
                "spec.template.spec.containers[name=web].env[name=LOG_LEVEL]",
                Map.of("name", "LOG_LEVEL", "value", "debug")));
  }

  @Test
  void anEnvVarInsertedFirstChangesNoOtherVar() {
    Manifest before = deployment("i:1", "", "\n        - {name: B, value: b}");
    Manifest after =
        yaml(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              labels: {app: web}
            spec:
              replicas: 2
              template:
                spec:
                  containers:
                  - name: sidecar
                    image: envoy:1.30
                  - name: web
                    image: i:1
                    env:
                    - {name: A, value: a}
                    - {name: DB_HOST, value: db}
                    - {name: B, value: b}
            """);

    assertThat(ManifestDiff.between(before, after))
        .containsExactly(
            FieldChange.added(
                "spec.template.spec.containers[name=web].env[name=A]",
                Map.of("name", "A", "value", "a")));
  }

  @Test
  void aRemovedLabelIsOneRemoveWithItsValue() {
    Manifest after = deployment("ghcr.io/acme/web:1.0.0", "", "");

    assertThat(ManifestDiff.between(WEB, after))
        .containsExactly(FieldChange.removed("metadata.labels.tier", "frontend"));
  }

  @Test
  void keysThatAreNoPlainWordAreQuotedInBracketsAndAMapOnOneSideIsComparedKeyByKey() {
    Manifest before = deployment("ghcr.io/acme/web:1.0.0", ", app.kubernetes.io/name: web", "");
    Manifest after = deployment("ghcr.io/acme/web:1.0.0", "", "");

    assertThat(ManifestDiff.between(before, after))
        .containsExactly(FieldChange.removed("metadata.labels[\"app.kubernetes.io/name\"]", "web"));
    assertThat(ManifestDiff.between(WEB, WEB.with("metadata.labels", null)))
        .containsExactly(
            FieldChange.removed("metadata.labels.app", "web"),
            FieldChange.removed("metadata.labels.tier", "frontend"));
  }

  @Test
  void unnamedListsOfEqualLengthCompareByIndexAndOthersAsAWhole() {
    Manifest before =
        yaml(
            """
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: web}
            spec:
              rules:
              - {host: a.example.com}
              - {host: b.example.com}
              tls:
              - hosts: [a.example.com]
            """);
    Manifest after =
        yaml(
            """
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: web}
            spec:
              rules:
              - {host: a.example.com}
              - {host: c.example.com}
              tls:
              - hosts: [a.example.com, c.example.com]
            """);

    assertThat(ManifestDiff.between(before, after))
        .containsExactly(
            FieldChange.replaced("spec.rules[1].host", "b.example.com", "c.example.com"),
            FieldChange.replaced(
                "spec.tls[0].hosts",
                List.of("a.example.com"),
                List.of("a.example.com", "c.example.com")));
  }

  @Test
  void equalNumbersOfDifferentFormsAreNoChange() {
    Manifest after = WEB.with("spec.replicas", 2L);

    assertThat(ManifestDiff.between(WEB, after)).isEmpty();
    assertThat(ManifestDiff.between(WEB, WEB.with("spec.replicas", 3)))
        .containsExactly(FieldChange.replaced("spec.replicas", 2, 3));
  }

  @Test
  void aChangedSecretKeyShowsNoValueInTextJsonOrToString() throws Exception {
    Manifest before =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata: {name: db}
            data: {password: b2xk, user: YXBw, gone: eA==}
            """);
    Manifest after =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata: {name: db}
            data: {password: %s, user: YXBw}
            stringData: {token: %s}
            """
                .formatted(SECRET_VALUE, SECRET_VALUE));

    List<FieldChange> diff = ManifestDiff.between(before, after);

    assertThat(diff)
        .containsExactly(
            FieldChange.secret("data.gone", Op.REMOVE),
            FieldChange.secret("data.password", Op.REPLACE),
            FieldChange.secret("stringData.token", Op.ADD));
    assertThat(diff.toString())
        .isEqualTo("[data.gone: (removed), data.password: (changed), stringData.token: (added)]")
        .doesNotContain(SECRET_VALUE)
        .doesNotContain("b2xk");
    assertThat(new ObjectMapper().writeValueAsString(diff))
        .doesNotContain(SECRET_VALUE)
        .doesNotContain("b2xk");
  }

  @Test
  void anEnvVarNamedAsASecretShowsNoValueChangedAddedOrRemoved() throws Exception {
    Manifest before =
        deployment(
            "i:1",
            "",
            ("\n        - {name: DB_PASSWORD, value: old-%s}"
                    + "\n        - {name: OLD_API_KEY, value: gone-%s}"
                    + "\n        - {name: LOG_LEVEL, value: info}")
                .formatted(SECRET_VALUE, SECRET_VALUE));
    Manifest after =
        deployment(
            "i:1",
            "",
            ("\n        - {name: DB_PASSWORD, value: new-%s}"
                    + "\n        - {name: API_TOKEN, value: %s}"
                    + "\n        - {name: LOG_LEVEL, value: debug}")
                .formatted(SECRET_VALUE, SECRET_VALUE));

    List<FieldChange> diff = ManifestDiff.between(before, after);

    String env = "spec.template.spec.containers[name=web].env";
    assertThat(diff)
        .containsExactly(
            FieldChange.secret(env + "[name=DB_PASSWORD].value", Op.REPLACE),
            FieldChange.secret(env + "[name=API_TOKEN]", Op.ADD),
            FieldChange.replaced(env + "[name=LOG_LEVEL].value", "info", "debug"),
            FieldChange.secret(env + "[name=OLD_API_KEY]", Op.REMOVE));
    assertThat(diff.toString()).doesNotContain(SECRET_VALUE);
    assertThat(new ObjectMapper().writeValueAsString(diff)).doesNotContain(SECRET_VALUE);
  }

  @Test
  void anEnvVarNamedAsASecretShowsNotShownInAContainerAddedWhole() throws Exception {
    Manifest after =
        yaml(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              labels: {app: web, tier: frontend}
            spec:
              replicas: 2
              template:
                spec:
                  containers:
                  - name: sidecar
                    image: envoy:1.30
                  - name: web
                    image: ghcr.io/acme/web:1.0.0
                    env:
                    - {name: DB_HOST, value: db}
                  - name: migrate
                    image: m:1
                    env:
                    - {name: DB_PASSWORD, value: %s}
                    - {name: DB_USER, value: app}
            """
                .formatted(SECRET_VALUE));

    List<FieldChange> diff = ManifestDiff.between(WEB, after);

    assertThat(diff)
        .containsExactly(
            FieldChange.added(
                "spec.template.spec.containers[name=migrate]",
                Map.of(
                    "name",
                    "migrate",
                    "image",
                    "m:1",
                    "env",
                    List.of(
                        Map.of("name", "DB_PASSWORD", "value", "(the value is not shown)"),
                        Map.of("name", "DB_USER", "value", "app")))));
    assertThat(new ObjectMapper().writeValueAsString(diff)).doesNotContain(SECRET_VALUE);
  }

  @Test
  void anEnvListReplacedWholeOrOnOneSideShowsNoSecretNamedValue() throws Exception {
    // duplicate names: the list is matched neither by name nor, of another length, by index
    Manifest before = deployment("i:1", "", "\n        - {name: DB_HOST, value: db2}");
    Manifest after =
        deployment(
            "i:1",
            "",
            "\n        - {name: DB_HOST, value: db2}\n        - {name: PGPASSWORD, value: %s}"
                .formatted(SECRET_VALUE));
    Manifest none =
        yaml(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - {name: web, image: i:1}
            """);
    Manifest some =
        yaml(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - name: web
                    image: i:1
                    env: [{name: PGPASSWORD, value: %s}]
            """
                .formatted(SECRET_VALUE));

    List<FieldChange> replaced = ManifestDiff.between(before, after);
    List<FieldChange> added = ManifestDiff.between(none, some);

    assertThat(replaced).extracting(FieldChange::op).containsExactly(Op.REPLACE);
    assertThat(added)
        .containsExactly(
            FieldChange.added(
                "spec.template.spec.containers[name=web].env",
                List.of(Map.of("name", "PGPASSWORD", "value", "(the value is not shown)"))));
    assertThat(new ObjectMapper().writeValueAsString(List.of(replaced, added)))
        .contains("(the value is not shown)")
        .doesNotContain(SECRET_VALUE);
  }

  @Test
  void anEnvVarNamedAsASecretShowsItsValueFromAndTheSwitchToIt() {
    Manifest before =
        deployment("i:1", "", "\n        - {name: DB_PASSWORD, value: %s}".formatted(SECRET_VALUE));
    Manifest after =
        deployment(
            "i:1",
            "",
            "\n        - name: DB_PASSWORD\n          valueFrom: {secretKeyRef: {name: db, key: pw}}");

    List<FieldChange> diff = ManifestDiff.between(before, after);

    String at = "spec.template.spec.containers[name=web].env[name=DB_PASSWORD]";
    assertThat(diff)
        .containsExactly(
            FieldChange.secret(at + ".value", Op.REMOVE),
            FieldChange.added(at + ".valueFrom.secretKeyRef.key", "pw"),
            FieldChange.added(at + ".valueFrom.secretKeyRef.name", "db"));
  }

  @Test
  void aSecretsLastAppliedAnnotationIsHiddenEvenWhenAllAnnotationsAreNew() {
    Manifest before =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata: {name: db}
            """);
    Manifest after =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata:
              name: db
              annotations:
                kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"%s"}}'
                team: shop
            """
                .formatted(SECRET_VALUE));

    List<FieldChange> diff = ManifestDiff.between(before, after);

    assertThat(diff)
        .containsExactly(
            FieldChange.secret(
                "metadata.annotations[\"kubectl.kubernetes.io/last-applied-configuration\"]",
                Op.ADD),
            FieldChange.secret("metadata.annotations.team", Op.ADD));
    assertThat(diff.toString()).doesNotContain(SECRET_VALUE);
  }

  @Test
  void aMisspelledSecretFieldShowsNoValueInTextJsonOrToString() throws Exception {
    Manifest before =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata: {name: creds}
            stringdata: {password: Sup3rS3cretPW8}
            """);
    Manifest after =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata: {name: creds}
            stringdata: {password: Sup3rS3cretPW8b}
            Data: Sup3rS3cretPW8c
            extra: [Sup3rS3cretPW8d]
            """);

    List<FieldChange> diff = ManifestDiff.between(before, after);

    assertThat(diff)
        .containsExactly(
            FieldChange.secret("Data", Op.ADD),
            FieldChange.secret("extra", Op.ADD),
            FieldChange.secret("stringdata.password", Op.REPLACE));
    assertThat(diff.toString())
        .isEqualTo("[Data: (added), extra: (added), stringdata.password: (changed)]");
    assertThat(new ObjectMapper().writeValueAsString(diff)).doesNotContain("Sup3rS3cret");
  }

  @Test
  void onlyASecretsTypeImmutableAndMetadataButAnnotationValuesShowTheirValues() {
    Manifest before =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata:
              name: tls
              labels: {tier: web}
              annotations: {note: %s}
            type: Opaque
            """
                .formatted(SECRET_VALUE));
    Manifest after =
        yaml(
            """
            apiVersion: v1
            kind: Secret
            metadata:
              name: tls
              labels: {tier: edge}
              annotations: {note: other}
            type: kubernetes.io/tls
            immutable: true
            """);

    List<FieldChange> diff = ManifestDiff.between(before, after);

    assertThat(diff)
        .containsExactly(
            FieldChange.added("immutable", true),
            FieldChange.secret("metadata.annotations.note", Op.REPLACE),
            FieldChange.replaced("metadata.labels.tier", "web", "edge"),
            FieldChange.replaced("type", "Opaque", "kubernetes.io/tls"));
    assertThat(diff.toString()).doesNotContain(SECRET_VALUE);
  }

  @Test
  void aConfigMapsDataIsNoSecret() {
    Manifest before = yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: x}}");
    Manifest after = yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: y}}");

    assertThat(ManifestDiff.between(before, after))
        .containsExactly(FieldChange.replaced("data.a", "x", "y"));
  }

  @Test
  void twoDifferentObjectsAreRefused() {
    Manifest other = yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}");

    assertThatThrownBy(() -> ManifestDiff.between(WEB, other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a diff compares one object: apps/Deployment/shop/web is not ConfigMap/shop/c");
  }

  @Test
  void aSecretChangeHoldsNoValueAndAPlainChangeHoldsTheOnesItsOpNeeds() {
    assertThatThrownBy(() -> new FieldChange("data.x", Op.REPLACE, "a", null, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a secret field change holds no value: data.x");
    assertThatThrownBy(() -> new FieldChange("spec.x", Op.ADD, "a", "b", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field change spec.x: add needs an after value and no before value");
  }
}
