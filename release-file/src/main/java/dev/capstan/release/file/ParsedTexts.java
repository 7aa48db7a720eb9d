package dev.capstan.release.file;

import dev.capstan.common.InputLimits;
import dev.capstan.common.SoftCache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The documents of the large YAML texts read lately in this process, by their exact text and the
 * limits they were read within, so a process that reads the same files again (the CLI's daemon
 * re-casting a bundle, the controller reading an unchanged {@code manifestsFrom} source) does not
 * parse them again: a text of {@value #MIN_CHARS} characters or more, read without a problem, is
 * kept until {@value #MAX_CHARS} characters of texts are held (the least recently read go first) or
 * the collector needs the memory ({@link SoftCache}). A text that differs by one character is
 * another text; nothing is keyed by a file's name or time.
 *
 * <p>What is kept is a copy of the trees the parser made, and every read of a kept text gets a copy
 * of its own ({@link #copy}: the same maps, lists and scalars a parse makes), so a reader that
 * changes a tree changes nobody else's.
 */
final class ParsedTexts {
  /**
   * The shortest text kept: shorter ones cost little to parse again (a few milliseconds at most)
   * and are not worth a copy of their trees made as they are read.
   */
  static final int MIN_CHARS = 64 * 1024;

  /** The most characters of texts kept at once. */
  static final long MAX_CHARS = 16L * 1024 * 1024;

  private record Key(String text, InputLimits limits) {}

  private final SoftCache<Key, List<ManifestYaml.Document>> kept = new SoftCache<>(MAX_CHARS);

  /**
   * The documents of {@code text} read within {@code limits}, if kept, as a copy of their own; else
   * {@code null}.
   */
  @Nullable List<ManifestYaml.Document> get(String text, InputLimits limits) {
    if (!keeps(text)) {
      return null;
    }
    List<ManifestYaml.Document> documents = kept.get(new Key(text, limits));
    if (documents == null) {
      return null;
    }
    List<ManifestYaml.Document> out = new ArrayList<>(documents.size());
    documents.forEach(d -> out.add(new ManifestYaml.Document(d.index(), copy(d.tree()))));
    return out;
  }

  /** Whether a text of this length is kept once read ({@link #keep}). */
  boolean keeps(String text) {
    return text.length() >= MIN_CHARS && text.length() <= MAX_CHARS;
  }

  /**
   * Keeps {@code documents}, the documents of {@code text} read within {@code limits} without a
   * problem, which nobody else holds (a copy made as they were read), when this {@link #keeps} the
   * text.
   */
  void keep(String text, InputLimits limits, List<ManifestYaml.Document> documents) {
    if (keeps(text)) {
      kept.put(new Key(text, limits), List.copyOf(documents), text.length());
    }
  }

  /** How many texts are kept (for tests). */
  int size() {
    return kept.size();
  }

  /** A deep copy of a document tree: new maps and lists in the same order, the same scalars. */
  static @Nullable Object copy(@Nullable Object tree) {
    if (tree instanceof Map<?, ?> map) {
      Map<Object, @Nullable Object> out = new LinkedHashMap<>(Math.max(4, map.size() * 2));
      map.forEach((k, v) -> out.put(k, copy(v)));
      return out;
    }
    if (tree instanceof List<?> list) {
      List<@Nullable Object> out = new ArrayList<>(list.size());
      for (Object item : list) {
        out.add(copy(item));
      }
      return out;
    }
    return tree;
  }
}
