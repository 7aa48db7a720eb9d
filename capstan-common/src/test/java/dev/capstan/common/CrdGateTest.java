package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CRD safety gate itself, one test per rule with the exact findings; update-core's and
 * release-core's tests check how each engine shows and applies them.
 */
class CrdGateTest {
  private static final Map<String, Object> SCHEMA =
      Map.of(
          "openAPIV3Schema",
          Map.of(
              "type",
              "object",
              "properties",
              Map.of(
                  "spec",
                  Map.of(
                      "type",
                      "object",
                      "properties",
                      Map.of(
                          "size", Map.of("type", "integer"), "color", Map.of("type", "string"))))));

  private static Map<String, Object> version(String name, boolean served, boolean storage) {
    return version(name, served, storage, SCHEMA);
  }

  private static Map<String, Object> version(
      String name, boolean served, boolean storage, Map<String, Object> schema) {
    return Map.of("name", name, "served", served, "storage", storage, "schema", schema);
  }

  private static Map<String, Object> spec(List<Map<String, Object>> versions) {
    return Map.of("group", "example.com", "versions", versions);
  }

  private static final Map<String, Object> V1 = spec(List.of(version("v1", true, true)));

  @Test
  void theVersionsOfASpecAndItsStorageVersion() {
    Map<String, Object> both = spec(List.of(version("v1", true, false), version("v2", true, true)));

    assertThat(CrdGate.versions(both))
        .containsExactly(
            new CrdGate.Version("v1", true, false), new CrdGate.Version("v2", true, true));
    assertThat(CrdGate.storageVersions(both)).containsExactly("v2");
    assertThat(CrdGate.versions(Map.of())).isEmpty();
  }

  @Test
  void aStoredVersionRemovedIsFound() {
    assertThat(CrdGate.problems(V1, List.of("v1"), spec(List.of(version("v2", true, true)))))
        .containsExactly(
            "version v1: stored version removed (status.storedVersions lists it, so objects may"
                + " still be stored at v1 and could no longer be read)");
  }

  @Test
  void aStoredVersionNoLongerServedIsFound() {
    Map<String, Object> next =
        spec(List.of(version("v1", false, false), version("v2", true, true)));

    assertThat(CrdGate.problems(V1, List.of("v1"), next))
        .containsExactly(
            "version v1: stored version no longer served (objects stored at v1 could no longer be"
                + " read)");
  }

  @Test
  void aStorageVersionChangeWithoutAPathIsFoundAndOneWithAPathIsSafe() {
    Map<String, Object> noPath =
        spec(List.of(version("v1", false, false), version("v2", true, true)));
    Map<String, Object> path = spec(List.of(version("v1", true, false), version("v2", true, true)));

    assertThat(CrdGate.problems(V1, List.of(), noPath))
        .containsExactly(
            "version v2: storage version changes from v1 to v2 without a path (v1 must stay served"
                + " so objects stored at it can be read and migrated)");
    assertThat(CrdGate.problems(V1, List.of("v1"), path)).isEmpty();
  }

  @Test
  void aNarrowedSchemaIsFoundWithEveryFindingAndAWiderOneIsSafe() {
    Map<String, Object> narrowed =
        Map.of(
            "openAPIV3Schema",
            Map.of(
                "type",
                "object",
                "properties",
                Map.of(
                    "spec",
                    Map.of(
                        "type",
                        "object",
                        "required",
                        List.of("size"),
                        "properties",
                        Map.of("size", Map.of("type", "integer"))))));
    Map<String, Object> widened =
        Map.of(
            "openAPIV3Schema",
            Map.of(
                "type",
                "object",
                "properties",
                Map.of(
                    "spec",
                    Map.of(
                        "type",
                        "object",
                        "properties",
                        Map.of(
                            "size",
                            Map.of("type", "integer"),
                            "color",
                            Map.of("type", "string"),
                            "shape",
                            Map.of("type", "string"))))));

    assertThat(
            CrdGate.problems(V1, List.of("v1"), spec(List.of(version("v1", true, true, narrowed)))))
        .containsExactly(
            "version v1: schema narrowed: property spec.color removed",
            "version v1: schema narrowed: required field spec.size added");
    assertThat(
            CrdGate.problems(V1, List.of("v1"), spec(List.of(version("v1", true, true, widened)))))
        .isEmpty();
  }

  @Test
  void namesEchoedFromTheSpecsAreEscaped() {
    Map<String, Object> live =
        spec(
            List.of(
                version(
                    "v1",
                    true,
                    true,
                    Map.of(
                        "openAPIV3Schema",
                        Map.of("type", "object", "properties", Map.of("a\nb", Map.of()))))));
    Map<String, Object> next =
        spec(
            List.of(
                version(
                    "v\u001b[2J",
                    true,
                    true,
                    Map.of(
                        "openAPIV3Schema", Map.of("type", "object", "required", List.of("c\rd")))),
                version("v1", false, false, Map.of("openAPIV3Schema", Map.of("type", "object")))));

    assertThat(CrdGate.problems(live, List.of("v1"), next))
        .containsExactly(
            "version v1: stored version no longer served (objects stored at v1 could no longer be"
                + " read)",
            "version v1: schema narrowed: property a\\nb removed");
    assertThat(CrdGate.problems(live, List.of(), next))
        .containsExactly(
            "version v\\u001b[2J: storage version changes from v1 to v\\u001b[2J without a path"
                + " (v1 must stay served so objects stored at it can be read and migrated)",
            "version v1: schema narrowed: property a\\nb removed");
    assertThat(
            CrdGate.problems(
                spec(List.of(version("v1", true, true, Map.of("openAPIV3Schema", Map.of())))),
                List.of("v1"),
                spec(
                    List.of(
                        version(
                            "v1",
                            true,
                            true,
                            Map.of("openAPIV3Schema", Map.of("required", List.of("c\rd"))))))))
        .containsExactly("version v1: schema narrowed: required field c\\rd added");
  }
}
