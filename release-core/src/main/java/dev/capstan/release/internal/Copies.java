package dev.capstan.release.internal;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Defensive copies and label checks for records. Not API. */
public final class Copies {
  private static final Pattern LABEL_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  /** The label and annotation prefix reserved for Capstan's ownership stamp. */
  public static final String RESERVED_PREFIX = "capstan.dev/";

  /** The one reserved annotation a typed spec may carry: its config-rollout opt-out. */
  static final String CONFIG_ROLLOUT = "capstan.dev/config-rollout";

  private Copies() {}

  /** An unmodifiable, key-sorted copy; null map means empty; null keys or values are rejected. */
  public static <V> SortedMap<String, V> sortedMap(@Nullable Map<String, V> map, String field) {
    TreeMap<String, V> copy = new TreeMap<>();
    if (map != null) {
      for (Map.Entry<String, V> e : map.entrySet()) {
        String key = requireNonNull(e.getKey(), () -> field + " has a null key");
        copy.put(key, requireNonNull(e.getValue(), () -> field + "[" + key + "] is null"));
      }
    }
    return Collections.unmodifiableSortedMap(copy);
  }

  /** An unmodifiable copy; null means empty; null elements are rejected. */
  public static <T> List<T> list(@Nullable List<T> list, String field) {
    if (list == null) {
      return List.of();
    }
    for (int i = 0; i < list.size(); i++) {
      requireNonNull(list.get(i), field + "[" + i + "] is null");
    }
    return List.copyOf(list);
  }

  /**
   * Copies and checks Kubernetes-style labels or annotations: keys are {@code [prefix/]name} with a
   * DNS-1123 subdomain prefix; the {@code capstan.dev/} prefix is reserved for the ownership stamp
   * (except the annotation {@code capstan.dev/config-rollout}); label values must be 63 characters
   * of the label alphabet (annotation values are free text).
   */
  public static SortedMap<String, String> metadata(
      @Nullable Map<String, String> map, String field, boolean labels) {
    SortedMap<String, String> copy = sortedMap(map, field);
    for (Map.Entry<String, String> e : copy.entrySet()) {
      String key = e.getKey();
      if (key.startsWith(RESERVED_PREFIX) && !(!labels && key.equals(CONFIG_ROLLOUT))) {
        throw new IllegalArgumentException(
            field
                + " key must not use the prefix reserved for the ownership stamp ("
                + RESERVED_PREFIX
                + "): "
                + Names.quote(key));
      }
      int slash = key.indexOf('/');
      String prefix = slash < 0 ? null : key.substring(0, slash);
      String name = slash < 0 ? key : key.substring(slash + 1);
      if ((prefix != null && !Names.isSubdomain(prefix))
          || name.length() > 63
          || !LABEL_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            field
                + " key must be [DNS-1123 subdomain/]name with a name of at most 63 characters"
                + " [A-Za-z0-9._-] starting and ending with an alphanumeric: "
                + Names.quote(key));
      }
      if (labels && (e.getValue().length() > 63 || !LABEL_VALUE.matcher(e.getValue()).matches())) {
        throw new IllegalArgumentException(
            field
                + "["
                + key
                + "] value must be at most 63 characters [A-Za-z0-9._-] starting and"
                + " ending with an alphanumeric: "
                + Names.quote(e.getValue()));
      }
    }
    return copy;
  }
}
