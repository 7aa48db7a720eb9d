package dev.capstan.common;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.DeserializationFeature;
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
   * Returns the shared writer of indented JSON (two spaces, one field per line).
   *
   * @return the writer
   */
  public static ObjectWriter pretty() {
    return PRETTY;
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
