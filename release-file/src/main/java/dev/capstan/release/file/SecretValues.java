package dev.capstan.release.file;

import dev.capstan.common.Escapes;
import dev.capstan.common.SecretNames;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which of a chart's values are secret, so a record keeps them {@link ChartOrigin#MASKED}, as the
 * values of a Secret never show. A value is secret when
 *
 * <ul>
 *   <li>its key names a secret ({@link SecretNames#isSecret}: {@code password}, {@code apiKey},
 *       {@code client_secret}, but not {@code secretName} or {@code tokenEnabled}); or
 *   <li>its text is a value of a Secret the chart rendered ({@code data}, decoded, or {@code
 *       stringData}), or, from {@value #MIN_CONTAINED} characters on, is found inside one (a
 *       password within a connection string): all found in one pass over the Secrets' texts ({@link
 *       ContainedTexts}), in time that grows with the lengths of the values and the Secrets' texts,
 *       not their product.
 * </ul>
 *
 * Booleans are never secret. A masked value's path is written {@code a.b}, {@code a[0]}, {@code
 * a["k.8s"]}.
 */
final class SecretValues {
  /** The shortest value found inside a Secret's value that counts as secret. */
  static final int MIN_CONTAINED = 6;

  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_\\-]+");

  private SecretValues() {}

  /**
   * Values with every secret one replaced by {@link ChartOrigin#MASKED}, and the paths replaced.
   *
   * @param values the masked values
   * @param paths the paths of the masked ones, in the order found
   */
  record Masked(Map<String, Object> values, List<String> paths) {}

  /**
   * {@code values} with every secret value masked, judged against the Secrets among {@code
   * objects}.
   */
  static Masked mask(Map<String, Object> values, Collection<Manifest> objects) {
    return mask(values, objects, List.of());
  }

  /**
   * {@code values} with every secret value masked, judged against the Secrets among {@code objects}
   * and {@code secretTexts}: the texts of values given from a Secret.
   */
  @SuppressWarnings("unchecked")
  static Masked mask(
      Map<String, Object> values, Collection<Manifest> objects, Collection<String> secretTexts) {
    List<String> paths = new ArrayList<>();
    List<String> secrets = new ArrayList<>(secretTexts(objects));
    secrets.addAll(secretTexts);
    Set<String> secret = new HashSet<>(secrets);
    secret.remove(""); // an empty value is never secret
    List<String> sought = new ArrayList<>();
    leaves(values, sought);
    sought.removeIf(text -> text.length() < MIN_CONTAINED || secret.contains(text));
    secret.addAll(ContainedTexts.foundIn(sought, secrets));
    Map<String, Object> out = (Map<String, Object>) walk(values, "", false, secret, paths);
    return new Masked(out, paths);
  }

  /**
   * The texts of every value (but booleans) a values file's YAML gives, for {@link #mask}; none
   * when it is not valid YAML (Helm refuses it before anything is recorded).
   */
  static List<String> leafTexts(String yaml) {
    List<String> out = new ArrayList<>();
    for (Object tree : trees(yaml)) {
      leaves(tree, out);
    }
    return out;
  }

  /** The trees of a values file's YAML documents; none when it is not valid YAML. */
  private static List<@org.jspecify.annotations.Nullable Object> trees(String yaml) {
    List<@org.jspecify.annotations.Nullable Object> out = new ArrayList<>();
    try {
      for (ManifestYaml.Document d : ManifestYaml.loadAll(yaml, ReleaseFiles.LIMITS)) {
        out.add(d.tree());
      }
    } catch (IllegalArgumentException notYaml) {
      return List.of();
    }
    return out;
  }

  /**
   * The texts a failed render's message must not show ({@link #maskIn}): every value (but booleans)
   * of a values file read from a Secret, and every value given under a key that names a secret
   * ({@link SecretNames#isSecret}, at any depth of its path), in a values file, {@code --set},
   * {@code --set-string} or {@code --set-file}. An expression is split at its unescaped commas and
   * each assignment at its first unescaped {@code =}, as Helm reads them.
   */
  static List<String> givenSecretTexts(ChartValues values) {
    List<String> out = new ArrayList<>();
    for (ChartValues.File file : values.files()) {
      out.addAll(file.secret() ? leafTexts(file.content()) : secretKeyTexts(file.content()));
    }
    List<String> expressions = new ArrayList<>(values.set());
    expressions.addAll(values.setString());
    for (String expression : expressions) {
      for (String assignment : splitUnescaped(expression, ',')) {
        List<String> sides = splitUnescaped(assignment, '=');
        if (sides.size() > 1 && namesASecret(sides.get(0))) {
          out.add(assignment.substring(sides.get(0).length() + 1).replace("\\,", ","));
        }
      }
    }
    for (ChartValues.KeyFile file : values.setFile()) {
      if (namesASecret(file.key())) {
        out.add(file.content());
      }
    }
    return out;
  }

  /** Whether a key path ({@code db.auth.password}, {@code tokens[0]}) has a key naming a secret. */
  private static boolean namesASecret(String path) {
    StringBuilder key = new StringBuilder();
    for (int i = 0; i <= path.length(); i++) {
      char c = i < path.length() ? path.charAt(i) : '.';
      if (c == '.' || c == '[' || c == ']') {
        if (key.length() > 0 && SecretNames.isSecret(key.toString())) {
          return true;
        }
        key.setLength(0);
      } else {
        key.append(c);
      }
    }
    return false;
  }

  /** {@code text} split at each {@code separator} not escaped by a backslash. */
  private static List<String> splitUnescaped(String text, char separator) {
    List<String> parts = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == separator) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }

  /**
   * The texts of the values under a secret-naming key in a values file's YAML (none if not YAML).
   */
  private static List<String> secretKeyTexts(String yaml) {
    List<String> out = new ArrayList<>();
    for (Object tree : trees(yaml)) {
      underSecretKeys(tree, false, out);
    }
    return out;
  }

  private static void underSecretKeys(
      @org.jspecify.annotations.Nullable Object node, boolean secretKey, List<String> out) {
    if (secretKey) {
      leaves(node, out);
    } else if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> underSecretKeys(v, SecretNames.isSecret(String.valueOf(k)), out));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> underSecretKeys(v, false, out));
    }
  }

  /** The shortest value of a Secret {@link #maskIn} masks: shorter ones would mask line numbers. */
  static final int MIN_MASKED_IN_MESSAGE = 4;

  /**
   * {@code message} with every text of {@code secretTexts} of at least {@value
   * #MIN_MASKED_IN_MESSAGE} characters replaced by {@link ChartOrigin#MASKED}: as it is, as Go's
   * {@code %q} quotes it (Helm's messages quote values so) and as {@link Escapes#escape} shows it.
   */
  static String maskIn(String message, Collection<String> secretTexts) {
    Set<String> all = new LinkedHashSet<>();
    for (String text : secretTexts) {
      if (text.length() >= MIN_MASKED_IN_MESSAGE) {
        String quoted = goQuoted(text);
        all.addAll(List.of(text, Escapes.escape(text), quoted, Escapes.escape(quoted)));
      }
    }
    // only the forms the message holds are replaced (one pass finds them), in the order given
    Set<String> held = ContainedTexts.foundIn(all, List.of(message));
    List<String> forms = new ArrayList<>(all);
    forms.retainAll(held);
    forms.sort(Comparator.comparingInt(String::length).reversed()); // the longest form first
    String out = message;
    for (String form : forms) {
      out = out.replace(form, ChartOrigin.MASKED);
    }
    return out;
  }

  /** {@code text} as Go's {@code %q} writes it, without the quotes (ASCII escapes only). */
  private static String goQuoted(String text) {
    return text.replace("\\", "\\\\")
        .replace("\"", "\\\"")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t");
  }

  private static void leaves(@org.jspecify.annotations.Nullable Object node, List<String> out) {
    if (node instanceof Map<?, ?> map) {
      map.values().forEach(v -> leaves(v, out));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> leaves(v, out));
    } else if (node != null && !(node instanceof Boolean)) {
      String text = String.valueOf(node);
      if (!text.isEmpty()) {
        out.add(text);
      }
    }
  }

  /**
   * {@code node} with every value under a secret key, or in {@code secret} (the texts of the
   * Secrets and those found inside one), masked.
   */
  private static Object walk(
      Object node, String path, boolean secretKey, Set<String> secret, List<String> paths) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = String.valueOf(e.getKey());
        Object value = e.getValue();
        if (value != null) {
          out.put(key, walk(value, child(path, key), SecretNames.isSecret(key), secret, paths));
        }
      }
      return out;
    }
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        Object item = list.get(i);
        if (item != null) {
          out.add(walk(item, path + "[" + i + "]", secretKey, secret, paths));
        }
      }
      return out;
    }
    if (node instanceof Boolean || !(secretKey || secret.contains(String.valueOf(node)))) {
      return node;
    }
    paths.add(path);
    return ChartOrigin.MASKED;
  }

  /**
   * Every value of every Secret among {@code objects}: {@code stringData}, and {@code data}
   * decoded.
   */
  private static List<String> secretTexts(Collection<Manifest> objects) {
    List<String> out = new ArrayList<>();
    for (Manifest object : objects) {
      if (!object.kind().equals(Kind.SECRET)) {
        continue;
      }
      if (object.get("stringData") instanceof Map<?, ?> strings) {
        strings.values().forEach(v -> out.add(String.valueOf(v)));
      }
      if (object.get("data") instanceof Map<?, ?> data) {
        for (Object v : data.values()) {
          try {
            out.add(
                new String(
                    Base64.getMimeDecoder().decode(String.valueOf(v)), StandardCharsets.UTF_8));
          } catch (IllegalArgumentException notBase64) {
            out.add(String.valueOf(v)); // the API server would refuse it; compare it as it is
          }
        }
      }
    }
    return out;
  }

  private static String child(String path, String key) {
    if (PLAIN_KEY.matcher(key).matches()) {
      return path.isEmpty() ? key : path + "." + key;
    }
    return path + "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
  }
}
