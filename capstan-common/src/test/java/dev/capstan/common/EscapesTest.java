package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EscapesTest {
  @Test
  void plainTextIsReturnedAsIs() {
    String s = "web-1.shop";
    assertThat(Escapes.escape(s)).isSameAs(s);
  }

  @Test
  void controlCharactersNewlinesAndAnsiEscapesAreShownEscaped() {
    assertThat(Escapes.escape("a\u001b[2Jb\nc\rd\te\u0000\u007f\u009b"))
        .isEqualTo("a\\u001b[2Jb\\nc\\rd\\te\\u0000\\u007f\\u009b");
  }

  @Test
  void bidiOverridesAndLineSeparatorsAreEscaped() {
    assertThat(Escapes.escape("x\u202ey\u2028z\u2066")).isEqualTo("x\\u202ey\\u2028z\\u2066");
  }

  @Test
  void aBackslashThatWouldReadAsAnEscapeIsDoubled() {
    assertThat(Escapes.escape("C:\\new\\x")).isEqualTo("C:\\\\new\\x");
  }

  @Test
  void quoteEscapesAndQuotes() {
    assertThat(Escapes.quote("web\nDEPLOYED")).isEqualTo("'web\\nDEPLOYED'");
    assertThat(Escapes.quote(null)).isEqualTo("null");
  }

  @Test
  void aLongValueIsQuotedCutWithItsLength() {
    assertThat(Escapes.quote("/" + "a".repeat(4999), 8)).isEqualTo("'/aaaaaaa…' (5000 characters)");
    assertThat(Escapes.quote("/\u001b[2J", 2)).isEqualTo("'/\\u001b…' (5 characters)");
    assertThat(Escapes.quote("ab\uD83D\uDE00c", 3)).isEqualTo("'ab…' (5 characters)");
    assertThat(Escapes.quote("web", 3)).isEqualTo("'web'");
    assertThat(Escapes.quote(null, 3)).isEqualTo("null");
  }
}
