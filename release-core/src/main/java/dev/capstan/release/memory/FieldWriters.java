package dev.capstan.release.memory;

import dev.capstan.release.diff.AppliedFields;
import dev.capstan.release.model.ImmutableFields;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.plan.FieldDrift;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Who wrote which field of an object in an {@link InMemoryCluster}, as the API server's managed
 * fields tell it: the writers an apply or an edit leaves ({@link #changedLeaves}), the drift an
 * observation reports with them ({@link #driftFields}), and the immutable fields an apply may not
 * change ({@link #immutableChange}).
 */
final class FieldWriters {
  private FieldWriters() {}

  /**
   * The fields of {@code applied} (the object as the caller applies it, else as last written with a
   * stamp) that the object no longer holds as applied, with who changed them ({@link
   * StoredObject#takenBy}), as the Kubernetes adapter reads them from managed fields.
   */
  static List<FieldDrift> driftFields(StoredObject o, Manifest applied) {
    List<FieldDrift> out = new ArrayList<>();
    for (AppliedFields.Departure d :
        AppliedFields.departures(applied, o.content, AppliedFields.ListKeys.BY_NAME)) {
      StoredObject.Writer w = writerOf(o.takenBy, d.pointer());
      out.add(
          d.removed()
              ? FieldDrift.removed(d.path(), d.pointer())
              : FieldDrift.taken(
                  d.path(),
                  d.pointer(),
                  w == null ? null : w.manager(),
                  w == null ? null : w.subresource()));
    }
    return out;
  }

  /**
   * The first field the API server keeps immutable ({@link ImmutableFields}) at which {@code next}
   * sets a value {@code live} does not hold, or {@code null}: such an apply is refused, as the API
   * server refuses it.
   */
  static @Nullable String immutableChange(Manifest live, Manifest next) {
    List<String> changed = AppliedFields.changedAt(next, live, ImmutableFields.of(next.kind()));
    return changed.isEmpty() ? null : changed.get(0);
  }

  /**
   * Who wrote the field at {@code pointer}: its own entry, else the nearest enclosing field written
   * whole (a list replaced), else a field written inside it.
   */
  static StoredObject.@Nullable Writer writerOf(
      Map<String, StoredObject.Writer> takenBy, String pointer) {
    StoredObject.Writer exact = takenBy.get(pointer);
    if (exact != null) {
      return exact;
    }
    String best = null;
    for (String key : takenBy.keySet()) {
      if (pointer.startsWith(key + "/") && (best == null || key.length() > best.length())) {
        best = key;
      }
    }
    if (best != null) {
      return takenBy.get(best);
    }
    for (Map.Entry<String, StoredObject.Writer> e : new TreeMap<>(takenBy).entrySet()) {
      if (e.getKey().startsWith(pointer + "/")) {
        return e.getValue();
      }
    }
    return null;
  }

  /**
   * Records {@code writer} for every field that differs between {@code before} and {@code after}
   * (maps key by key, lists of one length item by item, other lists whole), and forgets the writer
   * of every field {@code after} no longer has.
   */
  static void changedLeaves(
      String pointer,
      @Nullable Object before,
      @Nullable Object after,
      StoredObject.Writer writer,
      Map<String, StoredObject.Writer> takenBy) {
    if (before instanceof Map<?, ?> b && after instanceof Map<?, ?> a) {
      java.util.Set<Object> keys = new java.util.LinkedHashSet<>(b.keySet());
      keys.addAll(a.keySet());
      for (Object key : keys) {
        changedLeaves(
            pointer + "/" + AppliedFields.escape(String.valueOf(key)),
            b.get(key),
            a.get(key),
            writer,
            takenBy);
      }
    } else if (before instanceof List<?> b && after instanceof List<?> a && b.size() == a.size()) {
      for (int i = 0; i < a.size(); i++) {
        changedLeaves(pointer + "/" + i, b.get(i), a.get(i), writer, takenBy);
      }
    } else if (after == null) {
      if (before != null) {
        takenBy.keySet().removeIf(k -> k.equals(pointer) || k.startsWith(pointer + "/"));
      }
    } else if (!dev.capstan.common.Trees.sameValue(before, after)) {
      takenBy.keySet().removeIf(k -> k.startsWith(pointer + "/"));
      takenBy.put(pointer, writer);
    }
  }

  /** {@code tree} with {@code value} at the map path {@code pointer} (maps created on the way). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> withAt(Map<String, Object> tree, String pointer, Object value) {
    String[] steps = pointer.substring(1).split("/", -1);
    Map<String, Object> out = new java.util.LinkedHashMap<>(tree);
    Map<String, Object> node = out;
    for (int i = 0; i < steps.length; i++) {
      String step = steps[i].replace("~1", "/").replace("~0", "~");
      if (i == steps.length - 1) {
        node.put(step, value);
      } else {
        Object child = node.get(step);
        if (child instanceof List<?>) {
          return out; // a list item's field: kept as the object has it
        }
        Map<String, Object> copy =
            child instanceof Map<?, ?> m
                ? new java.util.LinkedHashMap<>((Map<String, Object>) m)
                : new java.util.LinkedHashMap<>();
        node.put(step, copy);
        node = copy;
      }
    }
    return out;
  }
}
