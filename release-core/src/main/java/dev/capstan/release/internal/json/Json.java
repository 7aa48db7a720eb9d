package dev.capstan.release.internal.json;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Jackson mapper of the release model, for records, plans and the in-memory state: the
 * canonical configuration of {@link JsonMappers#canonicalBuilder()} (sorted keys, no nulls, exact
 * decimals) with the model's own types: ISO-8601 times, secrets as base64, specs by kind. Not API.
 */
public final class Json {
  private static final ObjectMapper MAPPER = build();

  private Json() {}

  /** The shared mapper (thread-safe; do not reconfigure). */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Canonical JSON bytes of {@code value}: sorted keys, no insignificant whitespace, no nulls. */
  public static byte[] canonical(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
    }
  }

  private static ObjectMapper build() {
    SimpleModule module = new SimpleModule("capstan");
    module.addSerializer(SecretValue.class, new SecretValueSerializer());
    module.addDeserializer(SecretValue.class, new SecretValueDeserializer());
    module.addSerializer(Instant.class, new ToStringSerializer<>(Instant.class));
    module.addDeserializer(Instant.class, new ParseDeserializer<>(Instant::parse));
    module.addSerializer(Duration.class, new ToStringSerializer<>(Duration.class));
    module.addDeserializer(Duration.class, new ParseDeserializer<>(Duration::parse));
    module.addSerializer(Kind.class, new ToStringSerializer<>(Kind.class));
    module.addDeserializer(Kind.class, new ParseDeserializer<>(key -> Kind.parseKey(key, true)));
    module.addSerializer(ResourceRef.class, new ResourceRefSerializer());
    module.addDeserializer(ResourceRef.class, new ResourceRefDeserializer());
    module.setMixInAnnotation(ResourceSpec.class, ResourceSpecMixin.class);
    module.addSerializer(Payloads.class, new PayloadsSerializer());
    module.addDeserializer(Payloads.class, new PayloadsDeserializer());
    module.addSerializer(SecretHashKey.class, new SecretHashKeySerializer());
    module.addDeserializer(SecretHashKey.class, new SecretHashKeyDeserializer());
    return JsonMappers.canonicalBuilder()
        .addModule(module)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build();
  }

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = ServiceSpec.class, name = "service"),
    @JsonSubTypes.Type(value = SecretSpec.class, name = "secret"),
    @JsonSubTypes.Type(value = ConfigMapSpec.class, name = "configmap"),
    @JsonSubTypes.Type(value = VolumeSpec.class, name = "volume")
  })
  private interface ResourceSpecMixin {}

  /** A manifest item: {@code {"kind": "manifest", "object": {...}}}; typed specs as before. */
  private static final class PayloadsSerializer extends JsonSerializer<Payloads> {
    @Override
    public void serialize(Payloads value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeStartArray();
      for (ResourceSpec item : value.specs()) {
        if (item instanceof Manifest m) {
          gen.writeStartObject();
          gen.writeStringField("kind", "manifest");
          gen.writeFieldName("object");
          provider.defaultSerializeValue(m.content(), gen);
          gen.writeEndObject();
        } else {
          provider
              .findTypedValueSerializer(item.getClass(), true, null)
              .serialize(item, gen, provider);
        }
      }
      gen.writeEndArray();
    }
  }

  private static final class PayloadsDeserializer extends JsonDeserializer<Payloads> {
    @Override
    public Payloads deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonNode array = ctxt.readTree(p);
      List<ResourceSpec> specs = new ArrayList<>();
      for (JsonNode item : array) {
        if ("manifest".equals(item.path("kind").asText())) {
          @SuppressWarnings("unchecked")
          Map<String, Object> object = ctxt.readTreeAsValue(item.get("object"), Map.class);
          try {
            specs.add(Manifest.of(object));
          } catch (IllegalArgumentException e) {
            throw ctxt.weirdStringException("manifest", Manifest.class, e.getMessage());
          }
        } else {
          specs.add(ctxt.readTreeAsValue(item, ResourceSpec.class));
        }
      }
      return Payloads.of(specs);
    }
  }

  /**
   * {@code {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"}}.
   */
  private static final class ResourceRefSerializer extends JsonSerializer<ResourceRef> {
    @Override
    public void serialize(ResourceRef value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeStartObject();
      gen.writeStringField("apiVersion", value.kind().apiVersion());
      gen.writeStringField("kind", value.kind().kind());
      gen.writeStringField("name", value.name());
      gen.writeStringField("namespace", value.namespace());
      gen.writeEndObject();
    }
  }

  private static final class ResourceRefDeserializer extends JsonDeserializer<ResourceRef> {
    @Override
    public ResourceRef deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonNode node = ctxt.readTree(p);
      String namespace = node.path("namespace").asText("");
      try {
        return ResourceRef.of(
            Kind.of(
                node.path("apiVersion").asText(), node.path("kind").asText(), !namespace.isEmpty()),
            namespace,
            node.path("name").asText());
      } catch (IllegalArgumentException e) {
        throw ctxt.weirdStringException(node.toString(), ResourceRef.class, e.getMessage());
      }
    }
  }

  private static final class SecretValueSerializer extends JsonSerializer<SecretValue> {
    @Override
    public void serialize(SecretValue value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(value.base64());
    }
  }

  /** The key in base64: only records hold it (this mapper is not used for output). */
  private static final class SecretHashKeySerializer extends JsonSerializer<SecretHashKey> {
    @Override
    public void serialize(SecretHashKey value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(value.toBase64());
    }
  }

  /** Reads the key; a malformed one is refused without echoing it. */
  private static final class SecretHashKeyDeserializer extends JsonDeserializer<SecretHashKey> {
    @Override
    public SecretHashKey deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      try {
        return SecretHashKey.ofBase64(p.getValueAsString(""));
      } catch (IllegalArgumentException e) {
        throw ctxt.weirdStringException("(hidden)", SecretHashKey.class, e.getMessage());
      }
    }
  }

  private static final class SecretValueDeserializer extends JsonDeserializer<SecretValue> {
    @Override
    public SecretValue deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return SecretValue.ofBase64(p.getValueAsString());
    }
  }

  private static final class ToStringSerializer<T> extends JsonSerializer<T> {
    private final Class<T> type;

    ToStringSerializer(Class<T> type) {
      this.type = type;
    }

    @Override
    public Class<T> handledType() {
      return type;
    }

    @Override
    public void serialize(T value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(value.toString());
    }
  }

  private interface Parser<T> {
    T parse(String text);
  }

  private static final class ParseDeserializer<T> extends JsonDeserializer<T> {
    private final Parser<T> parser;

    ParseDeserializer(Parser<T> parser) {
      this.parser = parser;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String text = p.getValueAsString();
      try {
        return parser.parse(text);
      } catch (RuntimeException e) {
        throw ctxt.weirdStringException(text, Object.class, e.getMessage());
      }
    }
  }
}
