package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.health.HealthRule;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A release file's {@code spec.options.healthRules}: read into the release's options, and compiled
 * when the file is read, so a bad expression is refused with its path and position (CLI exit 2),
 * and a rule's delete-gate sibling fields stay as they were.
 */
class HealthRulesFileTest {
  private static ReleaseFile parse(String options) {
    String yaml =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: shop, namespace: demo}
        spec:
          configMaps:
          - {name: a, data: {k: v}}
          options:
        """
            + options;
    return ReleaseFiles.parse(
        yaml.getBytes(StandardCharsets.UTF_8), "shop.yaml", Overrides.none(), n -> null);
  }

  @Test
  void theRulesOfTheFileAreTheReleasesOwn() {
    ReleaseFile f =
        parse(
            """
                healthRules:
                - kind: example.com/Widget
                  current: self.status.phase == 'Running'
                  failed: self.status.phase == 'Failed'
            """);

    assertThat(f.options().healthRules())
        .containsExactly(
            HealthRule.current("example.com/Widget", "self.status.phase == 'Running'")
                .withFailed("self.status.phase == 'Failed'"));
  }

  @Test
  void aBadExpressionIsRefusedWithItsPathAndPositionAndABadFieldByName() {
    assertThatThrownBy(
            () ->
                parse(
                    """
                        healthRules:
                        - kind: example.com/Widget
                          current: self.status.phase == 'Running'
                          failed: slf.status.phase == 'Failed'
                    """))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "spec.options.healthRules[0] (example.com/Widget).failed: 1:1:"
                            + " undeclared reference to 'slf' (in container '')"));
    assertThatThrownBy(
            () ->
                parse(
                    """
                        healthRules:
                        - kind: ConfigMap
                          current: 'true'
                          ready: 'true'
                    """))
        .isInstanceOfSatisfying(
            InvalidReleaseFileException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .asString()
                    .startsWith("spec.options.healthRules[0]")
                    .contains("ready"));
  }
}
