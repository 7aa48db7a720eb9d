package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TreesTest {

  @Test
  void aCopiedObjectDropsNullFieldsAndCannotBeChanged() {
    Map<String, Object> given = new HashMap<>();
    given.put("a", 1);
    given.put("gone", null);
    given.put("list", List.of((short) 2, 1.5f));

    Map<String, Object> copy = Trees.copyObject(given, "");

    assertThat(copy).containsOnlyKeys("a", "list");
    assertThat(copy.get("list")).isEqualTo(List.of(2, 1.5d));
    assertThatThrownBy(() -> copy.put("b", 2)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aCopyNamesThePathOfAValueThatIsNoJsonValue() {
    assertThatThrownBy(() -> Trees.copyObject(Map.of("spec", Map.of("x", new Object())), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spec.x must be a string, number, boolean, null, list or mapping: a Object");
    assertThatThrownBy(() -> Trees.copyObject(Map.of("spec", Map.of(1, "v")), ""))
        .hasMessage("spec: keys must be strings: '1'");
  }

  @Test
  void aCopyNamesThePathThroughListsAndEscapedKeysBelowTheGivenPath() {
    Map<String, Object> object =
        Map.of("items", List.of("a", Map.of("b\n", List.of(1, Map.of("c", new Object())))));

    assertThatThrownBy(() -> Trees.copyObject(object, "spec.manifests[2]"))
        .hasMessage(
            "spec.manifests[2].items[1].b\\n[1].c must be a string, number, boolean, null, list or"
                + " mapping: a Object");
    assertThatThrownBy(() -> Trees.copyObject(Map.of("l", List.of(Map.of(2, "v"))), ""))
        .hasMessage("l[0]: keys must be strings: '2'");
  }

  /** {@code levels} mappings, each the only field {@code a} of the one before: {"a":{"a":{}}}. */
  private static Map<String, Object> nested(int levels) {
    Map<String, Object> tree = Map.of();
    for (int i = 0; i < levels; i++) {
      tree = Map.of("a", tree);
    }
    return tree;
  }

  @Test
  void theDepthProblemIsTheCopysNamingTheFirstValueTooDeepAtAnyDepth() {
    // the list is level 0, its items level 1: the 128th mapping of an item is level 129
    String tooDeep = "x[1]" + ".a".repeat(Trees.MAX_DEPTH) + ": nested deeper than 128 levels";

    assertThat(Trees.depthProblem(List.of("b", nested(Trees.MAX_DEPTH - 1)), "x")).isNull();
    assertThat(Trees.depthProblem(List.of("b", nested(Trees.MAX_DEPTH)), "x")).isEqualTo(tooDeep);
    assertThat(Trees.depthProblem(List.of("b", nested(100_000)), "x")).isEqualTo(tooDeep);
    Map<String, Object> object = Map.of("x", List.of("b", nested(200)));
    assertThatThrownBy(() -> Trees.copyObject(object, ""))
        .hasMessage(Trees.depthProblem(object, ""))
        .hasMessage("x[1]" + ".a".repeat(Trees.MAX_DEPTH - 1) + ": nested deeper than 128 levels");
    assertThat(Trees.depthProblem(Map.of("b\n", nested(Trees.MAX_DEPTH)), ""))
        .isEqualTo("b\\n" + ".a".repeat(Trees.MAX_DEPTH) + ": nested deeper than 128 levels");
    assertThat(Trees.depthProblem("text", "")).isNull();
  }

  @Test
  void aFrozenDocumentHasNormalisedNumbersComparedByValue() {
    Object frozen = Trees.freeze(Map.of("n", 3, "d", 1.10d, "t", "x"));

    assertThat(frozen).isEqualTo(Map.of("n", 3L, "d", new BigDecimal("1.1"), "t", "x"));
    assertThat(Trees.sameValue(frozen, Map.of("n", 3L, "d", new BigDecimal("1.100"), "t", "x")))
        .isTrue();
    assertThat(Trees.sameValue(frozen, Map.of("n", 4L, "d", new BigDecimal("1.1"), "t", "x")))
        .isFalse();
  }

  @Test
  void pathsReadNullWhereAStepIsMissingAndWithSetsACopy() {
    Map<String, Object> tree = Map.of("spec", Map.of("replicas", 2, "name", "web"));

    assertThat(Trees.number(tree, "spec", "replicas")).isEqualTo(2L);
    assertThat(Trees.string(tree, "spec", "name")).isEqualTo("web");
    assertThat(Trees.at(tree, "spec", "name", "deeper")).isNull();
    assertThat(Trees.text(tree, "status", "phase")).isEmpty();
    assertThat(Trees.get(Trees.with(tree, "spec.replicas", 3), "spec.replicas")).isEqualTo(3);
    assertThat(Trees.get(Trees.with(tree, "spec.name", null), "spec"))
        .isEqualTo(Map.of("replicas", 2));
    assertThat(Trees.get(tree, "spec.replicas")).isEqualTo(2);
  }

  @Test
  void showQuotesStringsAndNamesShapes() {
    assertThat(Trees.show("v1 beta")).isEqualTo("'v1 beta'");
    assertThat(Trees.show(Map.of())).isEqualTo("a mapping");
    assertThat(Trees.show(List.of())).isEqualTo("a list");
    assertThat(Trees.show(1.5)).isEqualTo("1.5");
  }
}
