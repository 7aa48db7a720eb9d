package dev.capstan.common;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.ConstructNode;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.JsonSchema;
import org.snakeyaml.engine.v2.schema.Schema;

/**
 * Reads YAML and JSON input strictly and within {@link InputLimits}, into plain trees: maps with
 * string keys (in document order), lists, strings, booleans, integers ({@link Integer}, {@link
 * Long} or {@link BigInteger}), decimals ({@link BigDecimal}, which keeps the text: {@code 1.10}
 * stays {@code 1.10}) and nulls.
 *
 * <p>YAML is read in one pass that builds the trees and checks the input as it goes, without
 * recursing: it must be UTF-8 (an invalid byte is reported with its line and column), no deeper
 * than the nesting limit, with no more aliases than allowed, no alias expanding past the size
 * limit, no alias to a node that contains it, and no more documents than allowed. So a 10,000-level
 * document or a billion laughs is refused in time and memory proportional to its size, and never
 * with a {@link StackOverflowError}; and a stream of many documents can be handed on one document
 * at a time ({@link #readYaml(String, InputLimits, DocumentConsumer)}). Mapping keys must be
 * strings, duplicate keys are refused, and only the YAML 1.2 JSON schema's types are accepted
 * ({@code yes} and {@code 0x1F} are strings).
 */
public final class StrictDocuments {
  private static final ConstructNode DEFAULT_FLOAT =
      java.util.Objects.requireNonNull(
          LoadSettings.builder().build().getSchema().getSchemaTagConstructors().get(Tag.FLOAT));

  /** The YAML 1.2 JSON schema, whose decimals keep their text ({@link #DECIMALS}). */
  private static final Schema JSON_SCHEMA = new JsonSchema();

  /**
   * Decimals as {@link BigDecimal}, so {@code 1.10} stays {@code 1.10}; infinities stay doubles.
   */
  private static final Map<Tag, ConstructNode> DECIMALS =
      Map.of(
          Tag.FLOAT,
          node -> {
            String value = ((ScalarNode) node).getValue();
            try {
              return new BigDecimal(value);
            } catch (NumberFormatException e) {
              return DEFAULT_FLOAT.construct(node);
            }
          });

  private StrictDocuments() {}

