package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StrictDocumentsTest {
  private static final InputLimits ONE = InputLimits.oneDocument();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void numbersKeepTheirTextAndOnlyJsonSchemaScalarsAreTyped() {
    Object tree = StrictDocuments.readOne(utf8("a: 1.10\nb: 3\nc: yes\nd: 0x1F\ne: true\n"), ONE);
    assertThat(tree)
        .isEqualTo(Map.of("a", new BigDecimal("1.10"), "b", 3, "c", "yes", "d", "0x1F", "e", true));
    assertThat(tree)
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .extractingByKey("a")
        .hasToString("1.10");
  }

  @Test
  void contentAfterAJsonDocumentIsRefusedWithoutJavaInternals() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("{\"a\": 1} \"b\""), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage(
            "not valid JSON at line 1, column 10: more content after the end of the document");
  }

  @Test
  void jsonDecimalsKeepTheirTextToo() {
    Object tree = StrictDocuments.readOne(utf8("{\"a\": 1.10, \"b\": [1, \"x\"]}"), ONE);
    assertThat(tree).isEqualTo(Map.of("a", new BigDecimal("1.10"), "b", List.of(1, "x")));
  }

  @Test
  @Timeout(5)
  void tenThousandLevelsOfYamlAreRefusedWithThePosition() {
    String deep = "a: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n";
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8(deep), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("nesting is deeper than 100 levels (the limit) at line 1, column 103");
  }

  @Test
  @Timeout(5)
  void deepBlockYamlIsRefusedAtTheFirstLevelTooMany() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 150; i++) {
      sb.append(" ".repeat(i)).append("k:\n");
    }
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8(sb.toString()), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("nesting is deeper than 100 levels (the limit) at line 101, column 101");
  }

  @Test
  @Timeout(5)
  void tenThousandLevelsOfJsonAreRefusedWithThePosition() {
    String deep = "{\"a\": " + "[".repeat(10_000) + "]".repeat(10_000) + "}";
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8(deep), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("nesting is deeper than 100 levels (the limit) at line 1, column 107");
  }

  @Test
  void aBillionLaughsIsRefusedByTheExpansionLimit() {
    StringBuilder sb = new StringBuilder("a0: &a0 [\"" + "x".repeat(1000) + "\"]\n");
    for (int i = 1; i < 10; i++) {
      sb.append("a")
          .append(i)
          .append(": &a")
          .append(i)
          .append(" [")
          .append(String.join(", ", java.util.Collections.nCopies(2, "*a" + (i - 1))))
          .append("]\n");
    }
    InputLimits limits = ONE.withMaxBytes(64 * 1024);
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8(sb.toString()), limits))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("aliases expand to more than 64 KiB (the limit) at line 7, column 10");
  }

  @Test
  void aScalarAliasedTooOftenIsRefusedByTheAliasCount() {
    StringBuilder sb = new StringBuilder("v: &v abc\n");
    for (int i = 0; i < 21; i++) {
      sb.append("k").append(i).append(": *v\n");
    }
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8(sb.toString()), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("holds more than 20 aliases (the limit) at line 22, column 6");
  }

  @Test
  void anAliasInsideItsOwnAnchorIsRefused() {
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8("a: &x [1, *x]\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage(
            "alias *x refers to no complete node before it (an undefined anchor or one that"
                + " contains the alias) at line 1, column 11");
  }

  @Test
  void moreDocumentsThanAllowedAreRefused() {
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8("a: 1\n---\nb: 2\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("holds more than 1 document (the limit) at line 2, column 1");
  }

  @Test
  void theNodesOfAStreamAreCountedAsTheyAreBuiltAndNoMoreAreBuilt() {
    // keys, scalars, mappings and sequences are each a node: a, x, {}, [..], the mapping; y, z,
    // the mapping: 8, counted across the documents of the stream
    String text = "a: [x, {}]\n---\ny: z\n";
    InputLimits eight = ONE.withMaxDocuments(2).withMaxNodes(8);
    assertThat(StrictDocuments.readYaml(utf8(text), eight)).hasSize(2);
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8(text), eight.withMaxNodes(7)))
        .isInstanceOf(TooManyNodesException.class)
        .hasMessage("holds more than 7 nodes (the limit) at line 4, column 1")
        .extracting(e -> ((TooManyNodesException) e).limit())
        .isEqualTo(7);
    assertThatThrownBy(() -> StrictDocuments.readYaml(utf8("[a, b, c, d]"), ONE.withMaxNodes(2)))
        .isInstanceOf(TooManyNodesException.class)
        .hasMessage("holds more than 2 nodes (the limit) at line 1, column 8");
    assertThat(ONE.maxNodes()).isEqualTo(InputLimits.UNBOUNDED_NODES);
  }

  @Test
  void nonUtf8IsRefusedWithThePositionOfTheByte() {
    byte[] bytes = {'a', ':', ' ', '1', '\n', 'b', ':', ' ', (byte) 0xc3, 'x', '\n'};
    assertThatThrownBy(() -> StrictDocuments.readOne(bytes, ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("not UTF-8 text: byte 0xc3 at line 2, column 4 (offset 8)");
  }

  @Test
  void aNonStringKeyIsRefusedWithTheHintToQuoteIt() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("data:\n  1.10: x\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("data: mapping keys must be strings; quote this one: '1.10'");
  }

  @Test
  void explicitTagsOutsideTheJsonSchemaAreRefusedWithThePosition() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: !!binary aGVsbG8=\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage(
            "tag '!!binary' is not accepted; only !!str, !!int, !!float, !!bool, !!null, !!map and"
                + " !!seq are at line 1, column 4");
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: !!set {x}\n"), ONE))
        .hasMessageStartingWith("tag '!!set' is not accepted");
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: !foo y\n"), ONE))
        .hasMessageStartingWith("tag '!foo' is not accepted");
  }

  @Test
  void aValueThatDoesNotFitItsTagIsRefusedWithoutJavaInternals() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: !!int abc\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("not valid YAML: a value does not fit its explicit tag");
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: !!map x\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("not valid YAML: a value does not fit its explicit tag");
  }

  @Test
  void aDuplicateKeyIsRefusedWithItsPosition() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: 1\na: 2\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageStartingWith("not valid YAML at line 2, column 1: ")
        .hasMessageContaining("found duplicate key a");
  }

  @Test
  void aControlCharacterInASyntaxErrorIsShownEscaped() {
    assertThatThrownBy(() -> StrictDocuments.readOne(utf8("a: [\u001b[2J\n"), ONE))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("not valid YAML: character U+001B is not allowed at line 1, column 5");
  }

  @Test
  void anOversizedInputIsRefusedBeforeParsing() {
    assertThatThrownBy(() -> StrictDocuments.readOne(new byte[101], ONE.withMaxBytes(100)))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("document is 101 bytes; the limit is 100 bytes (100 bytes)");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          stringData: {password: *s3cret}       | an alias refers to no complete node before it (an undefined anchor or one that contains the alias) at line 1, column 24
          s3cret: 1\\ns3cret: 2                 | not valid YAML at line 2, column 1: found a duplicate key
          4242: s3cret                          | mapping keys must be strings; quote this one at line 1, column 1: a number
          a: !s3cret x                          | a tag is not accepted; only !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are at line 1, column 4
          a: "s3cret\\q"                        | not valid YAML at line 1, column 12
          a: [s3cret                            | not valid YAML at line 1, column 11: expected ',' or ']'
          "s3cret                               | not valid YAML at line 1, column 8: found unexpected end of stream
          a: b: s3cret                          | not valid YAML at line 1, column 5: mapping values are not allowed here
          a: \\u0001s3cret                       | not valid YAML: a character that is not allowed at line 1, column 4
          pin: .inf                             | not valid YAML at line 1, column 6: a number must be finite (JSON has no infinity or NaN; quote it for a string)
          pin: 0042                             | not valid YAML at line 1, column 6: a plain integer with a leading zero is octal to kubectl (YAML 1.1) but decimal in YAML 1.2: write 0o… for octal, drop the zero for decimal, or quote it
          """)
  void aHiddenTextIsRefusedWithoutQuotingAnyOfIt(String yaml, String expected) {
    String text = yaml.replace("\\n", "\n").replace("\\u0001", "\u0001");
    assertThatThrownBy(
            () ->
                StrictDocuments.readYaml(
                    text, InputLimits.oneDocument(), ManifestSchema.INSTANCE, true, (i, t) -> true))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage(expected);
  }

  @Test
  void aTextNotHiddenIsStillRefusedWithWhatItHolds() {
    assertThatThrownBy(
            () ->
                StrictDocuments.readYaml(
                    "stringData: {password: *s3cret}",
                    InputLimits.oneDocument(),
                    ManifestSchema.INSTANCE,
                    false,
                    (i, t) -> true))
        .hasMessage(
            "alias *s3cret refers to no complete node before it (an undefined anchor or one that"
                + " contains the alias) at line 1, column 24");
  }
}
