package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;

import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import java.util.Map;

/**
 * The object a verdict is about: its API group, kind and tree, and its identity as reasons show it
 * ({@code Kind namespace/name}, or {@code Kind name} when cluster-scoped), escaped.
 */
record Subject(String group, String kind, String id, Map<?, ?> tree) {

  /** Reads the identity of {@code object}, rejecting a tree without apiVersion, kind or name. */
  static Subject of(Map<?, ?> object) {
    String apiVersion = required(object, "apiVersion");
    String kind = required(object, "kind");
    String name = required(object, "metadata", "name");
    String namespace = Trees.text(object, "metadata", "namespace");
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String id =
        escape(kind) + " " + (namespace.isEmpty() ? "" : escape(namespace) + "/") + escape(name);
    return new Subject(group, kind, id, object);
  }

  private static String required(Map<?, ?> object, String... path) {
    Object value = Trees.at(object, path);
    if (value instanceof String s && !s.isEmpty()) {
      return s;
    }
    throw new IllegalArgumentException(
        String.join(".", path)
            + " must be a non-empty string to judge an object's health: "
            + Escapes.quote(value));
  }

  Health inProgress(String detail) {
    return Health.inProgress(id + ": " + detail);
  }

  Health failed(String detail) {
    return Health.failed(id + ": " + detail);
  }

  String string(String... path) {
    return Trees.text(tree, path);
  }

  long number(long fallback, String... path) {
    return Trees.number(tree, fallback, path);
  }
}
