package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ResourceRef;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Release files are read strictly: a scalar of the wrong type is refused rather than converted,
 * nothing is reformatted, limits hold before a tree is built, and every echoed value is escaped.
 */
class StrictInputTest {
  private static final String HEAD = "apiVersion: capstan.dev/v1\nkind: Release\n";

  private static ReleaseFile parse(String yaml) {
    return parse(yaml.getBytes(StandardCharsets.UTF_8));
  }

  private static ReleaseFile parse(byte[] bytes) {
    return ReleaseFiles.parse(bytes, "r.yaml", Overrides.none(), n -> null);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          metadata: {name: x, version: 1.10}                                   | metadata.version: must be a string; quote it to keep the text: "1.10"
          metadata: {name: x}\\nspec: {configMaps: [{name: c, data: {a: 1.10}}]} | spec.configMaps[0].data.a: must be a string; quote it to keep the text: "1.10"
          metadata: {name: x}\\nspec: {configMaps: [{name: c, data: {a: 1e3}}]}  | spec.configMaps[0].data.a: must be a string; quote it to keep the text: "1E+3"
          metadata: {name: x}\\nspec: {secrets: [{name: s, stringData: {a: true}}]} | spec.secrets[0].stringData.a: must be a string; quote it to keep the text (the value is not shown)
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, replicas: 1.5}]} | spec.services[0].replicas: must be an integer: 1.5
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, replicas: '3'}]} | spec.services[0].replicas: must be an integer: '3'
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, replicas: 99999999999}]} | spec.services[0].replicas: must be an integer from -2147483648 to 2147483647: 99999999999
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, env: {A: 1}}]} | spec.services[0].env.A: must be a string; quote it to keep the text: "1"
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, volumeMounts: [{volume: v, mountPath: /d, readOnly: 'yes'}]}]} | spec.services[0].volumeMounts[0].readOnly: must be true or false: 'yes'
          metadata: {name: x}\\nspec: {services: [{name: w, image: w, ports: [{name: h, port: 80, protocol: SCTP}]}]} | spec.services[0]: ports[].protocol must be one of TCP, UDP: 'SCTP'
          """)
  void aScalarOfTheWrongTypeIsRefusedNotConverted(String body, String problem) {
    assertThatThrownBy(() -> parse(HEAD + body.replace("\\n", "\n")))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e -> assertThat(e.problems()).containsExactly(problem));
  }

  @Test
  void quotedNumbersAreKeptAsWritten() {
    ReleaseFile f =
        parse(
            HEAD
                + "metadata: {name: x, version: \"1.10\"}\n"
                + "spec: {configMaps: [{name: c, data: {a: \"1.10\", b: '1e3', c: \"007\"}}]}\n");
    assertThat(f.version()).isEqualTo("1.10");
    assertThat(f.payloads().item(ResourceRef.parse("ConfigMap/default/c")))
        .get()
        .isInstanceOfSatisfying(
            ConfigMapSpec.class,
            c ->
                assertThat(c.data())
                    .containsExactly(
                        java.util.Map.entry("a", "1.10"),
                        java.util.Map.entry("b", "1e3"),
                        java.util.Map.entry("c", "007")));
  }

  @Test
  void anEscByteAndANewlineInANameAppearEscaped() {
    assertThatThrownBy(() -> parse(HEAD + "metadata: {name: \"web\\e[2J\\nRelease deployed.\"}\n"))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessage(
            "r.yaml: metadata: release name must be a DNS-1123 label of at most 53 characters"
                + " (lower-case alphanumerics and '-', starting and ending with an alphanumeric):"
                + " 'web\\u001b[2J\\nRelease deployed.'")
        .message()
        .doesNotContain("\u001b")
        .doesNotContain("\n");
  }

  @Test
  void anEscByteInAnUnknownFieldNameAppearsEscaped() {
    assertThatThrownBy(() -> parse(HEAD + "metadata: {name: x}\nspec: {\"a\\eb\": 1}\n"))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e -> assertThat(e.problems()).containsExactly("spec.a\\u001bb: unknown field"));
  }

  @Test
  @Timeout(5)
  void tenThousandLevelsOfYamlAreRefused() {
    String deep = HEAD + "spec: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n";
    assertThatThrownBy(() -> parse(deep))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessage("r.yaml: nesting is deeper than 100 levels (the limit) at line 3, column 106");
  }

  @Test
  @Timeout(5)
  void tenThousandLevelsOfJsonAreRefused() {
    String deep =
        "{\"apiVersion\": \"capstan.dev/v1\", \"spec\": "
            + "{\"a\": ".repeat(10_000)
            + "1"
            + "}".repeat(10_000)
            + "}";
    assertThatThrownBy(() -> parse(deep))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessage("r.yaml: nesting is deeper than 100 levels (the limit) at line 1, column 636");
  }

  @Test
  void nonUtf8IsRefusedWithThePosition() {
    byte[] bytes =
        (HEAD + "metadata: {name: x}\n# caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1);
    assertThatThrownBy(() -> parse(bytes))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessage("r.yaml: not UTF-8 text: byte 0xe9 at line 4, column 6 (offset 66)");
  }
}
