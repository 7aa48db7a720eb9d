package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.StrictMap.Wording;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The strict binder reads nothing it was not told about and converts nothing, and words every
 * problem with the path, the rule and the value, in either wording.
 */
class StrictMapTest {
  private static final Set<String> FIELDS =
      StrictMap.fields("name", "replicas", "ready", "tags", "labels", "nested", "items");

  private static @Nullable Object tree(String yaml) {
    return StrictDocuments.readYaml(yaml, InputLimits.oneDocument()).get(0);
  }

  /** Reads every field of {@code yaml} as the field's type and returns the problems. */
  private static List<String> problems(String yaml, Wording wording) {
    List<String> problems = new ArrayList<>();
    StrictMap m = StrictMap.open(tree(yaml), "spec", "the spec", FIELDS, problems, wording);
    if (m != null) {
      m.optionalString("name");
      m.integer("replicas", true);
      m.bool("ready");
      m.strings("tags");
      m.stringMap("labels");
      m.object("nested", Set.of());
      m.objects("items", Set.of());
    }
    return problems;
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {replicas: 1, name: 1.10}          | spec.name must be a string; quote it to keep the text: "1.10"      | spec.name: must be a string; quote it to keep the text: "1.10"
          {replicas: 1, name: [a]}           | spec.name must be a string: a list                                  | spec.name: must be a string
          {replicas: '3'}                    | spec.replicas must be an integer: '3'                               | spec.replicas: must be an integer: '3'
          {replicas: 1.5}                    | spec.replicas must be an integer: 1.5                               | spec.replicas: must be an integer: 1.5
          {replicas: 99999999999}            | spec.replicas must be an integer from -2147483648 to 2147483647: 99999999999 | spec.replicas: must be an integer from -2147483648 to 2147483647: 99999999999
          {}                                 | spec.replicas must be an integer                                    | spec.replicas: must be an integer
          {replicas: 1, ready: 'yes'}        | spec.ready must be true or false: 'yes'                             | spec.ready: must be true or false: 'yes'
          {replicas: 1, tags: [a, 2]}        | spec.tags[1] must be a string; quote it to keep the text: "2"       | spec.tags[1]: must be a string; quote it to keep the text: "2"
          {replicas: 1, tags: a}             | spec.tags must be a list: 'a'                                       | spec.tags: must be a list
          {replicas: 1, labels: {a: null}}   | spec.labels.a must be a string: null                                | spec.labels.a: must be a string
          {replicas: 1, nested: 3}           | spec.nested must be a mapping: 3                                    | spec.nested: must be a mapping
          {replicas: 1, items: [{}, 1]}      | spec.items[1] must be a mapping: 1                                  | spec.items[1]: must be a mapping
          {replicas: 1, colour: blue}        | spec.colour is not a known field; known fields are name, replicas, ready, tags, labels, nested, items | spec.colour: unknown field
          """)
  void eachRuleIsWordedOnceInEitherWording(String yaml, String sentence, String labelled) {
    assertThat(problems(yaml, Wording.SENTENCE)).containsExactly(sentence);
    assertThat(problems(yaml, Wording.LABELLED)).containsExactly(labelled);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {data: {pin: 424242424242}}     | spec.data.pin must be a string; quote it to keep the text (the value is not shown) | spec.data.pin: must be a string; quote it to keep the text (the value is not shown)
          {data: {flag: true}}            | spec.data.flag must be a string; quote it to keep the text (the value is not shown) | spec.data.flag: must be a string; quote it to keep the text (the value is not shown)
          {data: {pw: [424242424242]}}    | spec.data.pw must be a string (the value is not shown)                             | spec.data.pw: must be a string (the value is not shown)
          {data: {pw: {x: 424242424242}}} | spec.data.pw must be a string (the value is not shown)                             | spec.data.pw: must be a string (the value is not shown)
          {data: {pw: null}}              | spec.data.pw must be a string: null                                                | spec.data.pw: must be a string
          {data: '424242424242'}          | spec.data must be a mapping (the value is not shown)                               | spec.data: must be a mapping (the value is not shown)
          {data: 424242424242}            | spec.data must be a mapping (the value is not shown)                               | spec.data: must be a mapping (the value is not shown)
          """)
  void noProblemOfASecretMapShowsAValueInEitherWording(
      String yaml, String sentence, String labelled) {
    for (Wording wording : Wording.values()) {
      List<String> problems = new ArrayList<>();
      StrictMap m =
          StrictMap.open(tree(yaml), "spec", "the spec", Set.of("data"), problems, wording);
      assertThat(m).isNotNull();

      assertThat(m.secretMap("data")).isEmpty();

      assertThat(problems)
          .containsExactly(wording == Wording.SENTENCE ? sentence : labelled)
          .noneMatch(p -> p.contains("4242"));
    }
  }

