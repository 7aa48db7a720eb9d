package dev.capstan.cel;

import dev.capstan.common.InputLimits;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.StrictMap;
import dev.capstan.common.health.HealthRule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The shipped defaults, {@code default-health-rules.yaml} beside this class: rules written from the
 * documented status shapes of widely used custom resources (cert-manager, Argo Rollouts, Knative,
 * Crossplane, CloudNativePG, Strimzi), each tested against fixtures in those shapes.
 */
final class ShippedRules {
  private static final String RESOURCE = "default-health-rules.yaml";
  private static final Set<String> RULE =
      StrictMap.fields("kind", "current", "inProgress", "failed", "source");

  private ShippedRules() {}

  static List<HealthRule> read() {
    byte[] bytes;
    try (InputStream in =
        Objects.requireNonNull(
            ShippedRules.class.getResourceAsStream(RESOURCE), "missing resource " + RESOURCE)) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Object tree = StrictDocuments.readOne(bytes, InputLimits.oneDocument());
    List<String> problems = new ArrayList<>();
    StrictMap root =
        StrictMap.open(
            Objects.requireNonNull(tree, RESOURCE),
            "",
            RESOURCE,
            StrictMap.fields("rules"),
            problems,
            StrictMap.Wording.LABELLED);
    List<HealthRule> rules = new ArrayList<>();
    if (root != null) {
      for (StrictMap.Element e : root.objects("rules", RULE)) {
        StrictMap r = e.map();
        rules.add(
            new HealthRule(
                r.string("kind"),
                r.string("current"),
                r.optionalString("inProgress"),
                r.optionalString("failed")));
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(RESOURCE + ": " + problems);
    }
    return List.copyOf(rules);
  }
}
