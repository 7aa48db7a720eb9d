package dev.capstan.release.file;

import dev.capstan.common.Escapes;
import dev.capstan.common.StrictMap;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A secret of {@code spec.secrets}, bound from the file before it is a {@link SecretSpec}. Its
 * values ({@code stringData}, {@code data}) are read as {@link StrictMap#secretMap}s: no problem
 * shows one.
 */
record SecretDoc(
    @Nullable String name,
    @Nullable String namespace,
    @Nullable String type,
    Map<String, String> stringData,
    Map<String, String> data,
    Map<String, String> fromEnv,
    Map<String, String> labels,
    Map<String, String> annotations) {

  static SecretDoc read(StrictMap m) {
    return new SecretDoc(
        m.optionalString("name"),
        m.optionalString("namespace"),
        m.optionalString("type"),
        m.secretMap("stringData"),
        m.secretMap("data"),
        m.stringMap("fromEnv"),
        m.stringMap("labels"),
        m.stringMap("annotations"));
  }

  SecretSpec toSpec(
      String defaultNamespace,
      String at,
      Function<String, @Nullable String> env,
      List<String> problems) {
    Map<String, SecretValue> values = new LinkedHashMap<>();
    stringData.forEach((k, v) -> put(values, k, SecretValue.of(v)));
    data.forEach(
        (k, v) -> {
          byte[] decoded;
          try {
            decoded = Base64.getDecoder().decode(v);
          } catch (IllegalArgumentException e) {
            problems.add(
                at + ".data." + Escapes.escape(k) + ": value must be base64 " + Escapes.NOT_SHOWN);
            return;
          }
          put(values, k, SecretValue.ofBytes(decoded));
        });
    fromEnv.forEach(
        (k, variable) -> {
          String value = env.apply(variable);
          if (value == null) {
            problems.add(
                at
                    + ".fromEnv."
                    + Escapes.escape(k)
                    + ": environment variable "
                    + Escapes.escape(variable)
                    + " is not set");
          } else {
            put(values, k, SecretValue.of(value));
          }
        });
    return new SecretSpec(
        namespace == null ? defaultNamespace : namespace,
        DocValues.required(name, "name"),
        type == null ? "Opaque" : type,
        new TreeMap<>(values),
        new TreeMap<>(labels),
        new TreeMap<>(annotations));
  }

  private static void put(Map<String, SecretValue> values, String key, SecretValue v) {
    if (values.put(key, v) != null) {
      throw new IllegalArgumentException(
          "key "
              + Escapes.quote(key)
              + " is given more than once across stringData, data and fromEnv");
    }
  }

  /** The fields of one element. */
  static final Set<String> FIELDS =
      StrictMap.fields(
          "name", "namespace", "type", "stringData", "data", "fromEnv", "labels", "annotations");
}
