package dev.capstan.common;

import org.jspecify.annotations.Nullable;

/**
 * Makes a value safe to echo to a terminal, a log or a report: control characters, newlines and
 * ANSI escape sequences are shown as Java-style escapes ({@code \n}, {@code \t}, {@code \u001b}),
 * so a value from a file can neither clear a screen nor forge an output line. The one place every
 * Capstan module escapes what it echoes.
 */
public final class Escapes {
  /**
   * What a message says in place of a value it must never echo, a Secret's: {@code Secret shop/db:
   * stringData['pin'] must be a string; quote it to keep the text (the value is not shown)}. The
   * one wording of a withheld value, so every reader of Secret values withholds it alike.
   */
  public static final String NOT_SHOWN = "(the value is not shown)";

  private Escapes() {}

  /**
   * {@code value} with every character below U+0020, U+007F, the C1 controls (U+0080–U+009F), the
   * line and paragraph separators (U+2028, U+2029) and the bidirectional overrides (U+202A–U+202E,
   * U+2066–U+2069) escaped; a backslash is doubled only when it would otherwise read as an escape.
   */
  public static String escape(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String replacement = replacement(c, value, i);
      if (replacement != null) {
        if (out == null) {
          out = new StringBuilder(value.length() + 8).append(value, 0, i);
        }
        out.append(replacement);
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? value : out.toString();
  }

  /** {@code 'value'} with the value {@link #escape escaped}, or {@code null} for null. */
  public static String quote(@Nullable Object value) {
    return value == null ? "null" : "'" + escape(String.valueOf(value)) + "'";
  }

  /**
   * {@code value} {@link #quote quoted}, or, when it is longer than {@code maxChars} characters,
   * its first {@code maxChars} quoted with its length after them: {@code '/aaaa…' (5001
   * characters)}. For a message about a value that may be any length (a refusal of one that is too
   * long), so that the message stays short.
   *
   * @param maxChars the most characters of the value shown; at least 1
   */
  public static String quote(@Nullable Object value, int maxChars) {
    if (maxChars < 1) {
      throw new IllegalArgumentException("maxChars must be at least 1: " + maxChars);
    }
    String text = value == null ? null : String.valueOf(value);
    if (text == null || text.length() <= maxChars) {
      return quote(text);
    }
    // a surrogate pair is kept whole
    int end = Character.isHighSurrogate(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
    return "'" + escape(text.substring(0, end)) + "…' (" + text.length() + " characters)";
  }

  private static @Nullable String replacement(char c, String value, int i) {
    String named =
        switch (c) {
          case '\n' -> "\\n";
          case '\r' -> "\\r";
          case '\t' -> "\\t";
          default -> null;
        };
    if (named != null) {
      return named;
    }
    if (c == '\\') {
      return i + 1 < value.length() && isEscapeLetter(value.charAt(i + 1)) ? "\\\\" : null;
    }
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
      return String.format("\\u%04x", (int) c);
    }
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
      return String.format("\\u%04x", (int) c);
    }
    return null;
  }

  private static boolean isEscapeLetter(char c) {
    return c == 'n' || c == 'r' || c == 't' || c == 'u' || c == '\\';
  }
}
