package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class JsonMappersTest {
  /** Five nodes: the object, the name a, the array, the empty object and the number. */
  private static final String FIVE = "{\"a\":[{},1]}";

  private static JsonNode read(JsonFactory factory) throws IOException {
    return JsonMappers.trees().readTree(factory.createParser(FIVE));
  }

  @Test
  void aBoundedFactoryBuildsUpToItsNodesAndFailsPastThem() throws IOException {
    JsonFactory shared = JsonMappers.trees().getFactory();
    long sharedLimit = shared.streamReadConstraints().getMaxTokenCount();

    assertThat(read(JsonMappers.boundedTo(shared, 5))).isEqualTo(read(shared));
    assertThatThrownBy(() -> read(JsonMappers.boundedTo(shared, 3)))
        .isInstanceOf(StreamConstraintsException.class);
    assertThat(JsonMappers.boundedTo(shared, Long.MAX_VALUE)).isSameAs(shared);
    assertThat(shared.streamReadConstraints().getMaxTokenCount()).isEqualTo(sharedLimit);
  }
}
