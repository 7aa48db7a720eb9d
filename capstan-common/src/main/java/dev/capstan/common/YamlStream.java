package dev.capstan.common;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.ConstructNode;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.resolver.ScalarResolver;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.Schema;

/**
 * Builds trees from a YAML event stream in one pass that does not recurse, checking every bound of
 * {@link InputLimits} as it goes, and hands each document on as soon as it is complete: so a stream
 * of many documents is read in time proportional to its size and in memory for its text and the
 * trees the caller keeps. Scalars are typed by the schema's resolver and constructors; only the
 * JSON schema's explicit tags are accepted; mapping keys must be strings and unique; an alias
 * refers to a complete node before it. Keys and short strings are shared between equal occurrences
 * (a CRD's schema repeats {@code type}, {@code description}, {@code string} thousands of times).
 *
 * <p>A hidden stream (a Secret's text) is refused in words that quote nothing of it: no alias name,
 * key, tag or scalar, only the rule, the shape and the line and column.
 */
final class YamlStream {
  /** The explicit tags accepted: the YAML 1.2 JSON schema's. */
  static final Set<String> TAGS =
      Set.of(
          Tag.STR.getValue(),
          Tag.INT.getValue(),
          Tag.FLOAT.getValue(),
          Tag.BOOL.getValue(),
          Tag.NULL.getValue(),
          Tag.MAP.getValue(),
          Tag.SEQ.getValue());

  /** Strings up to this length are shared between equal occurrences. */
  private static final int SHARED_LENGTH = 64;

  /**
   * The reader's window, in code points: the whole input up to 1 Mi (with snakeyaml-engine's
   * default of 1,024 a long scalar is copied again for every chunk, and a 2 MB value took seconds),
   * and no more (a window of the whole of a 30 MiB file would take 120 MiB).
   */
  private static final int MAX_WINDOW = 1 << 20;

  private final InputLimits limits;
  private final ScalarResolver resolver;
  private final Map<Tag, ConstructNode> constructors;
  private final StrictDocuments.DocumentConsumer consumer;
  private final boolean hidden;
  private final Map<String, String> shared = new HashMap<>();
  private final Deque<Frame> open = new ArrayDeque<>();
  private final Map<String, Anchored> anchors = new HashMap<>();
  private int documents;
  private int aliases;
  private long expanded;
  private long nodes;
  private @Nullable Object root;

  private YamlStream(
      InputLimits limits,
      Schema schema,
      Map<Tag, ConstructNode> overrides,
      boolean hidden,
      StrictDocuments.DocumentConsumer consumer) {
    this.limits = limits;
    this.resolver = schema.getScalarResolver();
    this.constructors = new HashMap<>(schema.getSchemaTagConstructors());
    this.constructors.putAll(overrides);
    this.consumer = consumer;
    this.hidden = hidden;
  }

  /** A node that is complete: its value and its size for the expansion count. */
  private record Anchored(@Nullable Object value, long size) {}

  /** An open mapping or sequence, where it sits in its parent, and its size so far. */
  private static final class Frame {
    final @Nullable Map<String, @Nullable Object> map;
    final @Nullable List<@Nullable Object> list;
    final @Nullable String anchor;
    final Object segment;
    long size;
    @Nullable String key;
    boolean hasKey;

    Frame(
        @Nullable Map<String, @Nullable Object> map,
        @Nullable List<@Nullable Object> list,
        @Nullable String anchor,
        Object segment) {
      this.map = map;
      this.list = list;
      this.anchor = anchor;
      this.segment = segment;
    }

    Object value() {
      return map != null ? map : java.util.Objects.requireNonNull(list);
    }
  }

