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
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.ConstructNode;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads YAML and JSON input strictly and within {@link InputLimits}, into plain trees: maps with
 * string keys (in document order), lists, strings, booleans, integers ({@link Integer}, {@link
 * Long} or {@link BigInteger}), decimals ({@link BigDecimal}, which keeps the text: {@code 1.10}
 * stays {@code 1.10}) and nulls.
 *
 * <p>Before a tree is built, the input is checked in one pass that does not recurse: it must be
 * UTF-8 (an invalid byte is reported with its line and column), no deeper than the nesting limit,
 * with no more aliases than allowed, no alias expanding past the size limit, no alias to a node
 * that contains it, and no more documents than allowed. So a 10,000-level document or a billion
 * laughs is refused in time and memory proportional to its size, and never with a {@link
 * StackOverflowError}. Mapping keys must be strings, duplicate keys are refused, and only the YAML
 * 1.2 JSON schema's types are accepted ({@code yes} and {@code 0x1F} are strings).
 */
public final class StrictDocuments {
  private static final ConstructNode DEFAULT_FLOAT =
      java.util.Objects.requireNonNull(
          LoadSettings.builder().build().getSchema().getSchemaTagConstructors().get(Tag.FLOAT));

  /** The explicit tags accepted: the YAML 1.2 JSON schema's. */
  private static final java.util.Set<String> TAGS =
      java.util.Set.of(
          Tag.STR.getValue(),
          Tag.INT.getValue(),
          Tag.FLOAT.getValue(),
          Tag.BOOL.getValue(),
          Tag.NULL.getValue(),
          Tag.MAP.getValue(),
          Tag.SEQ.getValue());

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
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
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
    out.flip();
    String text = out.toString();
    return text.startsWith("\ufeff") ? text.substring(1) : text;
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
    if ((long) text.length() > limits.maxBytes()) {
      checkSize(text.getBytes(StandardCharsets.UTF_8).length, limits);
    }
    LoadSettings settings = settings(limits, text.length());
    try {
      precheck(text, settings, limits);
      List<@Nullable Object> out = new ArrayList<>();
      for (Object doc : new Load(settings).loadAllFromString(text)) {
        out.add(checked(doc, "", 0));
      }
      return out;
    } catch (ReaderException e) {
      throw new InvalidDocumentException(
          String.format(
              "not valid YAML: character U+%04X is not allowed%s",
              e.getCodePoint(), position(text, e.getPosition())));
    } catch (YamlEngineException e) {
      throw new InvalidDocumentException(describe(e));
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
      throw new InvalidDocumentException(
          "not valid JSON" + at(e.getLocation()) + ": " + jsonProblem(e));
    } catch (IOException e) {
      throw new InvalidDocumentException(
          "cannot read JSON: " + Escapes.escape(String.valueOf(e.getMessage())));
    }
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

  /**
   * The reader's settings. The buffer holds the whole input: with snakeyaml-engine's default of
   * 1,024 characters a long scalar is copied again for every chunk, and a 2 MB value took seconds.
   */
  private static LoadSettings settings(InputLimits limits, int length) {
    ConstructNode decimal =
        node -> {
          String value = ((ScalarNode) node).getValue();
          try {
            return new BigDecimal(value);
          } catch (NumberFormatException e) {
            return DEFAULT_FLOAT.construct(node);
          }
        };
    return LoadSettings.builder()
        .setAllowDuplicateKeys(false)
        .setAllowRecursiveKeys(false)
        .setMaxAliasesForCollections(Math.max(1, limits.maxAliases()))
        .setCodePointLimit(limits.maxBytes())
        .setUseMarks(true)
        .setBufferSize(Math.max(1024, length + 1))
        .setTagConstructors(Map.of(Tag.FLOAT, decimal))
        .build();
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
    return JsonMapper.builder(factory)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();
  }

  /** One open mapping or sequence of the pre-check, with its anchor and size so far. */
  private static final class Frame {
    final @Nullable String anchor;
    long size;

    Frame(@Nullable String anchor) {
      this.anchor = anchor;
    }
  }

