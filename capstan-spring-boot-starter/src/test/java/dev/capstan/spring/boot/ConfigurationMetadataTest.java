package dev.capstan.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.capstan.common.JsonMappers;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The jar describes every {@code capstan.*} property for the IDE (Spring Boot's configuration
 * processor, from the properties' Javadoc): its type and a description in plain words.
 */
class ConfigurationMetadataTest {
  @Test
  void everyPropertyHasItsTypeAndAPlainDescription() throws IOException {
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
      metadata = JsonMappers.trees().readTree(in);
    }
    Map<String, String> types = new TreeMap<>();
    for (JsonNode property : metadata.get("properties")) {
      types.put(property.get("name").asText(), property.get("type").asText());
      assertThat(property.path("description").asText())
          .as(property.get("name").asText())
          .hasSizeGreaterThan(20)
          .doesNotContain("{@")
          .doesNotContain("they ");
    }

    assertThat(types)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.ofEntries(
                    Map.entry("capstan.kubernetes.context", "java.lang.String"),
                    Map.entry("capstan.kubernetes.kubeconfig", "java.nio.file.Path"),
                    Map.entry("capstan.metrics.enabled", "java.lang.Boolean"),
                    Map.entry("capstan.metrics.release-tags", "java.lang.Boolean"),
                    Map.entry("capstan.release.holder", "java.lang.String"),
                    Map.entry("capstan.release.lease-duration", "java.time.Duration"),
                    Map.entry("capstan.release.max-history", "java.lang.Integer"),
                    Map.entry("capstan.release.parallelism", "java.lang.Integer"),
                    Map.entry("capstan.release.wait-for-lease", "java.time.Duration"),
                    Map.entry("capstan.tracing.enabled", "java.lang.Boolean"))));
  }
}
