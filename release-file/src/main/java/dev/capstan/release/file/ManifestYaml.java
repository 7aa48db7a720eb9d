package dev.capstan.release.file;

import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.ManifestSchema;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.TooManyNodesException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads Kubernetes manifests from YAML 1.2 (or JSON) text with capstan-common's reader and its
 * {@link ManifestSchema}, keeping every scalar as written (a decimal such as {@code 1.10} stays the
 * {@code BigDecimal} 1.10). Nothing is coerced afterwards. Documents are read one at a time in one
 * pass, within the limits given.
 */
final class ManifestYaml {
  private ManifestYaml() {}

  /** One document of a stream: its tree, or {@code null} for an empty document. */
  record Document(int index, @Nullable Object tree) {}

  /** The schema manifests are read with. */
  private static final ManifestSchema SCHEMA = ManifestSchema.INSTANCE;

  /** The large texts read lately, not parsed again. */
  static final ParsedTexts RECENT = new ParsedTexts();

  /** Receives the documents of a stream one at a time. */
  @FunctionalInterface
  interface Documents {
    /** Takes one document; {@code false} when no more are wanted (the rest is not read). */
    boolean accept(Document document);
  }

  /**
   * Every document of {@code text}, empty ones included (as {@code null} trees).
   *
   * @throws IllegalArgumentException describing the first problem by line and column, never quoting
   *     the text around it (it may be a Secret's value)
   */
  static List<Document> loadAll(String text, InputLimits limits) {
    List<Document> docs = new ArrayList<>();
    String error = loadAll(text, limits, docs::add);
    if (error != null) {
      throw new IllegalArgumentException(error);
    }
    return docs;
  }

  /**
   * Hands each document of {@code text} to {@code out} as soon as it is read, in one pass within
   * {@code limits}, up to the first problem or until {@code out} wants no more, and returns that
   * problem ({@code #index: not valid YAML at line L, column C: ...}, {@code #index: nesting is
   * deeper than ...}), or {@code null}.
   */
  static @Nullable String loadAll(String text, InputLimits limits, Documents out) {
    return loadAll(text, limits, false, out);
  }

  /**
   * As {@link #loadAll(String, InputLimits, Documents)}; the problem of a {@code hidden} text (a
   * Secret's) quotes none of it: no excerpt, name or value, only the rule, line and column.
   */
  static @Nullable String loadAll(String text, InputLimits limits, boolean hidden, Documents out) {
    List<Document> known = RECENT.get(text, limits);
    if (known != null) {
      for (Document d : known) {
        if (!out.accept(d)) {
          break;
        }
      }
      return null;
    }
    // a text worth keeping is kept as parsed, before a reader can change what it is handed
    List<Document> kept = new ArrayList<>();
    boolean[] keeping = {RECENT.keeps(text)};
    int[] read = {0};
    boolean[] whole = {true};
    try {
      StrictDocuments.readYaml(
          text,
          limits,
          SCHEMA,
          hidden,
          (index, tree) -> {
            if (keeping[0]) {
              // a copy expands the aliases: a tree that would pass the limit so is not kept (the
              // reader, handed it below, counts it within its budget and refuses it)
              if (limits.maxNodes() != InputLimits.UNBOUNDED_NODES
                  && nodes(tree, limits.maxNodes()) > limits.maxNodes()) {
                keeping[0] = false;
                kept.clear();
              } else {
                kept.add(new Document(index, ParsedTexts.copy(tree)));
              }
            }
            read[0] = index + 1;
            whole[0] = out.accept(new Document(index, tree));
            return whole[0];
          });
    } catch (TooManyNodesException e) {
      throw e; // the caller's budget, answered by the caller
    } catch (InvalidDocumentException e) {
      return "#" + read[0] + ": " + oneLine(String.valueOf(e.getMessage()));
    }
    if (keeping[0] && whole[0]) {
      RECENT.keep(text, limits, kept);
    }
    return null;
  }

  /**
   * The nodes of a tree as the reader counts them ({@link InputLimits#maxNodes()}): each mapping,
   * sequence, key and scalar (null too, and so an empty document) one; a node an alias names again
   * counts again.
   */
  static long nodes(@Nullable Object tree) {
    return nodes(tree, Long.MAX_VALUE);
  }

  /**
   * As {@link #nodes(Object)}, but the walk stops once the count passes {@code limit} (a tree whose
   * aliases expand to more nodes than any budget is never walked whole): the count, or a number
   * above {@code limit}.
   */
  static long nodes(@Nullable Object tree, long limit) {
    long count = 0;
    Deque<@Nullable Object> todo = new ArrayDeque<>();
    todo.push(tree == null ? NULL : tree);
    while (!todo.isEmpty()) {
      Object node = todo.pop();
      if (++count > limit) {
        return count;
      }
      if (node instanceof Map<?, ?> map) {
        count += map.size();
        map.values().forEach(v -> todo.push(v == null ? NULL : v));
      } else if (node instanceof List<?> list) {
        list.forEach(v -> todo.push(v == null ? NULL : v));
      }
    }
    return count;
  }

  /** Stands for a null scalar on the walk's stack, which holds no null. */
  private static final Object NULL = new Object();

  private static String oneLine(String s) {
    return s.replace('\n', ' ').strip();
  }
}
