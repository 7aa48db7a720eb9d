package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReleaseFilesTest {
  private static final Map<String, String> ENV = Map.of("WEB_DB_PASSWORD", "from-the-env");

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ReleaseFilesTest.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("no test resource " + name);
      }
      return in.readAllBytes();
    }
  }

  private static @Nullable String env(String name) {
    return ENV.get(name);
  }

  private static ReleaseFile parse(String yaml) {
    return ReleaseFiles.parse(
        yaml.getBytes(StandardCharsets.UTF_8),
        "test.yaml",
        Overrides.none(),
        ReleaseFilesTest::env);
  }

  @Test
  void parsesEveryFieldOfTheSchema() throws IOException {
    ReleaseFile f =
        ReleaseFiles.parse(
            resource("full.yaml"), "full.yaml", Overrides.none(), ReleaseFilesTest::env);

    assertThat(f.name()).isEqualTo("web");
    assertThat(f.namespace()).isEqualTo("shop");
    assertThat(f.version()).isEqualTo("1.4.2");
    ServiceSpec web =
        ServiceSpec.builder("shop", "web")
            .image("ghcr.io/acme/web:1.4.2")
            .replicas(3)
            .command("/bin/web")
            .args("--port", "8080")
            .port("http", 8080)
            .port("metrics", 9090)
            .env("MODE", "prod")
            .env("WORKERS", "4")
            .envFromSecret("web-db")
            .envFromConfigMap("web-settings")
            .mount("web-data", "/var/lib/web")
            .resources(new ServiceSpec.Resources("250m", "256Mi", null, "1Gi"))
            .readinessProbe(new ServiceSpec.Probe("/healthz", 8080, 0, 5))
            .label("app.kubernetes.io/name", "web")
            .annotation("team", "storefront")
            .build();
    assertThat(f.payloads().item(web.ref())).contains(web);
    SecretSpec secret =
        (SecretSpec) f.payloads().item(ResourceRef.parse("Secret/shop/web-db")).orElseThrow();
    assertThat(secret.data())
        .containsEntry("password", SecretValue.of("from-the-env"))
        .containsEntry("user", SecretValue.of("web"))
        .containsEntry("cert", SecretValue.ofBytes(new byte[] {0, (byte) 255, 7}));
    assertThat(f.payloads().item(ResourceRef.parse("ConfigMap/shop/web-settings")))
        .contains(ConfigMapSpec.of("shop", "web-settings", Map.of("log-level", "info")));
    assertThat(f.payloads().item(ResourceRef.parse("PersistentVolumeClaim/shop/web-data")))
        .contains(
            VolumeSpec.of("shop", "web-data", "5Gi")
                .withStorageClass("fast")
                .withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN));
    ReleaseSpec spec = f.toSpec();
    // a volume's storage class is no reference: a claim may name a class no object backs
    assertThat(spec.references())
        .containsExactly(
            ResourceRef.namespace("shop"), ResourceRef.parse("Secret/shop/registry-pull"));
    assertThat(spec.version()).isEqualTo("1.4.2");
  }

  @Test
  void commandLineOverridesWinAndObjectsFollowTheNamespace() {
    String yaml =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: web, namespace: shop}
        spec:
          configMaps: [{name: settings, data: {a: "1"}}]
        """;

    ReleaseFile f =
        ReleaseFiles.parse(
            yaml.getBytes(StandardCharsets.UTF_8),
            "x",
            new Overrides("staging", "web-2"),
            n -> null);

    assertThat(f.name()).isEqualTo("web-2");
    assertThat(f.namespace()).isEqualTo("staging");
    assertThat(f.payloads().refs())
        .containsExactly(ResourceRef.parse("ConfigMap/staging/settings"));
  }

  @Test
  void specOptionsSetTheCastOptionsTheFileMayAndNothingElse() {
    ReleaseFile allowing =
        parse(
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: widgets}
            spec:
              options: {allowUnsafeCrdChanges: true}
              configMaps: [{name: c}]
            """);
    ReleaseFile plain =
        parse(
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: widgets}
            spec:
              configMaps: [{name: c}]
            """);

    ReleaseFile unverified =
        parse(
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: widgets}
            spec:
              options: {verifyOnServer: false}
              configMaps: [{name: c}]
            """);

    // a release file's plans are verified on the server unless it says otherwise
    assertThat(allowing.options().allowUnsafeCrdChanges()).isTrue();
    assertThat(allowing.toSpec().options())
        .isEqualTo(
            ReleaseOptions.defaults().withAllowUnsafeCrdChanges(true).withVerifyOnServer(true));
    assertThat(plain.toSpec().options())
        .isEqualTo(ReleaseOptions.defaults().withVerifyOnServer(true));
    assertThat(unverified.toSpec().options()).isEqualTo(ReleaseOptions.defaults());
    assertThatThrownBy(
            () ->
                parse(
                    """
                    apiVersion: capstan.dev/v1
                    kind: Release
                    metadata: {name: widgets}
                    spec:
                      options: {allowUnsafeCrdChanges: "yes", adopt: true}
                    """))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "spec.options.allowUnsafeCrdChanges: must be true or false: 'yes'",
                        "spec.options.adopt: unknown field"));
  }

  /** The document's own problems and its elements' are reported together, each element's all. */
  @Test
  void everyProblemOfTheDocumentAndOfEachElementIsReportedAtOnce() {
    assertThatThrownBy(
            () ->
                parse(
                    """
                    apiVersion: capstan.dev/v1
                    kind: Release
                    metadata: {name: widgets, colour: blue}
                    spec:
                      options: {verifyOnServer: "no"}
                      configMaps: [{name: c, colour: red, data: [x]}]
                    """))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "metadata.colour: unknown field",
                        "spec.options.verifyOnServer: must be true or false: 'no'",
                        "spec.configMaps[0].data: must be a mapping",
                        "spec.configMaps[0].colour: unknown field"));
  }

  @Test
  void driftIgnoreRulesAreReadAndEveryProblemNamedWithItsField() {
    ReleaseFile f =
        parse(
            """
            apiVersion: capstan.dev/v1
            kind: Release
            metadata: {name: web}
            spec:
              options:
                driftIgnore:
                  - {kind: apps/Deployment, name: web, paths: [/spec/replicas]}
                  - {kind: admissionregistration.k8s.io/ValidatingWebhookConfiguration,
                     managers: [cert-injector]}
              configMaps: [{name: c}]
            """);

    assertThat(f.toSpec().options().driftIgnore())
        .containsExactly(
            DriftIgnore.paths("apps/Deployment", "/spec/replicas").forName("web"),
            DriftIgnore.managers(
                "admissionregistration.k8s.io/ValidatingWebhookConfiguration", "cert-injector"));
    assertThatThrownBy(
            () ->
                parse(
                    """
                    apiVersion: capstan.dev/v1
                    kind: Release
                    metadata: {name: web}
                    spec:
                      options:
                        driftIgnore:
                          - {kind: Deployment, paths: [spec/replicas], managers: [capstan]}
                          - {kind: ConfigMap}
                          - {kind: ConfigMap, paths: "/data", match: x}
                      configMaps: [{name: c}]
                    """))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "spec.options.driftIgnore[0]: paths[0]: must be a JSON pointer to a field,"
                            + " e.g. /spec/replicas: 'spec/replicas'",
                        "spec.options.driftIgnore[0]: managers[0]: Capstan's own field manager"
                            + " cannot be trusted over itself: 'capstan'",
                        "spec.options.driftIgnore[1]: a rule must name at least one of paths and"
                            + " managers",
                        "spec.options.driftIgnore[2].paths: must be a list",
                        "spec.options.driftIgnore[2].match: unknown field"));
  }

  @Test
  void jsonIsAcceptedToo() {
    ReleaseFile f =
        parse(
            "{\"apiVersion\":\"capstan.dev/v1\",\"kind\":\"Release\",\"metadata\":{\"name\":\"a\"},"
                + "\"spec\":{\"configMaps\":[{\"name\":\"c\"}]}}");

    assertThat(f.namespace()).isEqualTo("default");
    assertThat(f.payloads().refs()).containsExactly(ResourceRef.parse("ConfigMap/default/c"));
  }

  @Test
  void everyProblemIsReportedTogetherWithItsPath() throws IOException {
    assertThatThrownBy(
            () ->
                ReleaseFiles.parse(
                    resource("many-problems.yaml"),
                    "bad.yaml",
                    Overrides.none(),
                    ReleaseFilesTest::env))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "apiVersion must be capstan.dev/v1: 'capstan.dev/v2'",
                        "spec.services[0].replicas: must be an integer: 'many'",
                        "spec.services[1].colour: unknown field",
                        "spec.secrets[0].data.bin: value must be base64 (the value is not shown)",
                        "spec.secrets[0].fromEnv.password: environment variable NOT_SET_ANYWHERE is"
                            + " not set",
                        "spec.volumes[0]: reclaimPolicy must be one of Retain, Delete: 'Keep'",
                        "spec.references[0]: kind must start with an upper-case letter and hold"
                            + " only letters and digits (at most 63): 'deployment'"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          kind: Release                                     | apiVersion must be capstan.dev/v1: null
          apiVersion: capstan.dev/v1\\nkind: Rel            | kind must be Release: 'Rel'
          a: 1\\na: 2                                      | not valid YAML at line 2, column 1: found duplicate key a
          - 1                                               | document must be a mapping with apiVersion, kind, metadata and spec
          apiVersion: capstan.dev/v1\\nkind: Release\\nmetadata: {name: x}\\nspec: {volumes: [{name: v, size: 1Gi, reclaimPolicy: Keep}]} | spec.volumes[0]: reclaimPolicy must be one of Retain, Delete: 'Keep'
          apiVersion: capstan.dev/v1\\nkind: Release\\nmetadata: {name: x}\\nspec: {services: [{name: w, image: w, envFrom: [{secret: a, configMap: b}]}]} | spec.services[0]: envFrom entries must name exactly one of secret, configMap
          apiVersion: capstan.dev/v1\\nkind: Release\\nmetadata: {name: x}\\nspec: {configMaps: [{name: a}, {name: a}]} | spec: payloads must have unique objects: duplicate 'ConfigMap/default/a'
          apiVersion: capstan.dev/v1\\nkind: Release\\nmetadata: {name: Bad}\\nspec: {} | metadata: release name must be a DNS-1123 label of at most 53 characters
          apiVersion: capstan.dev/v1\\nkind: Release\\nspec: {} | metadata.name must be set (or passed as --release): null
          """)
  void eachRuleHasAClearMessage(String yaml, String expected) {
    assertThatThrownBy(() -> parse(yaml.replace("\\n", "\n")))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessageContaining(expected);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          stringData: {password: 424242424242}                       | spec.secrets[0].stringData.password: must be a string; quote it to keep the text (the value is not shown)
          stringData: {pin: 0.4242}                                  | spec.secrets[0].stringData.pin: must be a string; quote it to keep the text (the value is not shown)
          stringData: {flag: true}                                   | spec.secrets[0].stringData.flag: must be a string; quote it to keep the text (the value is not shown)
          data: {cert: 424242424242}                                 | spec.secrets[0].data.cert: must be a string; quote it to keep the text (the value is not shown)
          data: {cert: [424242424242]}                               | spec.secrets[0].data.cert: must be a string (the value is not shown)
          stringData: '424242424242'                                 | spec.secrets[0].stringData: must be a mapping (the value is not shown)
          data: {cert: 'not base64 424242424242!!'}                  | spec.secrets[0].data.cert: value must be base64 (the value is not shown)
          """)
  void aSecretValueOfTheWrongTypeIsNamedButNeverShown(String values, String problem) {
    String yaml =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: bo, namespace: demo}
        spec:
          secrets:
          - name: s
            %s
        """
            .formatted(values);

    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e -> assertThat(e.problems()).containsExactly(problem))
        .hasMessage("test.yaml: " + problem)
        .hasMessageNotContaining("4242");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {DB_PASSWORD: 424242424242}   | spec.services[0].env.DB_PASSWORD: must be a string; quote it to keep the text (the value is not shown)
          {API_TOKEN: 0.4242}           | spec.services[0].env.API_TOKEN: must be a string; quote it to keep the text (the value is not shown)
          {db-secret: [424242424242]}   | spec.services[0].env.db-secret: must be a string (the value is not shown)
          {LOG_LEVEL: 4242}             | spec.services[0].env.LOG_LEVEL: must be a string; quote it to keep the text: "4242"
          """)
  void anEnvValueOfTheWrongTypeIsNeverShownWhenItsNameNamesASecret(String env, String problem) {
    String yaml =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: bo, namespace: demo}
        spec:
          services:
          - {name: web, image: web, env: %s}
        """
            .formatted(env);

    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e -> assertThat(e.problems()).containsExactly(problem))
        .hasMessage("test.yaml: " + problem);
  }

  @Test
  void secretValuesNeverAppearInErrors() {
    String yaml =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: x}
        spec:
          secrets:
          - {name: s, stringData: {k: TOPSECRET-1}, data: {k: VE9QU0VDUkVULTI=}}
        """;

    assertThatThrownBy(() -> parse(yaml))
        .hasMessageContaining("key 'k' is given more than once")
        .hasMessageNotContaining("TOPSECRET");
  }

  @Test
  void aFileOverTheSizeLimitIsRefused() {
    byte[] big = new byte[ReleaseFiles.MAX_BYTES + 1];

    assertThatThrownBy(() -> ReleaseFiles.parse(big, "big.yaml", Overrides.none(), n -> null))
        .hasMessage("big.yaml: document is 33554433 bytes; the limit is 33554432 bytes (32 MiB)");
  }
}
