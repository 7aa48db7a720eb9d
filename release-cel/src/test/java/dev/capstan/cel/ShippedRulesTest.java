package dev.capstan.cel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.InputLimits;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.Trees;
import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRules;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shipped default judged against fixtures in its documented status shape ({@code shipped/},
 * one file per product): each fixture says the verdict it expects in its annotation {@code expect},
 * and the verdict's reason names the shipped rule and which expression decided; the same fixture
 * carrying thousands of annotations and a large one gets the same verdict.
 */
class ShippedRulesTest {
  private static final List<String> FILES =
      List.of(
          "certificate.yaml",
          "issuer.yaml",
          "rollout.yaml",
          "knative-service.yaml",
          "crossplane.yaml",
          "cnpg-cluster.yaml",
          "kafka.yaml");

  private static final CustomHealth RULES = new CelHealthRules().compile(List.of());

  @SuppressWarnings("unchecked")
  static Stream<Arguments> fixtures() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (String file : FILES) {
      try (InputStream in =
          Objects.requireNonNull(ShippedRulesTest.class.getResourceAsStream("shipped/" + file))) {
        List<Object> docs =
            StrictDocuments.readYaml(
                in.readAllBytes(), InputLimits.oneDocument().withMaxDocuments(20));
        for (int i = 0; i < docs.size(); i++) {
          Map<String, Object> object = (Map<String, Object>) Objects.requireNonNull(docs.get(i));
          String expect = Trees.text(object, "metadata", "annotations", "expect");
          out.add(Arguments.of(file + "#" + (i + 1), Trees.text(object, "kind"), expect, object));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @MethodSource("fixtures")
  void eachFixtureGetsTheVerdictItsShapeMeans(
      String fixture, String kind, String expect, Map<String, Object> object) {
    Health h = HealthRules.of(object, List.of(), HealthRules.VolumeBinding.IMMEDIATE, true, RULES);

    String rule = "shipped health rule " + ruleOf(object);
    switch (expect) {
      case "current" -> assertThat(h).isEqualTo(Health.current());
      case "inProgress" ->
          assertThat(h)
              .isInstanceOfSatisfying(
                  Health.InProgress.class,
                  p -> assertThat(p.reason()).contains(": " + rule + ": inProgress holds: "));
      case "waiting" ->
          assertThat(h)
              .isInstanceOfSatisfying(
                  Health.InProgress.class,
                  p ->
                      assertThat(p.reason())
                          .contains(": " + rule + ": current does not hold yet: "));
      case "failed" ->
          assertThat(h)
              .isInstanceOfSatisfying(
                  Health.Failed.class,
                  f -> assertThat(f.reason()).contains(": " + rule + ": failed holds: "));
      default -> throw new AssertionError("fixture " + fixture + " expects " + expect);
    }
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @MethodSource("fixtures")
  @SuppressWarnings("unchecked")
  void eachFixtureCarryingLargeAnnotationsGetsTheSameVerdict(
      String fixture, String kind, String expect, Map<String, Object> object) {
    Map<String, Object> metadata =
        new LinkedHashMap<>((Map<String, Object>) Objects.requireNonNull(object.get("metadata")));
    Map<String, Object> annotations =
        new LinkedHashMap<>(
            (Map<String, Object>) Objects.requireNonNull(metadata.get("annotations")));
    for (int i = 0; i < 9_000; i++) {
      annotations.put("example.com/k" + i, "v");
    }
    annotations.put(
        "kubectl.kubernetes.io/last-applied-configuration",
        "{\"metadata\":{\"name\":\"" + "x".repeat(150_000) + "\"}}");
    metadata.put("annotations", annotations);
    Map<String, Object> large = new LinkedHashMap<>(object);
    large.put("metadata", metadata);

    assertThat(HealthRules.of(large, List.of(), HealthRules.VolumeBinding.IMMEDIATE, true, RULES))
        .isEqualTo(
            HealthRules.of(object, List.of(), HealthRules.VolumeBinding.IMMEDIATE, true, RULES));
  }

  /** The rule the fixture's kind is judged by: its own, or its groups' (Crossplane). */
  private static String ruleOf(Map<String, Object> object) {
    String apiVersion = Trees.text(object, "apiVersion");
    String group = apiVersion.substring(0, apiVersion.indexOf('/'));
    String kind = Trees.text(object, "kind");
    return CelHealthRules.shipped().stream()
        .filter(r -> r.matches(group, kind))
        .max(java.util.Comparator.comparingInt(HealthRule::specificity))
        .orElseThrow()
        .kind();
  }

  @Test
  void everyShippedRuleHasFixturesForEachVerdictItCanGive() throws IOException {
    List<String> seen = new ArrayList<>();
    fixtures()
        .forEach(
            a -> {
              @SuppressWarnings("unchecked")
              Map<String, Object> object = (Map<String, Object>) a.get()[3];
              seen.add(ruleOf(object) + " " + a.get()[2]);
            });
    for (HealthRule r : CelHealthRules.shipped()) {
      assertThat(seen).as(r.kind()).contains(r.kind() + " current");
      assertThat(seen).as(r.kind()).containsAnyOf(r.kind() + " waiting", r.kind() + " inProgress");
      if (r.failed() != null) {
        assertThat(seen).as(r.kind()).contains(r.kind() + " failed");
      }
      if (r.inProgress() != null) {
        assertThat(seen).as(r.kind()).contains(r.kind() + " inProgress");
      }
    }
  }
}
