package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.InputLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The large manifest texts read lately are not parsed again, and sharing them changes nothing a
 * reader sees: each read gets trees of its own, a changed text is another text, a text read with a
 * problem is not kept, and the oldest go once the texts kept are too many characters.
 */
class ParsedTextsTest {
  private static final InputLimits LIMITS = ReleaseFiles.MANIFEST_LIMITS;

  /** A stream of ConfigMaps of about {@code chars} characters, {@code tag} in the first one. */
  private static String stream(String tag, int chars) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < chars; i++) {
      text.append(
          """
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: c%d}
          data: {tag: "%s", filler: "%s"}
          ---
          """
              .formatted(i, tag, "x".repeat(200)));
    }
    return text.toString();
  }

  private static List<ManifestYaml.Document> read(ParsedTexts texts, String text) {
    List<ManifestYaml.Document> known = texts.get(text, LIMITS);
    if (known != null) {
      return known;
    }
    List<ManifestYaml.Document> read = ManifestYaml.loadAll(text, LIMITS);
    List<ManifestYaml.Document> copy = new ArrayList<>();
    read.forEach(d -> copy.add(new ManifestYaml.Document(d.index(), ParsedTexts.copy(d.tree()))));
    texts.keep(text, LIMITS, copy);
    return read;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> data(@Nullable List<ManifestYaml.Document> docs) {
    assertThat(docs).isNotNull().isNotEmpty();
    Map<String, Object> tree = (Map<String, Object>) requireNonNull(docs.get(0).tree());
    return (Map<String, Object>) requireNonNull(tree.get("data"));
  }

  @Test
  void aLargeTextReadAgainIsServedAsTreesOfItsOwn() {
    ParsedTexts texts = new ParsedTexts();
    String text = stream("a", ParsedTexts.MIN_CHARS);

    List<ManifestYaml.Document> first = read(texts, text);
    assertThat(texts.size()).isEqualTo(1);
    data(first).put("tag", "changed by its reader");
    List<ManifestYaml.Document> second = texts.get(text, LIMITS);

    assertThat(second).isNotNull().hasSameSizeAs(first);
    assertThat(data(second)).containsEntry("tag", "a");
    data(second).put("tag", "changed by the second reader");
    assertThat(data(texts.get(text, LIMITS))).containsEntry("tag", "a");
    assertThat(second.get(1).tree())
        .isEqualTo(first.get(1).tree())
        .isNotSameAs(first.get(1).tree());
  }

  @Test
  void aTextThatDiffersByOneCharacterOrByItsLimitsIsAnotherText() {
    ParsedTexts texts = new ParsedTexts();
    String text = stream("a", ParsedTexts.MIN_CHARS);
    read(texts, text);

    assertThat(texts.get(text.replaceFirst("tag: \"a\"", "tag: \"b\""), LIMITS)).isNull();
    assertThat(texts.get(text, LIMITS.withMaxDocuments(LIMITS.maxDocuments() - 1))).isNull();
    assertThat(texts.get(new String(text.toCharArray()), LIMITS)).isNotNull();
  }

  @Test
  void smallTextsAndTextsReadWithAProblemAreNotKept() {
    String small = stream("a", 1000);
    String refused = stream("a", ParsedTexts.MIN_CHARS) + "enabled: yes\n";
    int before = ManifestYaml.RECENT.size();

    assertThat(ManifestYaml.loadAll(small, LIMITS)).isNotEmpty();
    List<ManifestYaml.Document> handed = new ArrayList<>();
    String problem = ManifestYaml.loadAll(refused, LIMITS, handed::add);

    assertThat(problem).contains("a plain yes, no, on, off, y or n is a boolean to kubectl");
    assertThat(handed).isNotEmpty();
    assertThat(ManifestYaml.RECENT.get(small, LIMITS)).isNull();
    assertThat(ManifestYaml.RECENT.get(refused, LIMITS)).isNull();
    assertThat(ManifestYaml.RECENT.size()).isEqualTo(before);
  }

  @Test
  void theManifestReaderKeepsALargeTextAsParsedBeforeItsReaderSeesIt() {
    String text = stream("kept", ParsedTexts.MIN_CHARS);
    List<ManifestYaml.Document> first = new ArrayList<>();
    assertThat(
            ManifestYaml.loadAll(
                text,
                LIMITS,
                d -> {
                  first.add(d);
                  if (d.tree() != null) {
                    data(List.of(d)).put("tag", "changed as it was handed on");
                  }
                  return true;
                }))
        .isNull();

    List<ManifestYaml.Document> again = ManifestYaml.loadAll(text, LIMITS);

    assertThat(again).hasSameSizeAs(first);
    assertThat(data(again)).containsEntry("tag", "kept");
  }

  @Test
  void aReaderThatWantsNoMoreStopsTheReadAndATextReadInPartIsNotKept() {
    String text = stream("part", ParsedTexts.MIN_CHARS);
    List<Integer> handed = new ArrayList<>();

    assertThat(ManifestYaml.loadAll(text, LIMITS, d -> handed.add(d.index()) && d.index() < 2))
        .isNull();

    assertThat(handed).containsExactly(0, 1, 2);
    assertThat(ManifestYaml.RECENT.get(text, LIMITS)).isNull();

    ManifestYaml.loadAll(text, LIMITS);
    handed.clear();
    assertThat(ManifestYaml.RECENT.get(text, LIMITS)).isNotNull();
    ManifestYaml.loadAll(text, LIMITS, d -> handed.add(d.index()) && d.index() < 1);
    assertThat(handed).containsExactly(0, 1);
  }

  @Test
  void theOldestTextsGoOnceTooManyCharactersAreKept() {
    ParsedTexts texts = new ParsedTexts();
    int each = (int) (ParsedTexts.MAX_CHARS / 5) + 1;
    int fit = 4;
    List<String> read = new ArrayList<>();
    for (int i = 0; i <= fit; i++) {
      String text = i + "x".repeat(each - 1);
      read.add(text);
      texts.keep(text, LIMITS, List.of());
    }

    assertThat(texts.size()).isEqualTo(fit);
    assertThat(texts.get(read.get(0), LIMITS)).isNull();
    assertThat(texts.get(read.get(fit), LIMITS)).isNotNull();
    assertThat(texts.get(read.get(1), LIMITS)).isNotNull();
  }
}
