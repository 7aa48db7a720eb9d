package dev.capstan.cel;

import dev.capstan.common.Escapes;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.ExprKind.Kind;
import dev.cel.common.navigation.CelNavigableExpr;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a rule saw: the fields of {@code self} its expressions read ({@code self.status.phase}), and
 * their values in one object, for a verdict's reason ({@code status.phase='Failed'}). Values are
 * shown escaped and cut at {@link #MAX_VALUE} characters; a field that is not there shows as {@code
 * (absent)}.
 */
final class Seen {
  /** The most characters of one value shown. */
  static final int MAX_VALUE = 120;

  /** The most fields shown. */
  static final int MAX_FIELDS = 6;

  private Seen() {}

  /**
   * The paths under {@code self} that {@code root} reads, in order: the outermost selects only, and
   * not the tests of {@code has()} (a field read shows whether it is there).
   */
  static List<List<String>> paths(CelExpr root) {
    Set<List<String>> out = new LinkedHashSet<>();
    CelNavigableExpr.fromExpr(root)
        .allNodes()
        .filter(n -> n.expr().getKind() == Kind.SELECT && !n.expr().select().testOnly())
        .filter(
            n ->
                n.parent().isEmpty()
                    || n.parent().get().expr().getKind() != Kind.SELECT
                    || n.parent().get().expr().select().testOnly())
        .forEach(
            n -> {
              List<String> path = path(n.expr());
              if (path != null && !path.isEmpty()) {
                out.add(path);
              }
            });
    return outermost(new ArrayList<>(out));
  }

  /**
   * {@code paths} without those another one extends ({@code status.conditions}, not {@code
   * status}).
   */
  static List<List<String>> outermost(List<List<String>> paths) {
    return paths.stream()
        .filter(
            p ->
                paths.stream()
                    .noneMatch(q -> q.size() > p.size() && q.subList(0, p.size()).equals(p)))
        .toList();
  }

  /** {@code [status, phase]} for {@code self.status.phase}; null when not rooted at self. */
  private static @Nullable List<String> path(CelExpr select) {
    List<String> reversed = new ArrayList<>();
    CelExpr e = select;
    while (e.getKind() == Kind.SELECT) {
      reversed.add(e.select().field());
      e = e.select().operand();
    }
    if (e.getKind() != Kind.IDENT || !e.ident().name().equals("self")) {
      return null;
    }
    List<String> path = new ArrayList<>();
    for (int i = reversed.size() - 1; i >= 0; i--) {
      path.add(reversed.get(i));
    }
    return path;
  }

  /** {@code status.phase='Failed', status.readyMembers=1}. */
  static String describe(List<List<String>> paths, Map<String, Object> object) {
    List<String> parts = new ArrayList<>();
    for (List<String> path : paths) {
      if (parts.size() == MAX_FIELDS) {
        parts.add("…");
        break;
      }
      Object value = object;
      boolean present = true;
      for (String step : path) {
        if (value instanceof Map<?, ?> map && map.containsKey(step)) {
          value = map.get(step);
        } else {
          present = false;
          break;
        }
      }
      parts.add(
          Escapes.escape(String.join(".", path))
              + (present ? "=" + cut(render(value)) : " (absent)"));
    }
    return String.join(", ", parts);
  }

  private static String cut(String text) {
    return text.length() <= MAX_VALUE ? text : text.substring(0, MAX_VALUE) + "…";
  }

  /** A value as JSON would show it, strings quoted and escaped. */
  static String render(@Nullable Object value) {
    if (value instanceof String s) {
      return Escapes.quote(s);
    }
    if (value instanceof Map<?, ?> map) {
      StringBuilder sb = new StringBuilder("{");
      for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<?, ?> e = it.next();
        sb.append(Escapes.escape(String.valueOf(e.getKey())))
            .append(": ")
            .append(render(e.getValue()));
        if (it.hasNext()) {
          sb.append(", ");
        }
        if (sb.length() > MAX_VALUE) {
          break;
        }
      }
      return sb.append('}').toString();
    }
    if (value instanceof List<?> list) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < list.size() && sb.length() <= MAX_VALUE; i++) {
        sb.append(i == 0 ? "" : ", ").append(render(list.get(i)));
      }
      return sb.append(']').toString();
    }
    return Escapes.escape(String.valueOf(value));
  }
}
