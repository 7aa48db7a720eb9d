package dev.capstan.release.diff;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.JsonMappers;
import dev.capstan.common.Trees;
import dev.capstan.release.model.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What became of the fields Capstan applied to an object: every field of the applied object that
 * the live object no longer holds with the value applied, gone or different. Only the applied tree
 * is walked, so what others added where Capstan set nothing (a controller's field, a key of their
 * own in a map, a container a webhook injected), and what Capstan applied empty (an empty map or
 * list, which a writer may fill), is never a departure. Whether a departure is drift is the
 * caller's to decide from who owns the field now (server-side apply's managed fields on Kubernetes;
 * what the in-memory cluster's writers did): see ARCHITECTURE.md, "Drift by ownership".
 *
 * <p>At the root only the object's own fields are walked (not {@code apiVersion}, {@code kind},
 * {@code status}), and of {@code metadata} only the labels and annotations. A list is matched item
 * by item when {@link ListKeys} names its key fields and every applied item has them (the
 * containers by {@code name}, a container's ports by {@code containerPort}), an item being matched
 * by the key fields it has (the server defaults others, e.g. a port's {@code protocol}); any other
 * list is one value. Numbers are equal by value ({@code 2} and {@code 2.0}). Pure: no I/O.
 */
public final class AppliedFields {
  private AppliedFields() {}

  /** How a list is matched item by item: by the key fields of the list at a path, or whole. */
  @FunctionalInterface
  public interface ListKeys {
    /**
     * The key fields of the list at {@code fields} (its managed-fields keys, e.g. {@code [f:spec,
     * f:template, f:spec, f:containers]}) whose applied items are {@code applied}, or none to
     * compare the list as one value.
     */
    List<String> at(List<String> fields, List<?> applied);

    /** Lists whose applied items all carry a string {@code name} by name; others whole. */
    ListKeys BY_NAME =
        (fields, applied) ->
            !applied.isEmpty()
                    && applied.stream()
                        .allMatch(i -> i instanceof Map<?, ?> m && m.get("name") instanceof String)
                ? List.of("name")
                : List.of();
  }

  /**
   * A field Capstan applied that the live object no longer holds as applied.
   *
   * @param path the field for people: {@code spec.template.spec.containers[name=web].image}
   * @param pointer the field in the applied object, as a JSON pointer (RFC 6901): {@code
   *     /spec/template/spec/containers/0/image}
   * @param fields the field as server-side apply's managed fields name it (their keys): {@code
   *     [f:spec, f:template, f:spec, f:containers, k:{"name":"web"}, f:image]}; a list item by the
   *     key fields the applied item has
   * @param removed whether the live object lacks it (else it holds another value)
   */
  public record Departure(String path, String pointer, List<String> fields, boolean removed) {
    /** Requires every part; copies the fields. */
    public Departure {
      requireNonNull(path, "path");
      requireNonNull(pointer, "pointer");
      fields = List.copyOf(fields);
    }
  }

  /** Every departure of {@code live} from {@code applied}, in the applied tree's order. */
  public static List<Departure> departures(Manifest applied, Manifest live, ListKeys keys) {
    requireNonNull(keys, "keys");
    List<Departure> out = new ArrayList<>();
    Walk walk = new Walk(keys, out);
    Map<String, Object> a = applied.content();
    Map<String, Object> l = live.content();
    for (Map.Entry<String, Object> e : a.entrySet()) {
      String key = e.getKey();
      if (key.equals("apiVersion") || key.equals("kind") || key.equals("status")) {
        continue;
      }
      if (key.equals("metadata")) {
        if (e.getValue() instanceof Map<?, ?> meta) {
          Map<?, ?> liveMeta = l.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
          for (String part : List.of("labels", "annotations")) {
            if (meta.get(part) != null) {
              walk.value(
                  List.of("f:metadata", "f:" + part),
                  "metadata." + part,
                  "/metadata/" + part,
                  meta.get(part),
                  liveMeta.get(part));
            }
          }
        }
        continue;
      }
      walk.value(
          List.of("f:" + key),
          FieldPaths.child("", key),
          "/" + escape(key),
          e.getValue(),
          l.get(key));
    }
    return List.copyOf(out);
  }

  private record Walk(ListKeys keys, List<Departure> out) {
    void value(
        List<String> fields,
        String path,
        String pointer,
        @Nullable Object applied,
        @Nullable Object live) {
      if (applied == null) {
        return;
      }
      if (applied instanceof Map<?, ?> a) {
        if (a.isEmpty()) {
          return; // nothing applied there: whoever fills it in
        }
        if (!(live instanceof Map<?, ?> l)) {
          out.add(new Departure(path, pointer, fields, live == null));
          return;
        }
        for (Map.Entry<?, ?> e : a.entrySet()) {
          String key = String.valueOf(e.getKey());
          value(
              plus(fields, "f:" + key),
              FieldPaths.child(path, key),
              pointer + "/" + escape(key),
              e.getValue(),
              l.get(key));
        }
        return;
      }
      if (applied instanceof List<?> a) {
        if (a.isEmpty()) {
          return;
        }
        List<String> keyFields = keys.at(fields, a);
        if (!keyFields.isEmpty() && a.stream().allMatch(i -> hasAnyKey(i, keyFields))) {
          items(fields, path, pointer, a, live instanceof List<?> l ? l : null, keyFields);
          return;
        }
        if (live == null || !sameValue(a, live)) {
          out.add(new Departure(path, pointer, fields, live == null));
        }
        return;
      }
      if (live == null || !sameValue(applied, live)) {
        out.add(new Departure(path, pointer, fields, live == null));
      }
    }

    private void items(
        List<String> fields,
        String path,
        String pointer,
        List<?> applied,
        @Nullable List<?> live,
        List<String> keyFields) {
      for (int i = 0; i < applied.size(); i++) {
        Map<?, ?> item = (Map<?, ?>) applied.get(i);
        Map<String, Object> key = new TreeMap<>();
        for (String k : keyFields) {
          Object v = item.get(k);
          if (v != null) {
            key.put(k, v);
          }
        }
        String at = itemPath(path, key);
        List<String> itemFields = plus(fields, "k:" + json(key));
        String itemPointer = pointer + "/" + i;
        Map<?, ?> match = live == null ? null : match(live, key);
        if (match == null) {
          out.add(new Departure(at, itemPointer, itemFields, true));
          continue;
        }
        for (Map.Entry<?, ?> e : item.entrySet()) {
          String field = String.valueOf(e.getKey());
          value(
              plus(itemFields, "f:" + field),
              FieldPaths.child(at, field),
              itemPointer + "/" + escape(field),
              e.getValue(),
              match.get(field));
        }
      }
    }
  }

  private static boolean hasAnyKey(Object item, List<String> keyFields) {
    if (!(item instanceof Map<?, ?> m)) {
      return false;
    }
    for (String k : keyFields) {
      Object v = m.get(k);
      if (v != null && !(v instanceof Map<?, ?>) && !(v instanceof List<?>)) {
        return true;
      }
    }
    return false;
  }

  /** The live item whose key fields hold every value of {@code key}. */
  private static @Nullable Map<?, ?> match(List<?> live, Map<String, Object> key) {
    for (Object candidate : live) {
      if (candidate instanceof Map<?, ?> m
          && key.entrySet().stream()
              .allMatch(
                  e -> m.get(e.getKey()) != null && sameValue(e.getValue(), m.get(e.getKey())))) {
        return m;
      }
    }
    return null;
  }

  private static String itemPath(String path, Map<String, Object> key) {
    if (key.size() == 1) {
      Map.Entry<String, Object> only = key.entrySet().iterator().next();
      return FieldPaths.item(path, only.getKey(), only.getValue());
    }
    StringBuilder out = new StringBuilder(path).append('[');
    boolean first = true;
    for (Map.Entry<String, Object> e : key.entrySet()) {
      String one = FieldPaths.item("", e.getKey(), e.getValue());
      out.append(first ? "" : ",").append(one, 1, one.length() - 1);
      first = false;
    }
    return out.append(']').toString();
  }

  /**
   * Which of {@code fields} (dotted paths from the root, {@code spec.selector}) {@code applied}
   * sets with a value that {@code live} does not hold, in the order given: what the applied object
   * sets there is walked as drift is, so what the server defaulted in the live object is no change.
   */
  public static List<String> changedAt(Manifest applied, Manifest live, List<String> fields) {
    List<String> out = new ArrayList<>();
    if (fields.isEmpty()) {
      return out;
    }
    List<Departure> departures = departures(applied, live, ListKeys.BY_NAME);
    for (String f : fields) {
      String pointer = "/" + f.replace('.', '/');
      if (departures.stream().anyMatch(d -> within(d.pointer(), pointer))) {
        out.add(f);
      }
    }
    return out;
  }

  /**
   * The fields under {@code fields} (dotted paths from the root) that {@code before} (the object as
   * applied earlier) sets, that {@code live} still holds as set, and that {@code next} no longer
   * sets, in {@code before}'s order: what server-side apply of {@code next} removes there, which
   * {@link #changedAt} (the fields {@code next} sets) does not see. A list item is matched as drift
   * matches it ({@code env[name=B]}), so an item left out is removed; a field {@code live} no
   * longer holds is not, since applying {@code next} changes nothing there.
   */
  public static List<Departure> droppedAt(
      Manifest before, Manifest next, Manifest live, List<String> fields) {
    List<Departure> out = new ArrayList<>();
    if (fields.isEmpty()) {
      return out;
    }
    List<Departure> gone =
        departures(before, live, ListKeys.BY_NAME).stream().filter(Departure::removed).toList();
    for (Departure d : departures(before, next, ListKeys.BY_NAME)) {
      if (d.removed()
          && fields.stream().anyMatch(f -> within(d.pointer(), "/" + f.replace('.', '/')))
          && gone.stream().noneMatch(g -> within(d.pointer(), g.pointer()))) {
        out.add(d);
      }
    }
    return out;
  }

  /** Whether the JSON pointer {@code pointer} is {@code outer} or a field inside it. */
  private static boolean within(String pointer, String outer) {
    return pointer.equals(outer) || pointer.startsWith(outer + "/");
  }

  /**
   * The path for people of a field named by its managed-fields keys ({@code [f:spec, f:containers,
   * k:{"name":"web"}, f:image]} is {@code spec.containers[name=web].image}), as {@link
   * Departure#path} writes it.
   */
  public static String pathOf(List<String> fields) {
    String path = "";
    for (String key : fields) {
      if (key.startsWith("f:")) {
        path = FieldPaths.child(path, key.substring(2));
      } else if (key.startsWith("k:") && parse(key.substring(2)) instanceof Map<?, ?> m) {
        Map<String, Object> item = new TreeMap<>();
        m.forEach((k, v) -> item.put(String.valueOf(k), v));
        path = itemPath(path, item);
      } else if (key.startsWith("v:")) {
        path = path + "[=" + key.substring(2) + "]";
      } else if (key.startsWith("i:")) {
        path = path + "[" + key.substring(2) + "]";
      } else {
        path = FieldPaths.child(path, key);
      }
    }
    return path;
  }

  private static @Nullable Object parse(String json) {
    try {
      return JsonMappers.trees().readValue(json, Object.class);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /**
   * Whether two values are equal: maps key by key, lists item by item, numbers by value whatever
   * their Java type ({@code 2}, {@code 2L} and {@code 2.0}: trees built by hand are not frozen).
   */
  static boolean sameValue(@Nullable Object a, @Nullable Object b) {
    return Trees.sameValue(a, b, FieldPaths::sameScalar);
  }

  private static List<String> plus(List<String> fields, String key) {
    List<String> out = new ArrayList<>(fields.size() + 1);
    out.addAll(fields);
    out.add(key);
    return out;
  }

  /** A JSON pointer's escaping of one key (RFC 6901). */
  public static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  /** The compact JSON of a list item's key fields, as a {@code k:} key of {@code fieldsV1}. */
  private static String json(Map<String, Object> key) {
    return new String(JsonMappers.canonical(key), java.nio.charset.StandardCharsets.UTF_8);
  }
}
