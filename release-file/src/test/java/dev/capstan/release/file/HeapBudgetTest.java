package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.InputLimits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeapBudgetTest {
  /** 13 nodes: the mapping, 4 keys, v1, ConfigMap, metadata's mapping, key and value, data's. */
  private static final String CONFIG_MAP =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n";

  private static final Overrides WEB = new Overrides("shop", "web", "shop");

  private static ReleaseFile read(HeapBudget budget, ManifestInput... inputs) {
    return ReleaseFiles.manifestInputs(List.of(inputs), "Release shop/web", WEB, budget);
  }

  @Test
  void aTextWhoseAliasesExpandPastTheNodeLimitIsNeitherCopiedNorKeptAndItsCountStopsThere() {
    // 20,001 mappings named once by an anchor and 19 times more by aliases: the parser builds
    // about 20,000 nodes, a copy (or a count to the end) would go through 400,000
    String text =
        CONFIG_MAP
            + "many: &x ["
            + "{}, ".repeat(20_000)
            + "{}]\nmore: ["
            + "*x, ".repeat(18)
            + "*x]\n";
    assertThat(text.length()).isGreaterThan(ParsedTexts.MIN_CHARS);
    InputLimits limits = ReleaseFiles.LIMITS.withMaxNodes(100_000);
    int kept = ManifestYaml.RECENT.size();

    Object tree = ManifestYaml.loadAll(text, limits).get(0).tree();

    assertThat(ManifestYaml.RECENT.size()).isEqualTo(kept);
    // the ConfigMap's 13, two keys, the sequence of aliases, 20 times the list and its mappings
    assertThat(ManifestYaml.nodes(tree)).isEqualTo(13 + 2 + 1 + 20 * (1 + 20_001L));
    assertThat(ManifestYaml.nodes(tree, 1000)).isBetween(1001L, 1006L);
    assertThat(ManifestYaml.loadAll(CONFIG_MAP + "#" + "x".repeat(70_000), limits)).hasSize(1);
    assertThat(ManifestYaml.RECENT.size()).isEqualTo(kept + 1); // a text within the limit is kept
  }

  @Test
  void theCostIsCharactersAndNodesAtTheirPricesAndSaturates() {
    HeapBudget budget = new HeapBudget(1000, 128, 8);
    assertThat(budget.cost(10, 7)).isEqualTo(10 * 8 + 7 * 128);
    assertThat(budget.fits(61, 4)).isTrue(); // 488 + 512 = 1000
    assertThat(budget.fits(62, 4)).isFalse();
    assertThat(budget.nodesLeft(61, 0)).isEqualTo(4); // (1000 - 488) / 128
    assertThat(budget.nodesLeft(62, 4)).isZero();
    assertThat(budget.cost(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(HeapBudget.UNBOUNDED.nodesLeft(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2))
        .isEqualTo(InputLimits.UNBOUNDED_NODES);
    assertThatThrownBy(() -> new HeapBudget(0, 1, 1)).hasMessage("bytes must be positive: 0");
  }

  @Test
  void aReleaseWithinTheBudgetIsReadAndTheNodesAreCountedAsTheReaderCountsThem() {
    assertThat(
            ManifestYaml.nodes(ManifestYaml.loadAll(CONFIG_MAP, ReleaseFiles.LIMITS).get(0).tree()))
        .isEqualTo(13);
    HeapBudget exact = new HeapBudget(CONFIG_MAP.length() + 13 * 100L, 100, 1);
    assertThat(
            read(exact, ManifestInput.text("configmap m key a.yaml", CONFIG_MAP))
                .payloads()
                .objects())
        .hasSize(1);
  }

  @Test
  void theFirstDocumentOverIsRefusedWhereItPassesTheBudgetAndNothingMoreIsRead() {
    HeapBudget oneShort = new HeapBudget(CONFIG_MAP.length() + 13 * 100L - 1, 100, 1);
    ReleaseTooLargeException e =
        catchThrowableOfType(
            () ->
                read(
                    oneShort,
                    ManifestInput.text("configmap m key a.yaml", CONFIG_MAP),
                    ManifestInput.text("configmap n key b.yaml", "not: [valid")),
            ReleaseTooLargeException.class);

    assertThat(e.at()).isEqualTo("(configmap m key a.yaml#0)");
    assertThat(e.chars()).isEqualTo(CONFIG_MAP.length());
    assertThat(e.nodes()).isEqualTo(13);
    assertThat(e.estimate()).isEqualTo(CONFIG_MAP.length() + 1300L);
    assertThat(e)
        .hasMessage(
            "Release shop/web: (configmap m key a.yaml#0): reading the release would take at least"
                + " 1364 bytes of heap (64 characters of text at 1 bytes each and 13 nodes,"
                + " mappings, sequences, keys and scalars, at 100 bytes each); the limit is 1363"
                + " bytes per release");
  }

  @Test
  void aTextOverTheBudgetByItsCharactersAloneIsRefusedBeforeItIsParsed() {
    HeapBudget budget = new HeapBudget(9 * 100L + CONFIG_MAP.length() - 1, 100, 1);
    ReleaseTooLargeException e =
        catchThrowableOfType(
            () ->
                read(
                    budget,
                    ManifestInput.document(
                        "spec.manifests[0]",
                        Map.of(
                            "apiVersion",
                            "v1",
                            "kind",
                            "ConfigMap",
                            "metadata",
                            Map.of("name", "b"))),
                    ManifestInput.text("configmap m key a.yaml", CONFIG_MAP)),
            ReleaseTooLargeException.class);

    // the inline document's 9 nodes and the text's characters: over before a node is built
    assertThat(e.at()).isEqualTo("(configmap m key a.yaml)");
    assertThat(e.nodes()).isEqualTo(9);
    assertThat(e.chars()).isEqualTo(CONFIG_MAP.length());
  }

  @Test
  void aTextKeptParsedIsReadAgainWithinALowerBudgetAndRefusedWhereItPassesIt() {
    String large = CONFIG_MAP + ("# " + "x".repeat(98) + "\n").repeat(700);
    assertThat(large.length()).isGreaterThan(ParsedTexts.MIN_CHARS);
    HeapBudget roomy = new HeapBudget(large.length() + 13 * 100L, 100, 1);
    read(roomy, ManifestInput.text("configmap m key a.yaml", large));

    HeapBudget tight = new HeapBudget(large.length() + 12 * 100L, 100, 1);
    ReleaseTooLargeException e =
        catchThrowableOfType(
            () -> read(tight, ManifestInput.text("configmap m key a.yaml", large)),
            ReleaseTooLargeException.class);
    assertThat(e.at()).isEqualTo("(configmap m key a.yaml#0)");
    assertThat(e.nodes()).isEqualTo(13);
  }
}
