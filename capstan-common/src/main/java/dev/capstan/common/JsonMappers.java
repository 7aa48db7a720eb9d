package dev.capstan.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The one Jackson configuration of Capstan. Every module builds its mappers here: {@link #trees()}
 * for JSON trees and plain values, {@link #pretty()} for indented output meant for people and
 * scripts, and {@link #builder()} as the base of a module's typed mapper (which adds its own
 * modules and strictness on top). Numbers read into trees stay exact: a decimal is a {@code
 * BigDecimal} that keeps its trailing zeros, never a {@code double}.
 */
public final class JsonMappers {
  private static final ObjectMapper TREES = builder().build();
  private static final ObjectWriter PRETTY = TREES.writer(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper CANONICAL = canonicalBuilder().build();

  private JsonMappers() {}

  /**
   * Returns the shared mapper for JSON trees and plain values (maps, lists, strings, numbers).
   * Thread-safe; never reconfigure it.
   *
   * @return the shared mapper
   */
  public static ObjectMapper trees() {
    return TREES;
  }

  /**
   * Returns {@code factory}, or a copy of it whose parsers read no more than {@code maxNodes} nodes
   * (objects, arrays, names and values) and then fail with Jackson's {@code
   * StreamConstraintsException}: a parser counts tokens, and a node takes at most two (a container
   * ends with one more). For text whose tree may take far more heap than its bytes (a record, the
   * values a chart merges), so that no more of it is built than its reader may hold.
   *
   * @param factory the factory to bound, its other constraints kept
   * @param maxNodes the most nodes; {@code Long.MAX_VALUE / 2} or more is no bound
   * @return the factory, bounded
   */
  public static JsonFactory boundedTo(JsonFactory factory, long maxNodes) {
    if (maxNodes >= Long.MAX_VALUE / 2) {
      return factory;
    }
    return factory
        .copy()
        .setStreamReadConstraints(
            factory.streamReadConstraints().rebuild().maxTokenCount(maxNodes * 2).build());
  }

  /**
   * Returns the shared writer of indented JSON (two spaces, one field per line).
   *
   * @return the writer
   */
  public static ObjectWriter pretty() {
    return PRETTY;
  }

  /**
   * Returns the canonical JSON of a tree (maps, lists, strings, numbers, booleans): map keys
   * sorted, no null map values, no insignificant whitespace, decimals as written. Equal trees give
   * equal bytes; content hashes are taken over them.
   *
   * @param tree the tree
   * @return its canonical UTF-8 bytes
   * @throws IllegalArgumentException when the tree holds a value Jackson cannot write
   */
  public static byte[] canonical(Object tree) {
    try {
      return CANONICAL.writeValueAsBytes(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "cannot write canonical JSON of a " + tree.getClass().getSimpleName(), e);
    }
  }

  /**
   * Returns a builder with the base configuration made canonical: bean properties and map keys
   * sorted, null fields and null map values left out. The base of every mapper whose output is
   * hashed or compared byte for byte.
   *
   * @return a new builder
   */
  public static JsonMapper.Builder canonicalBuilder() {
    return builder()
        .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .defaultPropertyInclusion(
            JsonInclude.Value.construct(
                JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL));
  }

  /**
   * Returns a builder with the base configuration: exact decimals ({@code BigDecimal}, trailing
   * zeros kept) and everything else at Jackson's defaults.
   *
   * @return a new builder
   */
  public static JsonMapper.Builder builder() {
    return configure(JsonMapper.builder());
  }

  /**
   * Returns a builder with the base configuration over a factory of the caller's (for example one
   * with read limits).
   *
   * @param factory the factory to parse and generate with
   * @return a new builder
   */
  public static JsonMapper.Builder builder(JsonFactory factory) {
    return configure(JsonMapper.builder(factory));
  }

  private static JsonMapper.Builder configure(JsonMapper.Builder builder) {
    return builder
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);
  }
}