  /**
   * Reads every document of {@code text}, handing each to {@code consumer} once complete.
   *
   * @param hidden whether the text is a Secret's: its problems then quote nothing of it
   * @throws InvalidDocumentException at the first problem, after the documents before it were
   *     handed on
   */
  static void read(
      String text,
      InputLimits limits,
      Schema schema,
      Map<Tag, ConstructNode> overrides,
      boolean hidden,
      StrictDocuments.DocumentConsumer consumer) {
    LoadSettings settings =
        LoadSettings.builder()
            .setCodePointLimit(limits.maxBytes())
            .setUseMarks(true)
            .setBufferSize(Math.max(1024, Math.min(text.length() + 1, MAX_WINDOW)))
            .build();
    YamlStream stream = new YamlStream(limits, schema, overrides, hidden, consumer);
    // the parser of snakeyaml-engine's exported packages (its api.lowlevel is not exported, so a
    // host on the module path could not load it)
    ParserImpl parser = new ParserImpl(settings, new StreamReader(settings, text));
    while (parser.hasNext()) {
      if (!stream.on(parser.next())) {
        return;
      }
    }
  }

  /** Handles one event; {@code false} once the consumer wants no more documents. */
  private boolean on(Event event) {
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
        root = null;
      }
      case DocumentEnd -> {
        Object done = root;
        root = null;
        return consumer.accept(documents - 1, done);
      }
      case MappingStart, SequenceStart -> start((CollectionStartEvent) event);
      case MappingEnd, SequenceEnd -> {
        Frame frame = open.pop();
        long size = frame.size + 1;
        if (frame.anchor != null) {
          anchors.put(frame.anchor, new Anchored(frame.value(), size));
        }
        add(frame.value(), size, event.getStartMark());
      }
      case Scalar -> scalar((ScalarEvent) event);
      case Alias -> alias((AliasEvent) event);
      default -> {
        // stream start and end carry nothing
      }
    }
    return true;
  }

  private void start(CollectionStartEvent event) {
    if (open.size() >= limits.maxDepth()) {
      throw new InvalidDocumentException(
          "nesting is deeper than "
              + limits.maxDepth()
              + " levels (the limit)"
              + at(event.getStartMark()));
    }
    boolean mapping = event.getEventId() == Event.ID.MappingStart;
    Optional<String> tag = event.getTag();
    checkTag(tag, event);
    if (tag.isPresent() && !tag.get().equals((mapping ? Tag.MAP : Tag.SEQ).getValue())) {
      throw new InvalidDocumentException("not valid YAML: a value does not fit its explicit tag");
    }
    String anchor = event.getAnchor().map(a -> a.getValue()).orElse(null);
    if (anchor != null) {
      anchors.remove(anchor);
    }
    open.push(
        mapping
            ? new Frame(new LinkedHashMap<>(), null, anchor, segment())
            : new Frame(null, new ArrayList<>(), anchor, segment()));
  }

  /** Where the next value goes in the open collection: its key, or its index. */
  private Object segment() {
    Frame parent = open.peek();
    if (parent == null) {
      return "";
    }
    if (parent.list != null) {
      return parent.list.size();
    }
    return parent.hasKey ? String.valueOf(parent.key) : "";
  }

  private void scalar(ScalarEvent event) {
    Optional<String> explicit = event.getTag();
    checkTag(explicit, event);
    String value = event.getValue();
    Tag tag =
        explicit.isPresent()
            ? new Tag(explicit.get())
            : resolver.resolve(value, event.getImplicit().canOmitTagInPlainScalar());
    ConstructNode constructor = tag.equals(Tag.STR) ? null : constructors.get(tag);
    Object constructed;
    if (constructor == null) {
      if (explicit.isPresent() && !tag.equals(Tag.STR)) {
        throw new InvalidDocumentException("not valid YAML: a value does not fit its explicit tag");
      }
      // a string, or a tag the resolver gives text it does not type (${VAR}: no substitution)
      constructed = share(value);
    } else {
      ScalarNode node =
          new ScalarNode(
              tag,
              explicit.isEmpty(),
              value,
              event.getScalarStyle(),
              event.getStartMark(),
              event.getEndMark());
      try {
        constructed = constructor.construct(node);
      } catch (org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new InvalidDocumentException("not valid YAML: a value does not fit its explicit tag");
      }
    }
    long size = value.length() + 1L;
    event.getAnchor().ifPresent(a -> anchors.put(a.getValue(), new Anchored(constructed, size)));
    add(constructed, size, event.getStartMark());
  }

  private void alias(AliasEvent event) {
    String name = event.getAlias().getValue();
    aliases++;
    if (aliases > limits.maxAliases()) {
      throw new InvalidDocumentException(
          "holds more than "
              + limits.maxAliases()
              + " aliases (the limit)"
              + at(event.getStartMark()));
    }
    Anchored target = anchors.get(name);
    if (target == null) {
      throw new InvalidDocumentException(
          (hidden ? "an alias" : "alias *" + Escapes.escape(name))
              + " refers to no complete node before it (an undefined anchor or one that"
              + " contains the alias)"
              + at(event.getStartMark()));
    }
    expanded += target.size();
    if (expanded > limits.maxBytes()) {
      throw new InvalidDocumentException(
          "aliases expand to more than "
              + InputLimits.human(limits.maxBytes())
              + " (the limit)"
              + at(event.getStartMark()));
    }
    add(target.value(), target.size(), event.getStartMark());
  }

  /** Puts a complete node where it belongs: the document, a sequence, a key or a value. */
  private void add(@Nullable Object value, long size, Optional<Mark> mark) {
    nodes++;
    if (nodes > limits.maxNodes()) {
      throw new TooManyNodesException(limits.maxNodes(), at(mark));
    }
    Frame parent = open.peek();
    if (parent == null) {
      root = value;
      return;
    }
    parent.size += size;
    if (parent.list != null) {
      parent.list.add(value);
      return;
    }
    Map<String, @Nullable Object> map = java.util.Objects.requireNonNull(parent.map);
    if (!parent.hasKey) {
      if (!(value instanceof String key)) {
        throw new InvalidDocumentException(
            hidden
                ? "mapping keys must be strings; quote this one"
                    + at(mark)
                    + ": "
                    + Trees.shape(value)
                : path()
                    + ": mapping keys must be strings; quote this one: "
                    + (value instanceof Map<?, ?> || value instanceof List<?>
                        ? Trees.shape(value)
                        : Escapes.quote(value)));
      }
      if (map.containsKey(key)) {
        throw new InvalidDocumentException(
            "not valid YAML"
                + at(mark)
                + (hidden
                    ? ": found a duplicate key"
                    : ": found duplicate key " + Escapes.escape(key)));
      }
      parent.key = key;
      parent.hasKey = true;
      return;
    }
    map.put(java.util.Objects.requireNonNull(parent.key), value);
    parent.key = null;
    parent.hasKey = false;
  }

  /** The path of the innermost open collection, as {@code a.b[2].c}, or {@code the document}. */
  private String path() {
    StringBuilder sb = new StringBuilder();
    List<Frame> frames = new ArrayList<>(open);
    java.util.Collections.reverse(frames);
    for (int i = 1; i < frames.size(); i++) {
      Object segment = frames.get(i).segment;
      if (segment instanceof Integer index) {
        sb.append('[').append(index).append(']');
      } else {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(Escapes.escape(String.valueOf(segment)));
      }
    }
    return sb.length() == 0 ? "the document" : sb.toString();
  }

  private String share(String value) {
    if (value.length() > SHARED_LENGTH) {
      return value;
    }
    String known = shared.putIfAbsent(value, value);
    return known == null ? value : known;
  }

  private void checkTag(Optional<String> tag, Event event) {
    if (tag.isPresent() && !TAGS.contains(tag.get())) {
      throw new InvalidDocumentException(
          (hidden ? "a tag" : "tag " + Escapes.quote(tag.get().replace(Tag.PREFIX, "!!")))
              + " is not accepted; only !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are"
              + at(event.getStartMark()));
    }
  }

  static String at(Optional<Mark> mark) {
    return mark.map(m -> " at line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1))
        .orElse("");
  }
}
