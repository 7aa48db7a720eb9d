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

  /** A text and its limits but the nodes: a text read whole within any node limit is the same. */
  private record Key(String text, InputLimits limits) {
    static Key of(String text, InputLimits limits) {
      return new Key(text, limits.withMaxNodes(InputLimits.UNBOUNDED_NODES));
    }
  }

  /** The documents of a text, and their nodes ({@link ManifestYaml#nodes}). */
  private record Kept(List<ManifestYaml.Document> documents, long nodes) {}

  private final SoftCache<Key, Kept> kept = new SoftCache<>(MAX_CHARS);

  /**
   * The documents of {@code text} read within {@code limits}, if kept, as a copy of their own; else
   * {@code null}, and {@code null} too when they hold more nodes than {@code limits} allow (read
   * again, the text is refused where the limit is passed).
   */
  @Nullable List<ManifestYaml.Document> get(String text, InputLimits limits) {
    if (!keeps(text)) {
      return null;
    }
    Kept known = kept.get(Key.of(text, limits));
    if (known == null || known.nodes() > limits.maxNodes()) {
      return null;
    }
    List<ManifestYaml.Document> documents = known.documents();
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
      long nodes = 0;
      for (ManifestYaml.Document d : documents) {
        nodes += ManifestYaml.nodes(d.tree());
      }
      kept.put(Key.of(text, limits), new Kept(List.copyOf(documents), nodes), text.length());
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
