package dev.capstan.cel;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * An upper bound of the size of the program CEL's regular expression engine (RE2J) compiles a
 * pattern to, read from the pattern's text without compiling it: {@code matches} compiles its
 * pattern on every call, and compiling {@code ((x{1000}){1000}){1000}} alone fills gigabytes, so
 * {@link EvaluationCost} prices a call by this bound before it runs. A character, a class ({@code
 * [a-z]}), an escape ({@code \d}, {@code \pL}) and an anchor count 1, each character of {@code
 * \Q...\E} 1; a group counts its content plus 2, an alternative 1 more; {@code *}, {@code +} and
 * {@code ?} add 1 to what they repeat; a counted repetition ({@code {n}}, {@code {n,}}, {@code
 * {n,m}}) multiplies what it repeats, plus 1, by its highest count plus 1 ({@code n + 1} for {@code
 * {n,}}). The bound is saturated at {@link #MAX}.
 */
final class RegexSize {
  /** The highest bound given: far above what any evaluation may pay for. */
  static final long MAX = 1L << 40;

  /** The program's own instructions (its start, its match, a failure). */
  private static final long OVERHEAD = 4;

  /** RE2J refuses a count above this; a pattern with one fails to compile, cheaply. */
  private static final long MAX_COUNT = 1000;

  private RegexSize() {}

  /**
   * A group being read: its finished alternatives, its current sequence and that sequence's last
   * item.
   */
  private static final class Group {
    long alternatives;
    long sequence;
    long last;

    void add(long item) {
      sequence = plus(sequence, item);
      last = item;
    }

    /** Replaces the last item by {@code item} (a repetition of it). */
    void repeat(long item) {
      sequence = plus(sequence - last, item);
      last = item;
    }

    long size() {
      return plus(alternatives, sequence);
    }
  }

  /** The bound for {@code pattern}. */
  static long of(String pattern) {
    Deque<Group> groups = new ArrayDeque<>();
    Group top = new Group();
    int n = pattern.length();
    int i = 0;
    while (i < n) {
      char c = pattern.charAt(i);
      switch (c) {
        case '(' -> {
          int end = i + 1;
          if (end < n && pattern.charAt(end) == '?') {
            while (end < n && ":)>".indexOf(pattern.charAt(end)) < 0) {
              end++;
            }
            if (end < n && pattern.charAt(end) == ')') { // flags only, as (?i)
              i = end + 1;
              continue;
            }
          } else {
            end = i;
          }
          groups.push(top);
          top = new Group();
          i = end + 1;
          continue;
        }
        case ')' -> {
          if (groups.isEmpty()) {
            top.add(1);
          } else {
            long group = plus(top.size(), 2);
            top = groups.pop();
            top.add(group);
          }
        }
        case '|' -> {
          top.alternatives = plus(top.alternatives, plus(top.sequence, 1));
          top.sequence = 0;
          top.last = 0;
        }
        case '*', '+', '?' -> top.repeat(plus(top.last, 1));
        case '{' -> {
          int end = pattern.indexOf('}', i);
          long count = end < 0 ? -1 : highestCount(pattern.substring(i + 1, end));
          if (count < 0) {
            top.add(1);
          } else {
            top.repeat(times(plus(top.last, 1), count + 1));
            i = end;
          }
        }
        case '[' -> {
          i = classEnd(pattern, i);
          top.add(1);
        }
        case '\\' -> {
          if (i + 1 < n && pattern.charAt(i + 1) == 'Q') {
            int end = pattern.indexOf("\\E", i + 2);
            int stop = end < 0 ? n : end;
            top.add(Math.max(1, stop - (i + 2)));
            i = end < 0 ? n : end + 1;
          } else {
            i = escapeEnd(pattern, i);
            top.add(1);
          }
        }
        default -> top.add(1);
      }
      i++;
    }
    while (!groups.isEmpty()) { // an unclosed group: RE2J refuses it, the bound stays an upper one
      long group = plus(top.size(), 2);
      top = groups.pop();
      top.add(group);
    }
    return plus(top.size(), OVERHEAD);
  }

  /** The highest count of a repetition's body ({@code 3}, {@code 3,}, {@code 3,5}), or -1. */
  private static long highestCount(String body) {
    int comma = body.indexOf(',');
    long low = count(comma < 0 ? body : body.substring(0, comma));
    long high = comma < 0 || comma == body.length() - 1 ? low : count(body.substring(comma + 1));
    return low < 0 || high < 0 ? -1 : Math.min(MAX_COUNT, Math.max(low, high));
  }

  /** The decimal count {@code digits} (at most {@link #MAX_COUNT} + 1), or -1. */
  private static long count(String digits) {
    if (digits.isEmpty()) {
      return -1;
    }
    long value = 0;
    for (int k = 0; k < digits.length(); k++) {
      char d = digits.charAt(k);
      if (d < '0' || d > '9') {
        return -1;
      }
      value = Math.min(MAX_COUNT + 1, value * 10 + (d - '0'));
    }
    return value;
  }

  /** The index of the {@code ]} closing the class opened at {@code start}, or the last index. */
  private static int classEnd(String pattern, int start) {
    int n = pattern.length();
    int j = start + 1;
    if (j < n && pattern.charAt(j) == '^') {
      j++;
    }
    if (j < n && pattern.charAt(j) == ']') {
      j++;
    }
    while (j < n && pattern.charAt(j) != ']') {
      if (pattern.charAt(j) == '\\') {
        j++;
      } else if (pattern.startsWith("[:", j)) {
        int end = pattern.indexOf(":]", j + 2);
        j = end < 0 ? j : end + 1;
      }
      j++;
    }
    return Math.min(j, n - 1);
  }

  /**
   * The index of the last character of the escape at {@code start} ({@code \d}, {@code \p{Greek}}).
   */
  private static int escapeEnd(String pattern, int start) {
    int n = pattern.length();
    if (start + 2 < n
        && "pPx".indexOf(pattern.charAt(start + 1)) >= 0
        && pattern.charAt(start + 2) == '{') {
      int end = pattern.indexOf('}', start + 2);
      return end < 0 ? n - 1 : end;
    }
    return Math.min(start + 1, n - 1);
  }

  private static long plus(long a, long b) {
    return Math.min(MAX, a + b);
  }

  private static long times(long a, long b) {
    return a > MAX / b ? MAX : Math.min(MAX, a * b);
  }
}
