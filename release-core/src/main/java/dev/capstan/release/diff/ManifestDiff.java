package dev.capstan.release.diff;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.SecretNames;
import dev.capstan.release.diff.FieldChange.Op;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The field-level diff between two versions of one object: a pure function of two {@link Manifest}
 * trees.
 *
 * <p>Paths are dotted from the object's root: a map key that is a plain word ({@code
 * [A-Za-z0-9_-]+}) follows a dot, any other key is quoted in brackets ({@code
 * metadata.labels["app.kubernetes.io/name"]}). A list whose items are all mappings with a unique
 * string {@code name} on both sides (containers, env, ports, volumes, volumeMounts) is matched by
 * name, as kubectl's and kapp's merge keys do, so inserting an env var shows one added var rather
 * than every later one changed: {@code
 * spec.template.spec.containers[name=web].env[name=LOG_LEVEL]}. Any other list of the same length
 * on both sides is compared index by index ({@code spec.rules[0].host}); lists of different lengths
 * are replaced as a whole. A field on one side only is one change holding its whole value. Numbers
 * are equal when their values are ({@code 2} and {@code 2.0}).
 *
 * <p>A Secret is shown by default-deny: only the fields known to hold no value it keeps show their
 * values, {@code apiVersion}, {@code kind}, {@code type}, {@code immutable} and {@code metadata}
 * but for the annotations' values. Every other field, {@code data} and {@code stringData} as much
 * as a misspelled {@code stringdata} or one a later API adds, and every annotation (free text that
 * tools fill with a copy of the object: {@code kubectl.kubernetes.io/last-applied-configuration},
 * {@code kapp.k14s.io/original}), is a {@linkplain FieldChange#secret secret change} key by key:
 * added, removed or changed, never a value or a hash of one.
 *
 * <p>An environment variable whose name names a secret ({@link SecretNames}: {@code DB_PASSWORD},
 * {@code API_TOKEN}), an item of a list {@code env} with such a {@code name}, in any object, keeps
 * its {@code value} as a Secret's {@code data} does: a {@linkplain FieldChange#secret secret
 * change} ({@code env[name=DB_PASSWORD].value: (changed)}, an added or removed variable {@code
 * env[name=API_TOKEN]: (added)}), and wherever a larger value holding it is shown whole (a
 * container added, a list replaced as a whole) its {@code value} reads {@link Escapes#NOT_SHOWN}.
 * Its other fields ({@code valueFrom}) show as any field does.
 *
 * <p>Changes come in a stable order: map keys sorted, named list items in the order of the after
 * side and then the removed ones.
 */
public final class ManifestDiff {
  /** The top-level fields of a Secret whose values are shown: none holds what the Secret keeps. */
  private static final Set<String> SECRET_SHOWN =
      Set.of("apiVersion", "kind", "metadata", "type", "immutable");

  /** The one field under a Secret's {@code metadata} whose values are not shown. */
  private static final String ANNOTATIONS = "metadata.annotations";

  /** The list of a container's environment variables, and the field of one that holds its value. */
  private static final String ENV = "env";

  private static final String VALUE = "value";

  private ManifestDiff() {}

  /**
   * The changes that turn {@code before} into {@code after}, or an empty list when they are equal.
   *
   * @throws IllegalArgumentException if the two are not the same object (kind, namespace, name)
   */
  public static List<FieldChange> between(Manifest before, Manifest after) {
    requireNonNull(before, "before");
    requireNonNull(after, "after");
    if (!before.ref().equals(after.ref())) {
      throw new IllegalArgumentException(
          "a diff compares one object: " + before.ref().key() + " is not " + after.ref().key());
    }
    List<FieldChange> out = new ArrayList<>();
    new Walk(after.kind().equals(Kind.SECRET), out).map("", before.content(), after.content());
    return List.copyOf(out);
  }

  /** Walks two trees, collecting changes. */
  private record Walk(boolean secretKind, List<FieldChange> out) {

    void value(String path, @Nullable Object a, @Nullable Object b) {
      if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
        map(path, ma, mb);
      } else if ((a == null && b instanceof Map<?, ?>) || (b == null && a instanceof Map<?, ?>)) {
        // a mapping on one side only: key by key, so a Secret's hidden fields stay hidden
        map(
            path,
            a instanceof Map<?, ?> ma ? ma : Map.of(),
            b instanceof Map<?, ?> mb ? mb : Map.of());
      } else if (a instanceof List<?> la && b instanceof List<?> lb) {
        list(path, la, lb);
      } else if (a == null && b != null) {
        out.add(FieldChange.added(path, shown(path, b)));
      } else if (a != null && b == null) {
        out.add(FieldChange.removed(path, shown(path, a)));
      } else if (a != null && b != null && !sameScalar(a, b)) {
        out.add(FieldChange.replaced(path, shown(path, a), shown(path, b)));
      }
    }

    void map(String path, Map<?, ?> a, Map<?, ?> b) {
      Set<String> keys = new TreeSet<>();
      a.keySet().forEach(k -> keys.add(String.valueOf(k)));
      b.keySet().forEach(k -> keys.add(String.valueOf(k)));
      for (String key : keys) {
        String at = child(path, key);
        if (secretKind && hidden(path, key, at)) {
          secretMap(at, a.get(key), b.get(key));
        } else {
          value(at, a.get(key), b.get(key));
        }
      }
    }

    void list(String path, List<?> a, List<?> b) {
      Map<String, Object> byNameA = byName(a);
      Map<String, Object> byNameB = byName(b);
      boolean env = isEnvList(path);
      if (byNameA != null && byNameB != null && !(a.isEmpty() && b.isEmpty())) {
        for (Map.Entry<String, Object> e : byNameB.entrySet()) {
          Object before = byNameA.get(e.getKey());
          String at = item(path, e.getKey());
          if (env && (secretValue(before) || secretValue(e.getValue()))) {
            secretVariable(at, before, e.getValue());
          } else if (before == null) {
            out.add(FieldChange.added(at, shown(at, e.getValue())));
          } else {
            value(at, before, e.getValue());
          }
        }
        for (Map.Entry<String, Object> e : byNameA.entrySet()) {
          String at = item(path, e.getKey());
          if (!byNameB.containsKey(e.getKey())) {
            if (env && secretValue(e.getValue())) {
              secretVariable(at, e.getValue(), null);
            } else {
              out.add(FieldChange.removed(at, shown(at, e.getValue())));
            }
          }
        }
      } else if (a.size() == b.size()) {
        for (int i = 0; i < a.size(); i++) {
          String at = path + "[" + i + "]";
          if (env && (secretValue(a.get(i)) || secretValue(b.get(i)))) {
            secretVariable(at, a.get(i), b.get(i));
          } else {
            value(at, a.get(i), b.get(i));
          }
        }
      } else {
        out.add(FieldChange.replaced(path, shown(path, a), shown(path, b)));
      }
    }

    /**
     * An environment variable named as a secret, holding a {@code value} on one side at least:
     * added or removed, a secret change of the whole item; else its {@code value} a secret field
     * and the rest (its {@code name}, a {@code valueFrom}) as any field.
     */
    void secretVariable(String path, @Nullable Object a, @Nullable Object b) {
      if (!(a instanceof Map<?, ?> ma) || !(b instanceof Map<?, ?> mb)) {
        secretField(path, a, b);
        return;
      }
      Set<String> keys = new TreeSet<>();
      ma.keySet().forEach(k -> keys.add(String.valueOf(k)));
      mb.keySet().forEach(k -> keys.add(String.valueOf(k)));
      for (String key : keys) {
        if (key.equals(VALUE)) {
          secretField(child(path, key), ma.get(key), mb.get(key));
        } else {
          value(child(path, key), ma.get(key), mb.get(key));
        }
      }
    }

    void secretMap(String path, @Nullable Object a, @Nullable Object b) {
      if (!(a == null || a instanceof Map<?, ?>) || !(b == null || b instanceof Map<?, ?>)) {
        secretField(path, a, b);
        return;
      }
      Map<?, ?> ma = a == null ? Map.of() : (Map<?, ?>) a;
      Map<?, ?> mb = b == null ? Map.of() : (Map<?, ?>) b;
      Set<String> keys = new TreeSet<>();
      ma.keySet().forEach(k -> keys.add(String.valueOf(k)));
      mb.keySet().forEach(k -> keys.add(String.valueOf(k)));
      for (String key : keys) {
        secretField(child(path, key), ma.get(key), mb.get(key));
      }
    }

    void secretField(String path, @Nullable Object a, @Nullable Object b) {
      if (a == null && b != null) {
        out.add(FieldChange.secret(path, Op.ADD));
      } else if (a != null && b == null) {
        out.add(FieldChange.secret(path, Op.REMOVE));
      } else if (a != null && !Objects.equals(a, b)) {
        out.add(FieldChange.secret(path, Op.REPLACE));
      }
    }
  }

  /** Whether the list at {@code path} is one of environment variables: a field {@code env}. */
  private static boolean isEnvList(String path) {
    return path.equals(ENV) || path.endsWith("." + ENV);
  }

  /**
   * Whether {@code item} is an environment variable named as a secret ({@link SecretNames}) that
   * holds a {@code value}.
   */
  private static boolean secretValue(@Nullable Object item) {
    return item instanceof Map<?, ?> m
        && m.get(VALUE) != null
        && m.get("name") instanceof String name
        && SecretNames.isSecret(name);
  }

  /**
   * {@code value}, the value of the field at {@code path}, as a change may hold it: with the {@code
   * value} of every environment variable named as a secret in it (in a list {@code env}, at any
   * depth) read {@link Escapes#NOT_SHOWN}; {@code value} itself when it holds none.
   */
  private static Object shown(String path, Object value) {
    return shown(isEnvList(path), value);
  }

  private static Object shown(boolean env, Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      boolean masked = false;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = String.valueOf(e.getKey());
        Object v = e.getValue();
        Object shown = v == null ? null : shown(key.equals(ENV), v);
        masked |= shown != v;
        out.put(key, shown);
      }
      return masked ? out : value;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      boolean masked = false;
      for (Object item : list) {
        Object shown = item;
        if (env && secretValue(item)) {
          Map<Object, Object> variable = new LinkedHashMap<>((Map<?, ?>) item);
          variable.put(VALUE, Escapes.NOT_SHOWN);
          shown = variable;
        } else if (item != null) {
          shown = shown(false, item);
        }
        masked |= shown != item;
        out.add(shown);
      }
      return masked ? out : value;
    }
    return value;
  }

  /**
   * Whether field {@code key} of the Secret's mapping at {@code path} ({@code at} the two joined)
   * holds values a diff never shows: any top-level field but {@link #SECRET_SHOWN}, and the
   * annotations.
   */
  private static boolean hidden(String path, String key, String at) {
    return path.isEmpty() ? !SECRET_SHOWN.contains(key) : at.equals(ANNOTATIONS);
  }

  /** The items by their {@code name}, when every item is a mapping with a unique string name. */
  private static @Nullable Map<String, Object> byName(List<?> list) {
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (Object item : list) {
      if (!(item instanceof Map<?, ?> m) || !(m.get("name") instanceof String name)) {
        return null;
      }
      if (!seen.add(name)) {
        return null;
      }
      out.put(name, item);
    }
    return out;
  }

  private static boolean sameScalar(Object a, Object b) {
    return FieldPaths.sameScalar(a, b);
  }

  private static String child(String path, String key) {
    return FieldPaths.child(path, key);
  }

  private static String item(String path, String name) {
    return FieldPaths.item(path, "name", name);
  }
}
