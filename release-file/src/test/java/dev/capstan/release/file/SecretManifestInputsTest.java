package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The text of a Secret named in a Release's {@code spec.manifestsFrom} is never shown: each problem
 * names the input, the rule, the line and column and a value's shape, and no value, name or excerpt
 * of the text (docs/controller.md: a Secret's values reach no status, Event or log line).
 */
class SecretManifestInputsTest {
  private static final Overrides SHOP = new Overrides("shop", "web", "shop");

  private static List<String> problems(ManifestInput input) {
    return catchThrowableOfType(
            InvalidReleaseFileException.class,
            () -> ReleaseFiles.manifestInputs(List.of(input), "Release shop/web", SHOP))
        .problems();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          hunter2                                                   | (secret db-creds key password#0): a manifest must be a mapping with apiVersion, kind and metadata: a string (the value is not shown)
          -----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF    | (secret db-creds key password#0): a manifest must be a mapping with apiVersion, kind and metadata: a string (the value is not shown)
          424242                                                    | (secret db-creds key password#0): a manifest must be a mapping with apiVersion, kind and metadata: a number (the value is not shown)
          [hunter2]                                                 | (secret db-creds key password#0): a manifest must be a mapping with apiVersion, kind and metadata: a list
          stringData: {password: *s3cret}                           | (secret db-creds key password#0): an alias refers to no complete node before it (an undefined anchor or one that contains the alias) at line 1, column 24
          s3cret: 1\\ns3cret: 2                                     | (secret db-creds key password#0): not valid YAML at line 2, column 1: found a duplicate key
          password: "hunter2\\q"                                    | (secret db-creds key password#0): not valid YAML at line 1, column 20
          apiVersion: v1\\nkind: [hunter2]\\nmetadata: {name: a}   | (secret db-creds key password#0): kind must be a non-empty string: a list
          apiVersion: 42\\nkind: Secret\\nmetadata: {name: a}       | (secret db-creds key password#0): apiVersion must be a non-empty string: a number (the value is not shown)
          apiVersion: v1\\nkind: Secret\\nmetadata: hunter2         | (secret db-creds key password#0): metadata must be a mapping with a name: a string (the value is not shown)
          apiVersion: v1\\nkind: SecretList\\nitems: hunter2         | (secret db-creds key password#0): items must be a list of objects in a SecretList: a string (the value is not shown)
          apiVersion: v1\\nkind: SecretList\\nitems: [{kind: hunter2}] | (secret db-creds key password#0).items[0]: kind must be Secret in a SecretList: a string (the value is not shown)
          apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c}\\nspec: {x: 1e400} | (secret db-creds key password#0): ConfigMap shop/c: spec.x must be a number within a 64-bit float's range (at most 1.7976931348623157E308 in size), as the API server reads it; quote it for a string (the value is not shown)
          apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c}\\ndata: {DB_PASSWORD: 12345678} | (secret db-creds key password#0): ConfigMap shop/c: data['DB_PASSWORD'] must be a string; quote it to keep the text (the value is not shown)
          apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c, labels: {a: 'hunter 2'}} | (secret db-creds key password#0): ConfigMap shop/c: metadata.labels['a'] value must be empty or at most 63 characters [A-Za-z0-9._-] starting and ending with an alphanumeric (the value is not shown)
          apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c, annotations: {a: 12345678}} | (secret db-creds key password#0): ConfigMap/shop/c: metadata.annotations.a must be a string (quote it): (the value is not shown)
          apiVersion: apps/v1\\nkind: Deployment\\nmetadata: {name: d}\\nspec: {template: {spec: {containers: [{name: a, image: a, env: [{name: DB_PASSWORD, value: 12345678}]}]}}} | (secret db-creds key password#0): Deployment shop/d: spec.template.spec.containers[0].env[0].value must be a string, as an environment variable's value is; quote it to keep the text (the value is not shown)
          """)
  void aSecretsTextIsRefusedWithoutShowingAnyOfIt(String text, String problem) {
    List<String> problems =
        problems(
            ManifestInput.secretText("secret db-creds key password", text.replace("\\n", "\n")));

    assertThat(problems).containsExactly(problem);
  }

  @Test
  void aConfigMapsTextIsStillRefusedWithTheValueItHolds() {
    assertThat(problems(ManifestInput.text("configmap web key all.yaml", "hunter2")))
        .containsExactly(
            "(configmap web key all.yaml#0): a manifest must be a mapping with apiVersion, kind"
                + " and metadata: 'hunter2'");
  }
}
