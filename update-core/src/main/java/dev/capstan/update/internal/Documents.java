package dev.capstan.update.internal;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/** Reads YAML or JSON bytes into plain immutable trees (see {@link Trees#freeze}). */
public final class Documents {
  /** Aliases allowed per document; our documents need none, so a handful is generous. */
  public static final int MAX_ALIASES = 10;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Documents() {}

  /**
   * Reads exactly one document, as JSON when it starts with <code>{</code>, otherwise as YAML.
   *
   * @param bytes the document
   * @param maxBytes the size limit
   * @return the frozen tree; null for an empty document
   * @throws DocumentSyntaxException when the document is too large or cannot be parsed
   */
  public static @Nullable Object readOne(byte[] bytes, int maxBytes) {
    checkSize(bytes.length, maxBytes);
    if (looksLikeJson(bytes)) {
      try {
        return Trees.freeze(JSON.readValue(bytes, Object.class));
      } catch (JacksonException e) {
        throw new DocumentSyntaxException("JSON syntax error: " + e.getOriginalMessage() + at(e));
      } catch (IOException e) {
        throw new DocumentSyntaxException("cannot read JSON: " + e.getMessage());
      }
    }
    Iterator<Object> docs =
        new Load(yamlSettings(maxBytes))
            .loadAllFromInputStream(new ByteArrayInputStream(bytes))
            .iterator();
    try {
      if (!docs.hasNext()) {
        return null;
      }
      Object first = docs.next();
      if (docs.hasNext()) {
        docs.next();
        throw new DocumentSyntaxException("must hold exactly one YAML document, found more");
      }
      return Trees.freeze(first);
    } catch (YamlEngineException e) {
      throw yamlError(e);
    }
  }

  /**
   * Reads every document of a multi-document YAML stream (documents separated by {@code ---}).
   *
   * @param yaml the stream
   * @param maxBytes the size limit
   * @return one frozen tree per document, nulls for empty documents
   * @throws DocumentSyntaxException when the stream is too large or cannot be parsed
   */
  public static List<@Nullable Object> readAll(String yaml, int maxBytes) {
    checkSize(yaml.length(), maxBytes);
    List<@Nullable Object> out = new ArrayList<>();
    try {
      for (Object doc : new Load(yamlSettings(maxBytes)).loadAllFromString(yaml)) {
        out.add(Trees.freeze(doc));
      }
    } catch (YamlEngineException e) {
      throw yamlError(e);
    }
    return out;
  }

  private static boolean looksLikeJson(byte[] bytes) {
    for (byte b : bytes) {
      if (b == ' ' || b == '\t' || b == '\r' || b == '\n') {
        continue;
      }
      return b == '{';
    }
    return false;
  }

  private static void checkSize(int length, int maxBytes) {
    if (length > maxBytes) {
      throw new DocumentSyntaxException(
          "document is "
              + length
              + " bytes; the limit is "
              + maxBytes
              + " bytes ("
              + human(maxBytes)
              + ")");
    }
  }

  private static String human(int bytes) {
    return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB" : bytes / 1024 + " KiB";
  }

  private static LoadSettings yamlSettings(int maxBytes) {
    return LoadSettings.builder()
        .setAllowDuplicateKeys(false)
        .setAllowRecursiveKeys(false)
        .setMaxAliasesForCollections(MAX_ALIASES)
        .setCodePointLimit(maxBytes + 1)
        .setUseMarks(true)
        .build();
  }

  private static DocumentSyntaxException yamlError(YamlEngineException e) {
    if (e instanceof MarkedYamlEngineException marked) {
      String where =
          marked
              .getProblemMark()
              .map(m -> " at line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1))
              .orElse("");
      return new DocumentSyntaxException("YAML error" + where + ": " + marked.getProblem());
    }
    return new DocumentSyntaxException("YAML error: " + e.getMessage());
  }

  private static String at(JacksonException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }
}
