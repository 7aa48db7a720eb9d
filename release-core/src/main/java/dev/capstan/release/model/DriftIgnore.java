package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A rule that leaves fields of some of a release's objects to other writers, as Argo CD's {@code
 * ignoreDifferences}, Flux's {@code driftDetection.ignore} and kapp's rebase rules do: an HPA that
 * owns a Deployment's {@code /spec/replicas}, a controller that rewrites a webhook's {@code
 * caBundle}. An ignored field is neither reported as drift nor written over, and the plan says
 * which rule ignored it (ARCHITECTURE.md, "Drift by ownership").
 *
 * <ul>
 *   <li>{@code paths}: JSON pointers (RFC 6901) into the object. A field at one of them is left out
 *       of every update, repair and adoption (server-side apply then gives it up, keeping its value
 *       when Capstan owned it; see the Kubernetes orchestrator), and out of the content hash, so a
 *       change there is no update. A create writes it, as Argo CD's {@code
 *       RespectIgnoreDifferences} does: the object starts as the manifest has it.
 *   <li>{@code managers}: field managers (as {@code metadata.managedFields} names them, e.g. {@code
 *       kube-controller-manager}) whose fields are theirs: a field Capstan applied that one of them
 *       now holds with another value is no drift, and is left out of Capstan's next write.
 * </ul>
 *
 * @param kind the kind it applies to, {@code [group/]Kind}: {@code apps/Deployment}, {@code
 *     ConfigMap}
 * @param name the one object of that kind it applies to, or {@code null} for all of them
 * @param paths the JSON pointers of the fields ignored
 * @param managers the field managers trusted with the fields they hold
 */