  @Test
  void aSecretMapReadsItsStringsAsWritten() {
    List<String> problems = new ArrayList<>();
    StrictMap m =
        StrictMap.open(
            tree("{data: {a: '1.10', b: s3cret}}"), "", "the spec", Set.of("data"), problems);

    assertThat(m).isNotNull();
    assertThat(m.secretMap("data"))
        .containsExactly(java.util.Map.entry("a", "1.10"), java.util.Map.entry("b", "s3cret"));
    assertThat(problems).isEmpty();
  }

  @Test
  void aMapWithSecretKeysWithholdsTheirValuesAndShowsTheOthers() {
    for (Wording wording : Wording.values()) {
      List<String> problems = new ArrayList<>();
      StrictMap m =
          StrictMap.open(
              tree("{env: {DB_PASSWORD: 918273645, LOG_LEVEL: 3, HOST: db}}"),
              "spec",
              "the spec",
              Set.of("env"),
              problems,
              wording);
      assertThat(m).isNotNull();

      assertThat(m.stringMap("env", SecretNames::isSecret))
          .containsExactly(java.util.Map.entry("HOST", "db"));

      String sep = wording == Wording.SENTENCE ? " " : ": ";
      assertThat(problems)
          .containsExactly(
              "spec.env.DB_PASSWORD"
                  + sep
                  + "must be a string; quote it to keep the text (the value is not shown)",
              "spec.env.LOG_LEVEL" + sep + "must be a string; quote it to keep the text: \"3\"");
    }
  }

  @Test
  void aMapWithSecretKeysThatIsNoMappingShowsNoValue() {
    List<String> problems = new ArrayList<>();
    StrictMap m =
        StrictMap.open(
            tree("{env: DB_PASSWORD=918273645}"), "spec", "the spec", Set.of("env"), problems);
    assertThat(m).isNotNull();

    assertThat(m.stringMap("env", SecretNames::isSecret)).isEmpty();

    assertThat(problems)
        .containsExactly("spec.env must be a mapping (the value is not shown)")
        .noneMatch(p -> p.contains("918273645"));
  }

  @Test
  void everyProblemOfAMappingIsReportedTogether() {
    assertThat(problems("{name: 1, replicas: x, colour: blue, ready: 2}", Wording.SENTENCE))
        .containsExactly(
            "spec.colour is not a known field; known fields are name, replicas, ready, tags,"
                + " labels, nested, items",
            "spec.name must be a string; quote it to keep the text: \"1\"",
            "spec.replicas must be an integer: 'x'",
            "spec.ready must be true or false: 2");
  }

  @Test
  void labelledProblemsFollowTheDocumentWithLackingThenUnknownFieldsLast() {
    assertThat(problems("{colour: blue, name: 1, nested: {x: 1}}", Wording.LABELLED))
        .containsExactly(
            "spec.name: must be a string; quote it to keep the text: \"1\"",
            "spec.nested.x: unknown field",
            "spec.replicas: must be an integer",
            "spec.colour: unknown field");
  }

  @Test
  void aKeyOutsideThePlainCharactersIsShownEscaped() {
    List<String> sentence = new ArrayList<>();
    List<String> labelled = new ArrayList<>();
    Object tree = tree("{\"a\\eb\": 1}");

    StrictMap.open(tree, "spec", "the spec", Set.of(), sentence, Wording.SENTENCE);
    StrictMap.open(tree, "spec", "the spec", Set.of(), labelled, Wording.LABELLED);

    assertThat(sentence)
        .singleElement()
        .asString()
        .startsWith("spec['a\\u001bb'] is not a known field");
    assertThat(labelled).containsExactly("spec.a\\u001bb: unknown field");
  }

  @Test
  void theRootIsNamedByWhatOrAsTheDocument() {
    List<String> problems = new ArrayList<>();

    StrictMap.open(null, "", "the catalog", FIELDS, problems);
    StrictMap.open(List.of(), "", "the catalog", FIELDS, problems, Wording.LABELLED);

    assertThat(problems)
        .containsExactly(
            "the catalog must be a mapping, found nothing", "document: must be a mapping");
  }

  @Test
  void valuesOfTheRightTypeAreReadAsWritten() {
    List<String> problems = new ArrayList<>();
    StrictMap m =
        StrictMap.open(
            tree("{name: web, replicas: 3, ready: true, tags: [a, b], labels: {k: v}}"),
            "",
            "the spec",
            FIELDS,
            problems);

    assertThat(m).isNotNull();
    assertThat(m.optionalString("name")).isEqualTo("web");
    assertThat(m.optionalString("nested")).isNull();
    assertThat(m.string("nested")).isEmpty();
    assertThat(m.integer("replicas", true)).isEqualTo(3);
    assertThat(m.bool("ready")).isTrue();
    assertThat(m.strings("tags")).containsExactly("a", "b");
    assertThat(m.stringMap("labels")).containsExactly(java.util.Map.entry("k", "v"));
    assertThat(problems).isEmpty();
  }
}
