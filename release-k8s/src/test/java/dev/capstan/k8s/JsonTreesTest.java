package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import com.google.gson.stream.JsonReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class JsonTreesTest {
  private static @Nullable Object read(String json) throws IOException {
    JsonReader reader = new JsonReader(new StringReader(json));
    reader.setNestingLimit(Integer.MAX_VALUE);
    return JsonTrees.readJava(reader);
  }

  @Test
  void aValueReadStraightIntoJavaIsWhatTheTreeGsonParsesConvertsTo() throws IOException {
    String json =
        """
        {"s": "caf\\u00e9 \\"q\\" \\\\ \\ud83d\\ude00", "n": null, "t": true, "f": false,
         "i": -12, "long": 123456789012345678, "big": 12345678901234567890123,
         "d": 1.50, "e": 1e3, "negZero": -0.0,
         "a": [1, null, [], {}, [[{"x": [2]}]]], "o": {"k": {"l": "m"}}, "dup": 1, "dup": 2}
        """;

    @Nullable Object read = read(json);

    assertThat(read).isEqualTo(JsonTrees.toJava(JsonParser.parseString(json).getAsJsonObject()));
    Map<?, ?> map = (Map<?, ?>) java.util.Objects.requireNonNull(read);
    assertThat(map.keySet().stream().map(String::valueOf).toList())
        .containsExactly("s", "t", "f", "i", "long", "big", "d", "e", "negZero", "a", "o", "dup");
    assertThat(map.get("i")).isEqualTo(-12L);
    assertThat(map.get("long")).isEqualTo(123456789012345678L);
    assertThat(map.get("big")).isEqualTo(new BigInteger("12345678901234567890123"));
    assertThat(map.get("d")).isEqualTo(new BigDecimal("1.50"));
    assertThat(map.get("a"))
        .isEqualTo(List.of(1L, List.of(), Map.of(), List.of(List.of(Map.of("x", List.of(2L))))));
    assertThat(map.get("dup")).isEqualTo(2L);
  }

  @Test
  void aLaterNullOfANameLeavesTheNameOutAsTheTreeDoes() throws IOException {
    String json = "{\"a\": 1, \"a\": null, \"b\": 2}";

    assertThat(read(json))
        .isEqualTo(JsonTrees.toJava(JsonParser.parseString(json).getAsJsonObject()))
        .isEqualTo(Map.of("b", 2L));
  }

  @Test
  void aScalarOrANullAloneIsReadAsItself() throws IOException {
    assertThat(read("\"x\"")).isEqualTo("x");
    assertThat(read("7")).isEqualTo(7L);
    assertThat(read("null")).isNull();
  }

  @Test
  void anyNestingIsReadWithoutOverflowingTheStack() throws IOException {
    int depth = 100_000;
    String json = "[".repeat(depth) + "]".repeat(depth);

    @Nullable Object read = read(json);

    int levels = 0;
    for (Object v = read; v instanceof List<?> list; v = list.isEmpty() ? null : list.get(0)) {
      levels++;
    }
    assertThat(levels).isEqualTo(depth);
  }

  @Test
  void aValueThatEndsEarlyIsRefused() {
    assertThatThrownBy(() -> read("{\"a\": [1, 2")).isInstanceOf(EOFException.class);
  }
}
