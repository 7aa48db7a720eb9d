package dev.capstan.release.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which texts occur inside others, in time that grows with the sum of their lengths rather than
 * with their product: the texts sought make an Aho–Corasick automaton (a trie whose every node also
 * knows the longest suffix of its text that is a node too), which reads each searched text once,
 * char by char; a node reached is a sought text found, and so is every node its suffix links lead
 * to. The same answer as {@code searched.stream().anyMatch(s -> s.contains(t))} for each sought
 * {@code t}, without the {@code |s| * |t|} of a {@link String#contains} that fails late (a long run
 * of {@code a} sought in a longer one, ending {@code b}).
 *
 * <p>The sought texts are taken {@value #MAX_BATCH_CHARS} chars at a time, so the automaton (some
 * 30 bytes a char while it is built, 11 once built) stays small however much is sought; each batch
 * reads the searched texts again.
 */
final class ContainedTexts {
  /** The most chars of sought texts one automaton holds. */
  static final int MAX_BATCH_CHARS = 1 << 20;

  private static final int ROOT = 0;

  private ContainedTexts() {}

  /**
   * The texts of {@code sought} found inside a text of {@code searched} (an empty text is found in
   * any), as {@link String#contains} finds them: by UTF-16 chars.
   */
  static Set<String> foundIn(Collection<String> sought, Collection<String> searched) {
    int longest = 0;
    for (String s : searched) {
      longest = Math.max(longest, s.length());
    }
    TreeSet<String> candidates = new TreeSet<>();
    for (String t : sought) {
      if (t.length() <= longest && !searched.isEmpty()) {
        candidates.add(t);
      }
    }
    Set<String> found = new HashSet<>();
    List<String> batch = new ArrayList<>();
    long chars = 0;
    for (String t : candidates) {
      if (!batch.isEmpty() && chars + t.length() > MAX_BATCH_CHARS) {
        found.addAll(new Automaton(batch).foundIn(searched));
        batch.clear();
        chars = 0;
      }
      batch.add(t);
      chars += t.length();
    }
    if (!batch.isEmpty()) {
      found.addAll(new Automaton(batch).foundIn(searched));
    }
    return found;
  }

  /**
   * The automaton of some texts, its nodes numbered breadth first, so that the children of a node
   * are consecutive and in char order: node {@code u}'s are {@code childStart[u]} up to {@code
   * childStart[u + 1]}, found by a binary search of their {@code label}s.
   */
  private static final class Automaton {
    private final List<String> texts;
    private final int[] node;
    private final char[] label;
    private final int[] childStart;
    private final int[] fail;

    /** The automaton of {@code sorted}: distinct texts in {@link String#compareTo} order. */
    Automaton(List<String> sorted) {
      this.texts = sorted;
      int capacity = 1;
      int deepest = 0;
      for (String t : sorted) {
        capacity += t.length();
        deepest = Math.max(deepest, t.length());
      }
      // the trie, built from the sorted texts: a text shares the path of its common prefix with
      // the one before it, and each new node is the last child of its parent so far
      int[] firstChild = new int[capacity];
      int[] nextSibling = new int[capacity];
      char[] chars = new char[capacity];
      int[] end = new int[sorted.size()];
      Arrays.fill(firstChild, -1);
      Arrays.fill(nextSibling, -1);
      int count = 1;
      int[] path = new int[deepest + 1];
      String previous = "";
      for (int k = 0; k < sorted.size(); k++) {
        String t = sorted.get(k);
        int common = 0;
        int max = Math.min(t.length(), previous.length());
        while (common < max && t.charAt(common) == previous.charAt(common)) {
          common++;
        }
        for (int d = common; d < t.length(); d++) {
          int created = count++;
          chars[created] = t.charAt(d);
          if (d == common && d < previous.length()) {
            nextSibling[path[d + 1]] = created;
          } else {
            firstChild[path[d]] = created;
          }
          path[d + 1] = created;
        }
        end[k] = path[t.length()];
        previous = t;
      }
      // renumbered breadth first
      int[] order = new int[count];
      int[] renumbered = new int[count];
      label = new char[count];
      childStart = new int[count + 1];
      int head = 0;
      int tail = 1;
      order[0] = ROOT;
      while (head < count) {
        int old = order[head];
        childStart[head] = tail;
        for (int c = firstChild[old]; c >= 0; c = nextSibling[c]) {
          renumbered[c] = tail;
          label[tail] = chars[c];
          order[tail++] = c;
        }
        head++;
      }
      childStart[count] = tail;
      node = new int[end.length];
      for (int k = 0; k < end.length; k++) {
        node[k] = renumbered[end[k]];
      }
      // suffix links, breadth first: a node's is found from its parent's
      fail = new int[count];
      for (int u = 0; u < count; u++) {
        for (int v = childStart[u]; v < childStart[u + 1]; v++) {
          fail[v] = u == ROOT ? ROOT : next(fail[u], label[v]);
        }
      }
    }

    /** The child of {@code u} labelled {@code c}, or -1. */
    private int child(int u, char c) {
      int lo = childStart[u];
      int hi = childStart[u + 1] - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (label[mid] < c) {
          lo = mid + 1;
        } else if (label[mid] > c) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -1;
    }

    /** Where the automaton goes from {@code u} reading {@code c}. */
    private int next(int u, char c) {
      int at = u;
      while (true) {
        int v = child(at, c);
        if (v >= 0) {
          return v;
        }
        if (at == ROOT) {
          return ROOT;
        }
        at = fail[at];
      }
    }

    /** The texts found inside one of {@code searched}. */
    List<String> foundIn(Collection<String> searched) {
      boolean[] seen = new boolean[fail.length];
      seen[ROOT] = true;
      for (String s : searched) {
        int at = ROOT;
        for (int i = 0; i < s.length(); i++) {
          at = next(at, s.charAt(i));
          // a node seen before had its suffix links followed then: each node is marked once
          for (int u = at; !seen[u]; u = fail[u]) {
            seen[u] = true;
          }
        }
      }
      List<String> out = new ArrayList<>();
      for (int k = 0; k < texts.size(); k++) {
        if (seen[node[k]]) {
          out.add(texts.get(k));
        }
      }
      return out;
    }
  }
}
