package dev.capstan.update.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CrdDefaultsTest {
  @Test
  void fillsWhatTheApiServerDefaultsAndDropsAFalsePreserveUnknownFields() {
    Map<String, Object> spec =
        Map.of(
            "group",
            "example.com",
            "names",
            Map.of("kind", "Widget", "plural", "widgets"),
            "preserveUnknownFields",
            false,
            "versions",
            List.of(Map.of("name", "v1", "served", true, "storage", true)));

    Map<String, ?> defaulted = CrdDefaults.apply(spec);

    assertThat(defaulted)
        .isEqualTo(
            Map.of(
                "group",
                "example.com",
                "names",
                Map.of(
                    "kind",
                    "Widget",
                    "plural",
                    "widgets",
                    "singular",
                    "widget",
                    "listKind",
                    "WidgetList"),
                "conversion",
                Map.of("strategy", "None"),
                "versions",
                List.of(Map.of("name", "v1", "served", true, "storage", true))));
    assertThat(CrdDefaults.apply(CrdDefaults.apply(spec))).isEqualTo(defaulted);
  }

  @Test
  void keepsWhatIsSetAndDefaultsAWebhookServicePort() {
    Map<String, Object> spec =
        Map.of(
            "names",
            Map.of("kind", "Widget", "singular", "wdg", "listKind", "Widgets"),
            "conversion",
            Map.of(
                "strategy",
                "Webhook",
                "webhook",
                Map.of(
                    "clientConfig",
                    Map.of("service", Map.of("namespace", "ops", "name", "convert")))));

    Map<String, ?> defaulted = CrdDefaults.apply(spec);

    assertThat(defaulted.get("names"))
        .isEqualTo(Map.of("kind", "Widget", "singular", "wdg", "listKind", "Widgets"));
    assertThat(defaulted.get("conversion"))
        .isEqualTo(
            Map.of(
                "strategy",
                "Webhook",
                "webhook",
                Map.of(
                    "clientConfig",
                    Map.of(
                        "service", Map.of("namespace", "ops", "name", "convert", "port", 443L)))));
  }

  @Test
  void versionsCarryTheServedAndStorageFlags() {
    CrdState crd =
        new CrdState(
            "widgets.example.com",
            Map.of(
                "versions",
                List.of(
                    Map.of("name", "v1", "served", false, "storage", false),
                    Map.of("name", "v2", "served", true, "storage", true))),
            List.of());

    assertThat(crd.versions())
        .containsExactly(new CrdVersion("v1", false, false), new CrdVersion("v2", true, true));
    assertThat(crd.storedVersions()).containsExactly("v2");
    assertThat(crd.dryRunSpec()).isEmpty();
  }
}
