package dev.capstan.update.internal;

import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads YAML or JSON bytes into plain immutable trees (see {@link Trees#freeze}), strictly and
 * within bounds, through {@link StrictDocuments}: nesting, aliases and documents are checked before
 * a tree is built.
 */
public final class Documents {
  /** Aliases allowed per document; our documents need none, so a handful is generous. */
  public static final int MAX_ALIASES = 10;

  /** Nesting allowed: CRD schemas are the deepest documents read, and stay well below. */
  public static final int MAX_DEPTH = InputLimits.DEFAULT_MAX_DEPTH;

  /** Documents allowed in one multi-document stream (a CRD bundle). */
  public static final int MAX_DOCUMENTS = 1000;

  private Documents() {}

  /**
   * Reads exactly one document, as JSON when it starts with <code>{</code>, otherwise as YAML.
   *
   * @param bytes the document
   * @param maxBytes the size limit
   * @return the frozen tree; null for an empty document
   * @throws DocumentSyntaxException when the document is too large, breaks a limit or cannot be
   *     parsed
   */
  public static @Nullable Object readOne(byte[] bytes, int maxBytes) {
    try {
      return Trees.freeze(StrictDocuments.readOne(bytes, limits(maxBytes, 1)));
    } catch (InvalidDocumentException e) {
      throw new DocumentSyntaxException(e.getMessage());
    }
  }

  /**
   * Reads every document of a multi-document YAML stream (documents separated by {@code ---}).
   *
   * @param yaml the stream
   * @param maxBytes the size limit
   * @return one frozen tree per document, nulls for empty documents
   * @throws DocumentSyntaxException when the stream is too large, breaks a limit or cannot be
   *     parsed
   */
  public static List<@Nullable Object> readAll(String yaml, int maxBytes) {
    try {
      List<@Nullable Object> out = new ArrayList<>();
      for (Object doc : StrictDocuments.readYaml(yaml, limits(maxBytes, MAX_DOCUMENTS))) {
        out.add(Trees.freeze(doc));
      }
      return out;
    } catch (InvalidDocumentException e) {
      throw new DocumentSyntaxException(e.getMessage());
    }
  }

  private static InputLimits limits(int maxBytes, int documents) {
    return new InputLimits(maxBytes, MAX_DEPTH, MAX_ALIASES, documents);
  }
}