  /**
   * Decodes UTF-8 strictly; a leading byte-order mark is dropped.
   *
   * @param bytes the input
   * @return the text
   * @throws InvalidDocumentException naming the first invalid byte and its line and column
   */
  public static String decode(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    // validated through a small window, then decoded once: no second copy of a large input
    CharBuffer out = CharBuffer.allocate(Math.max(16, Math.min(bytes.length + 1, 64 * 1024)));
    CoderResult result;
    do {
      out.clear();
      result = decoder.decode(in, out, true);
    } while (result.isOverflow());
    if (!result.isError()) {
      do {
        out.clear();
        result = decoder.flush(out);
      } while (result.isOverflow());
    }
    if (result.isError()) {
      int offset = in.position();
      int line = 1;
      int lineStart = 0;
      for (int i = 0; i < offset; i++) {
        if (bytes[i] == '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      int column =
          new String(bytes, lineStart, offset - lineStart, StandardCharsets.UTF_8).length() + 1;
      throw new InvalidDocumentException(
          String.format(
              "not UTF-8 text: byte 0x%02x at line %d, column %d (offset %d)",
              bytes[offset] & 0xff, line, column, offset));
    }
    boolean bom =
        bytes.length >= 3
            && (bytes[0] & 0xff) == 0xef
            && (bytes[1] & 0xff) == 0xbb
            && (bytes[2] & 0xff) == 0xbf;
    return bom
        ? new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8)
        : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * Receives the documents of a YAML stream one at a time, as each is complete ({@link
   * #readYaml(String, InputLimits, Schema, DocumentConsumer)}).
   */
  @FunctionalInterface
  public interface DocumentConsumer {
    /**
     * Takes one document.
     *
     * @param index the document's index in the stream, from 0
     * @param tree the document's tree, or {@code null} for an empty document
     * @return whether to read on ({@code false} stops after this document)
     */
    boolean accept(int index, @Nullable Object tree);
  }

  /**
   * Reads exactly one document: as JSON when its first non-blank character is <code>{</code>,
   * otherwise as YAML.
   *
   * @param bytes the input
   * @param limits the bounds; {@link InputLimits#maxDocuments()} is taken as 1
   * @return the tree; null for an empty document
   * @throws InvalidDocumentException when the input breaks a limit or is not valid
   */
  public static @Nullable Object readOne(byte[] bytes, InputLimits limits) {
    checkSize(bytes.length, limits);
    String text = decode(bytes);
    if (text.stripLeading().startsWith("{")) {
      return readJson(text, limits);
    }
    List<@Nullable Object> docs = readYaml(text, limits.withMaxDocuments(1));
    return docs.isEmpty() ? null : docs.get(0);
  }

  /**
   * Reads every document of a YAML stream.
   *
   * @param bytes the input
   * @param limits the bounds
   * @return one tree per document, in order (null for an empty document)
   * @throws InvalidDocumentException when the input breaks a limit or is not valid
   */
  public static List<@Nullable Object> readYaml(byte[] bytes, InputLimits limits) {
    checkSize(bytes.length, limits);
    return readYaml(decode(bytes), limits);
  }

  /**
   * Reads every document of a YAML stream given as text.
   *
   * @param text the input; its UTF-8 length is held to the size limit
   * @param limits the bounds
   * @return one tree per document, in order (null for an empty document)
   * @throws InvalidDocumentException when the input breaks a limit or is not valid
   */
  public static List<@Nullable Object> readYaml(String text, InputLimits limits) {
    List<@Nullable Object> out = new ArrayList<>();
    readYaml(
        text,
        limits,
        (index, tree) -> {
          out.add(tree);
          return true;
        });
    return out;
  }

  /**
   * Reads the documents of a YAML stream one at a time with the JSON schema, as {@link
   * #readYaml(String, InputLimits)} types them, handing each to {@code consumer} once complete.
   *
   * @throws InvalidDocumentException at the first problem
   */
  public static void readYaml(String text, InputLimits limits, DocumentConsumer consumer) {
    readYaml(text, limits, JSON_SCHEMA, consumer);
  }

  /**
   * Reads the documents of a YAML stream one at a time, in one pass, with the scalars typed by
   * {@code schema}: each document is handed to {@code consumer} as soon as it is complete, so the
   * caller keeps only what it needs. Every bound of {@code limits} and every rule of this class
   * (tags, string keys, unique keys, aliases) is checked as the text is read, never by recursing.
   *
   * @param text the input; its UTF-8 length is held to the size limit
   * @param limits the bounds
   * @param schema how plain scalars are typed and constructed (the JSON schema in {@link
   *     #readYaml(String, InputLimits)}; a stricter one may refuse a scalar by throwing from its
   *     constructor)
   * @param consumer receives each document
   * @throws InvalidDocumentException at the first problem; the documents before it were handed on.
   *     A schema's own refusal ({@link MarkedYamlEngineException}) is described with its line and
   *     column, never with the text around it
   */
  public static void readYaml(
      String text, InputLimits limits, Schema schema, DocumentConsumer consumer) {
    readYaml(text, limits, schema, false, consumer);
  }

  /**
   * As {@link #readYaml(String, InputLimits, Schema, DocumentConsumer)}, for a text that may be
   * {@code hidden}: a Secret's, none of whose text may reach a status, an event or a log line. A
   * problem of a hidden text quotes nothing of it (no excerpt, character, alias name, key, tag or
   * scalar): it names the rule, the line and column, and a value by its shape alone.
   *
   * @param text the input; its UTF-8 length is held to the size limit
   * @param limits the bounds
   * @param schema how plain scalars are typed and constructed
   * @param hidden whether the text is a Secret's
   * @param consumer receives each document
   * @throws InvalidDocumentException at the first problem; the documents before it were handed on
   */
  public static void readYaml(
      String text, InputLimits limits, Schema schema, boolean hidden, DocumentConsumer consumer) {
    if ((long) text.length() > limits.maxBytes()) {
      checkSize(text.getBytes(StandardCharsets.UTF_8).length, limits);
    }
    try {
      YamlStream.read(
          text, limits, schema, schema == JSON_SCHEMA ? DECIMALS : Map.of(), hidden, consumer);
    } catch (ReaderException e) {
      throw new InvalidDocumentException(
          hidden
              ? "not valid YAML: a character that is not allowed" + position(text, e.getPosition())
              : String.format(
                  "not valid YAML: character U+%04X is not allowed%s",
                  e.getCodePoint(), position(text, e.getPosition())));
    } catch (YamlEngineException e) {
      throw new InvalidDocumentException(describe(e, hidden));
    }
  }

  private static String position(String text, int codePointIndex) {
    int line = 1;
    int column = 1;
    int index = 0;
    for (int i = 0; i < text.length() && index < codePointIndex; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        continue;
      }
      index++;
      if (c == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return " at line " + line + ", column " + column;
  }

  /**
   * Reads one JSON document.
   *
   * @param text the input
   * @param limits the bounds
   * @return the tree
   * @throws InvalidDocumentException when the input breaks a limit or is not valid JSON
   */
  public static @Nullable Object readJson(String text, InputLimits limits) {
    ObjectMapper mapper = jsonMapper(limits);
    JsonParser parser = null;
    try {
      parser = mapper.createParser(text);
      return checked(mapper.readValue(parser, Object.class), "", 0);
    } catch (StreamConstraintsException e) {
      throw new InvalidDocumentException(
          "nesting is deeper than "
              + limits.maxDepth()
              + " levels (the limit)"
              + at(parser == null ? e.getLocation() : parser.currentLocation()));
    } catch (JacksonException e) {
      throw new InvalidDocumentException(describe(e));
    } catch (IOException e) {
      throw new InvalidDocumentException(
          "cannot read JSON: " + Escapes.escape(String.valueOf(e.getMessage())));
    }
  }

  /**
   * What Jackson found wrong with a JSON text, for a person: {@code not valid JSON at line 2,
   * column 1: Unexpected end-of-input within/between Object entries}, without the source excerpt,
   * Java types and feature names Jackson's own message carries; escaped.
   *
   * @param e what Jackson threw reading the text
   * @return the description
   */
  public static String describe(JacksonException e) {
    return "not valid JSON" + at(e.getLocation()) + ": " + jsonProblem(e);
  }

  /** Jackson's message without the Java types and feature names it names. */
  private static String jsonProblem(JacksonException e) {
    String original = String.valueOf(e.getOriginalMessage());
    if (original.startsWith("Trailing token")) {
      return "more content after the end of the document";
    }
    return Escapes.escape(
        original
            .replaceAll(" \\(bound as `[^`]*`\\)", "")
            .replaceAll(":? ?not allowed as per `[^`]*`", "")
            .replaceAll("`[a-z][\\w.$]*\\.([A-Z]\\w*)`", "$1"));
  }

  private static void checkSize(long length, InputLimits limits) {
    if (length > limits.maxBytes()) {
      throw new InvalidDocumentException(
          "document is "
              + length
              + " bytes; the limit is "
              + limits.maxBytes()
              + " bytes ("
              + InputLimits.human(limits.maxBytes())
              + ")");
    }
  }

  private static ObjectMapper jsonMapper(InputLimits limits) {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(limits.maxDepth())
                    .maxDocumentLength(limits.maxBytes())
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    return JsonMappers.builder(factory)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();
  }

  @SuppressWarnings("unchecked")
  private static @Nullable Object checked(@Nullable Object node, String path, int depth) {
    if (node == null
        || node instanceof String
        || node instanceof Boolean
        || node instanceof Integer
        || node instanceof Long
        || node instanceof BigInteger
        || node instanceof BigDecimal
        || node instanceof Double) {
      return node;
    }
    String where = path.isEmpty() ? "the document" : path;
    if (node instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new InvalidDocumentException(
              where
                  + ": mapping keys must be strings; quote this one: "
                  + Escapes.quote(e.getKey()));
        }
        checked(e.getValue(), path.isEmpty() ? key : path + "." + key, depth + 1);
      }
      return map;
    }
    if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        checked(list.get(i), path + "[" + i + "]", depth + 1);
      }
      return list;
    }
    throw new InvalidDocumentException(
        where
            + ": only mappings, lists, strings, numbers, booleans and null are accepted, not a "
            + node.getClass().getSimpleName()
            + " (from an explicit YAML tag)");
  }

  private static String at(@Nullable JsonLocation location) {
    return location == null || location.getLineNr() < 0
        ? ""
        : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String describe(YamlEngineException e, boolean hidden) {
    if (e instanceof MarkedYamlEngineException marked) {
      String at = YamlStream.at(marked.getProblemMark().or(marked::getContextMark));
      if (hidden) {
        String problem = withoutText(String.valueOf(marked.getProblem()));
        return "not valid YAML" + at + (problem == null ? "" : ": " + problem);
      }
      return "not valid YAML" + at + ": " + Escapes.escape(marked.getProblem());
    }
    if (e.getCause() != null) {
      return "not valid YAML: a value does not fit its explicit tag";
    }
    return hidden
        ? "not valid YAML"
        : "not valid YAML: " + Escapes.escape(String.valueOf(e.getMessage()));
  }

  /**
   * A problem of snakeyaml-engine's or of a schema's as far as it quotes none of the text: its
   * words up to {@code , but found} (after which the scanner quotes what it found), when they are
   * one of {@link #PROBLEMS_WITHOUT_TEXT} or one of those followed by a colon and a value; {@code
   * null} for any other problem (an unknown escape, an undefined tag handle: they quote the text).
   */
  private static @Nullable String withoutText(String problem) {
    int but = problem.indexOf(", but ");
    String words = but < 0 ? problem : problem.substring(0, but);
    for (String known : PROBLEMS_WITHOUT_TEXT) {
      if (words.equals(known) || words.startsWith(known + ":")) {
        return known;
      }
    }
    return null;
  }

  /** The problems of snakeyaml-engine and of {@link ManifestSchema} whose words are all rule. */
  private static final List<String> PROBLEMS_WITHOUT_TEXT =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of(
                  "could not find expected ':'",
                  "mapping values are not allowed here",
                  "mapping keys are not allowed here",
                  "sequence entries are not allowed here",
                  "found unexpected end of stream",
                  "found unexpected document separator",
                  "expected <block end>",
                  "expected '<document start>'",
                  "expected the node content",
                  "expected ',' or ']'",
                  "expected ',' or '}'",
                  "expected alphabetic or numeric character",
                  "expected a comment or a line break",
                  "expected ' '",
                  "DEL character (0x7F) is not allowed in plain scalars",
                  "DEL character (0x7F) is not allowed in block scalars",
                  "DEL character (0x7F) is not allowed in comments"),
              ManifestSchema.PROBLEMS.stream())
          .toList();
}
