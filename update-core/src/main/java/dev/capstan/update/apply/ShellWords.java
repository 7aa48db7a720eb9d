package dev.capstan.update.apply;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * POSIX shell quoting: every word comes back from {@code sh} as exactly one, unchanged argument.
 */
final class ShellWords {
  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private ShellWords() {}

  /**
   * Quotes one word: left as is when it holds only characters the shell never interprets (and is
   * not empty), otherwise wrapped in single quotes, each embedded single quote written as {@code
   * '\''}.
   */
  static String quote(String word) {
    if (SAFE.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }

  /** Quotes each word and joins them with spaces. */
  static String join(List<String> words) {
    return words.stream().map(ShellWords::quote).collect(Collectors.joining(" "));
  }
}