public record DriftIgnore(
    String kind, @Nullable String name, List<String> paths, List<String> managers) {

  /**
   * The longest kind taken: room for a group of 253 characters, {@code /} and a kind of 63. Checked
   * before the kind's pattern, whose matching recurses once per group label.
   */
  public static final int MAX_KIND = 317;

  /** The longest path taken, in characters. */
  public static final int MAX_PATH = 1024;

  /** How much of a value too long to take a message shows. */
  private static final int SHOWN = 64;

  private static final Pattern KIND =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Z][A-Za-z0-9]*");
  private static final List<String> IDENTITY =
      List.of("/apiVersion", "/kind", "/metadata", "/metadata/name", "/metadata/namespace");
  private static final List<String> STAMP_MAPS =
      List.of("/metadata/labels", "/metadata/annotations");

  /**
   * Requires a kind, at least one path or manager, and each valid (see {@link #problems}).
   *
   * @throws IllegalArgumentException naming the first problem
   */
  public DriftIgnore {
    requireNonNull(kind, "kind");
    paths = List.copyOf(paths);
    managers = List.copyOf(managers);
    List<String> problems = problems(kind, name, paths, managers);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(problems.get(0));
    }
  }

  /** A rule for every object of {@code kind} ignoring {@code paths}. */
  public static DriftIgnore paths(String kind, String... paths) {
    return new DriftIgnore(kind, null, List.of(paths), List.of());
  }

  /** A rule for every object of {@code kind} trusting {@code managers}. */
  public static DriftIgnore managers(String kind, String... managers) {
    return new DriftIgnore(kind, null, List.of(), List.of(managers));
  }

  /** This rule for the one object named {@code name}. */
  public DriftIgnore forName(String name) {
    return new DriftIgnore(kind, name, paths, managers);
  }

  /**
   * What is wrong with a rule of these parts, each problem naming the field, the rule it breaks and
   * the value (escaped); empty when it is valid. For readers of rules (the release file, the
   * Release resource) that report every problem before anything is written.
   */
  public static List<String> problems(
      String kind, @Nullable String name, List<String> paths, List<String> managers) {
    List<String> out = new ArrayList<>();
    if (kind.length() > MAX_KIND) {
      out.add(
          "kind must be [group/]Kind of at most "
              + MAX_KIND
              + " characters, e.g. apps/Deployment: "
              + Escapes.quote(kind, SHOWN));
    } else if (!KIND.matcher(kind).matches()) {
      out.add("kind must be [group/]Kind, e.g. apps/Deployment: " + Escapes.quote(kind));
    }
    if (name != null && (name.isEmpty() || name.length() > 253 || name.contains("/"))) {
      out.add(
          "name must be an object name (1 to 253 characters, no '/'): " + Escapes.quote(name, 253));
    }
    if (paths.isEmpty() && managers.isEmpty()) {
      out.add("a rule must name at least one of paths and managers");
    }
    for (int i = 0; i < paths.size(); i++) {
      String problem = pathProblem(requireNonNull(paths.get(i), "path"));
      if (problem != null) {
        out.add("paths[" + i + "]: " + problem);
      }
    }
    for (int i = 0; i < managers.size(); i++) {
      String m = requireNonNull(managers.get(i), "manager");
      if (m.isBlank() || m.length() > 128 || m.chars().anyMatch(Character::isISOControl)) {
        out.add(
            "managers["
                + i
                + "]: must be a field manager name of 1 to 128 printable characters: "
                + Escapes.quote(m, 128));
      } else if (m.equals("capstan") || m.startsWith("capstan/")) {
        out.add(
            "managers["
                + i
                + "]: Capstan's own field manager cannot be trusted over itself: "
                + Escapes.quote(m));
      }
    }
    return out;
  }

  private static @Nullable String pathProblem(String path) {
    if (path.length() > MAX_PATH) {
      return "must be a JSON pointer of at most "
          + MAX_PATH
          + " characters: "
          + Escapes.quote(path, SHOWN);
    }
    if (!path.startsWith("/") || path.length() < 2) {
      return "must be a JSON pointer to a field, e.g. /spec/replicas: " + Escapes.quote(path);
    }
    for (String segment : path.substring(1).split("/", -1)) {
      if (segment.isEmpty() || !escaped(segment)) {
        return "must be a JSON pointer (RFC 6901: '~' written '~0', '/' written '~1', no empty"
            + " step): "
            + Escapes.quote(path);
      }
    }
    if (IDENTITY.contains(path) || STAMP_MAPS.contains(path)) {
      return "must not be the object's identity or all its labels or annotations (Capstan's"
          + " ownership stamp lives there): "
          + Escapes.quote(path);
    }
    for (String map : STAMP_MAPS) {
      if (path.startsWith(map + "/")) {
        String key = unescape(path.substring(map.length() + 1));
        if (key.startsWith("capstan.dev/") || key.equals("app.kubernetes.io/managed-by")) {
          return "must not be a key of Capstan's ownership stamp: " + Escapes.quote(path);
        }
      }
    }
    return null;
  }

  /**
   * Whether every {@code ~} of a pointer's segment starts an escape, {@code ~0} or {@code ~1}. A
   * loop, not a pattern: a repeated group's matching recurses once per character.
   */
  private static boolean escaped(String segment) {
    for (int i = segment.indexOf('~'); i >= 0; i = segment.indexOf('~', i + 2)) {
      if (i + 1 >= segment.length() || "01".indexOf(segment.charAt(i + 1)) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether this rule applies to {@code ref}: the same group and kind, and name if it names one.
   */
  public boolean matches(ResourceRef ref) {
    String group = ref.kind().group();
    String key = group.isEmpty() ? ref.kind().kind() : group + "/" + ref.kind().kind();
    return key.equals(kind) && (name == null || name.equals(ref.name()));
  }

  /** How the plan names this rule: {@code apps/Deployment web: /spec/replicas; managers hpa}. */
  public String describe() {
    StringBuilder out = new StringBuilder(kind);
    if (name != null) {
      out.append(' ').append(name);
    }
    out.append(':');
    if (!paths.isEmpty()) {
      out.append(' ').append(String.join(", ", paths));
    }
    if (!managers.isEmpty()) {
      out.append(paths.isEmpty() ? " " : "; ")
          .append("managers ")
          .append(String.join(", ", managers));
    }
    return out.toString();
  }

  /** The value at {@code pointer} in {@code tree}, or {@code null} when there is none. */
  public static @Nullable Object at(Map<String, ?> tree, String pointer) {
    Object node = tree;
    for (String step : steps(pointer)) {
      if (node instanceof Map<?, ?> m) {
        node = m.get(step);
      } else if (node instanceof List<?> l && step.matches("0|[1-9][0-9]{0,8}")) {
        int i = Integer.parseInt(step);
        node = i < l.size() ? l.get(i) : null;
      } else {
        return null;
      }
      if (node == null) {
        return null;
      }
    }
    return node;
  }

  /**
   * {@code tree} without the value at each of {@code pointers} that it holds (list items by index,
   * removed from the highest index down so one removal does not move another's).
   */
  public static Map<String, Object> withoutPointers(Map<String, ?> tree, List<String> pointers) {
    Map<String, Object> out = copy(tree);
    List<List<String>> sorted = new ArrayList<>();
    pointers.forEach(p -> sorted.add(steps(p)));
    sorted.sort(DriftIgnore::laterFirst);
    for (List<String> steps : sorted) {
      remove(out, steps, 0);
    }
    return out;
  }

  /** Orders pointers so that a list's later items come before its earlier ones. */
  private static int laterFirst(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      String x = a.get(i);
      String y = b.get(i);
      if (x.equals(y)) {
        continue;
      }
      if (x.matches("[0-9]{1,9}") && y.matches("[0-9]{1,9}")) {
        return Integer.compare(Integer.parseInt(y), Integer.parseInt(x));
      }
      return y.compareTo(x);
    }
    return Integer.compare(b.size(), a.size());
  }

  @SuppressWarnings("unchecked")
  private static void remove(Object node, List<String> steps, int i) {
    String step = steps.get(i);
    boolean last = i == steps.size() - 1;
    if (node instanceof Map<?, ?> m) {
      Map<String, Object> map = (Map<String, Object>) m;
      if (last) {
        map.remove(step);
      } else if (map.get(step) != null) {
        remove(map.get(step), steps, i + 1);
      }
    } else if (node instanceof List<?> l && step.matches("0|[1-9][0-9]{0,8}")) {
      List<Object> list = (List<Object>) l;
      int index = Integer.parseInt(step);
      if (index < list.size()) {
        if (last) {
          list.remove(index);
        } else {
          remove(list.get(index), steps, i + 1);
        }
      }
    }
  }

  /** A mutable deep copy. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> copy(Map<String, ?> tree) {
    Map<String, Object> out = new LinkedHashMap<>();
    tree.forEach((k, v) -> out.put(k, copyValue(v)));
    return out;
  }

  private static @Nullable Object copyValue(@Nullable Object v) {
    if (v instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, ?> typed = (Map<String, ?>) m;
      return copy(typed);
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(x -> out.add(copyValue(x)));
      return out;
    }
    return v;
  }

  private static List<String> steps(String pointer) {
    List<String> out = new ArrayList<>();
    for (String segment : pointer.substring(1).split("/", -1)) {
      out.add(unescape(segment));
    }
    return out;
  }

  private static String unescape(String segment) {
    return segment.replace("~1", "/").replace("~0", "~");
  }
}