  private static void precheck(String text, LoadSettings settings, InputLimits limits) {
    Deque<Frame> open = new ArrayDeque<>();
    Map<String, Long> anchors = new HashMap<>();
    int documents = 0;
    int aliases = 0;
    long expanded = 0;
    for (Event event : new Parse(settings).parseString(text)) {
      long size = 0;
      switch (event.getEventId()) {
        case DocumentStart -> {
          documents++;
          if (documents > limits.maxDocuments()) {
            throw new InvalidDocumentException(
                "holds more than "
                    + limits.maxDocuments()
                    + (limits.maxDocuments() == 1 ? " document" : " documents")
                    + " (the limit)"
                    + at(event.getStartMark()));
          }
          anchors.clear();
          continue;
        }
        case MappingStart, SequenceStart -> {
          if (open.size() >= limits.maxDepth()) {
            throw new InvalidDocumentException(
                "nesting is deeper than "
                    + limits.maxDepth()
                    + " levels (the limit)"
                    + at(event.getStartMark()));
          }
          CollectionStartEvent start = (CollectionStartEvent) event;
          checkTag(start.getTag(), event);
          Optional<org.snakeyaml.engine.v2.common.Anchor> anchor = start.getAnchor();
          anchor.ifPresent(a -> anchors.remove(a.getValue()));
          open.push(new Frame(anchor.map(a -> a.getValue()).orElse(null)));
          continue;
        }
        case MappingEnd, SequenceEnd -> {
          Frame frame = open.pop();
          size = frame.size + 1;
          if (frame.anchor != null) {
            anchors.put(frame.anchor, size);
          }
        }
        case Scalar -> {
          ScalarEvent scalar = (ScalarEvent) event;
          checkTag(scalar.getTag(), event);
          size = scalar.getValue().length() + 1L;
          scalar
              .getAnchor()
              .ifPresent(a -> anchors.put(a.getValue(), scalar.getValue().length() + 1L));
        }
        case Alias -> {
          AliasEvent alias = (AliasEvent) event;
          String name = alias.getAlias().getValue();
          aliases++;
          if (aliases > limits.maxAliases()) {
            throw new InvalidDocumentException(
                "holds more than "
                    + limits.maxAliases()
                    + " aliases (the limit)"
                    + at(event.getStartMark()));
          }
          Long target = anchors.get(name);
          if (target == null) {
            throw new InvalidDocumentException(
                "alias *"
                    + Escapes.escape(name)
                    + " refers to no complete node before it (an undefined anchor or one that"
                    + " contains the alias)"
                    + at(event.getStartMark()));
          }
          size = target;
          expanded += target;
          if (expanded > limits.maxBytes()) {
            throw new InvalidDocumentException(
                "aliases expand to more than "
                    + InputLimits.human(limits.maxBytes())
                    + " (the limit)"
                    + at(event.getStartMark()));
          }
        }
        default -> {
          continue;
        }
      }
      if (!open.isEmpty()) {
        open.peek().size += size;
      }
    }
  }

  private static void checkTag(Optional<String> tag, Event event) {
    if (tag.isPresent() && !TAGS.contains(tag.get())) {
      throw new InvalidDocumentException(
          "tag "
              + Escapes.quote(tag.get().replace(Tag.PREFIX, "!!"))
              + " is not accepted; only !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are"
              + at(event.getStartMark()));
    }
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

  private static String at(Optional<Mark> mark) {
    return mark.map(m -> " at line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1))
        .orElse("");
  }

  private static String at(@Nullable JsonLocation location) {
    return location == null || location.getLineNr() < 0
        ? ""
        : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String describe(YamlEngineException e) {
    if (e instanceof MarkedYamlEngineException marked) {
      return "not valid YAML"
          + at(marked.getProblemMark())
          + ": "
          + Escapes.escape(marked.getProblem());
    }
    if (e.getCause() != null) {
      return "not valid YAML: a value does not fit its explicit tag";
    }
    return "not valid YAML: " + Escapes.escape(String.valueOf(e.getMessage()));
  }
}
