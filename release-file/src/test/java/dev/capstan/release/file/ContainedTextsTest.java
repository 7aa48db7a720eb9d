package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ContainedTexts}: the texts {@link String#contains} finds, and no other. */
class ContainedTextsTest {
  @Test
  void findsTextsInsideOthersAtAnyPlaceAndOverlapping() {
    assertThat(
            ContainedTexts.foundIn(
                List.of(
                    "hunter2", "ter2@", "postgres", "hunter22", "db:5432", "5432/", "", "x", "hu"),
                List.of("postgres://app:hunter2@db:5432", "x")))
        .containsExactlyInAnyOrder("hunter2", "ter2@", "postgres", "db:5432", "", "x", "hu");
  }

  @Test
  void nothingIsFoundInNoText() {
    assertThat(ContainedTexts.foundIn(List.of("", "a"), List.of())).isEmpty();
    assertThat(ContainedTexts.foundIn(List.of(), List.of("a"))).isEmpty();
  }

  @Test
  void charsBeyondTheBasicPlaneAndEveryCharValueAreCompared() {
    String text = "k\uD83D\uDE00\uFFFF\u0000z";
    assertThat(
            ContainedTexts.foundIn(
                List.of("\uD83D\uDE00\uFFFF", "\uDE00\uFFFF\u0000", "\u0000z", "\uFFFE", "\uD83D"),
                List.of(text)))
        .containsExactlyInAnyOrder("\uD83D\uDE00\uFFFF", "\uDE00\uFFFF\u0000", "\u0000z", "\uD83D");
  }

  /** As {@link String#contains} answers, on random texts of a few letters (many near misses). */
  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 26})
  void answersAsStringContainsDoes(int letters) {
    Random random = new Random(letters);
    for (int round = 0; round < 200; round++) {
      List<String> searched = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        searched.add(text(random, letters, random.nextInt(60)));
      }
      List<String> sought = new ArrayList<>();
      for (int i = random.nextInt(40); i > 0; i--) {
        sought.add(text(random, letters, random.nextInt(12)));
      }
      if (!searched.isEmpty() && random.nextBoolean()) {
        String s = searched.get(0);
        int from = random.nextInt(s.length() + 1);
        sought.add(s.substring(from, from + random.nextInt(s.length() - from + 1)));
      }
      Set<String> expected = new HashSet<>();
      for (String t : sought) {
        if (searched.stream().anyMatch(s -> s.contains(t))) {
          expected.add(t);
        }
      }

      assertThat(ContainedTexts.foundIn(sought, searched))
          .as("%s in %s", sought, searched)
          .isEqualTo(expected);
    }
  }

  @Test
  void soughtTextsBeyondOneBatchAreAllFound() {
    List<String> sought = new ArrayList<>();
    StringBuilder searched = new StringBuilder();
    for (int i = 0; i < 3 * ContainedTexts.MAX_BATCH_CHARS / 1000; i++) {
      String t = String.format("%06d", i).repeat(166) + "-";
      sought.add(t);
      if (i % 1000 == 0) {
        searched.append(t).append(' ');
      }
    }

    Set<String> found = ContainedTexts.foundIn(sought, List.of(searched.toString()));

    assertThat(found)
        .containsExactlyInAnyOrder(
            sought.get(0), sought.get(1000), sought.get(2000), sought.get(3000));
  }

  private static String text(Random random, int letters, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append((char) ('a' + random.nextInt(letters)));
    }
    return out.toString();
  }
}
