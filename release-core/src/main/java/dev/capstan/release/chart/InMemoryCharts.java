package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Charts written in Java, rendered in memory: the {@link ChartRenderer} for a host's tests, beside
 * the in-memory cluster, with no Helm binary and no repository. A chart is a function of the
 * request and the merged values that returns YAML documents; every request is kept ({@link
 * #requests()}).
 *
 * <pre>{@code
 * InMemoryCharts charts = new InMemoryCharts()
 *     .chart("oci://registry.example/charts/shop", "shop", "1.0.0",
 *         (request, values) -> "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop}\n"
 *             + "data: {replicas: '" + values.getOrDefault("replicas", 1) + "'}\n");
 * }</pre>
 *
 * <p>Values merge as Helm merges them, in a simple form: the files (YAML mappings, merged key by
 * key, a later file winning), then {@code --set} ({@code a.b=c}, comma-separated; {@code true},
 * {@code false} and whole numbers typed as Helm types them), {@code --set-string} and {@code
 * --set-file} (strings). List indices ({@code a[0]=b}) are refused. A version must be exact or none
 * (the newest); a range is refused. {@code lookup} finds nothing: the request's cluster access is
 * kept, never used.
 */
public final class InMemoryCharts implements ChartRenderer {
  /** A chart's templates: the manifests for a request and its merged values. */
  @FunctionalInterface
  public interface Template {
    /**
     * Renders the chart.
     *
     * @param request the request
     * @param values the caller's values, merged (without defaults: the template has its own)
     * @return YAML documents
     */
    String render(ChartRequest request, Map<String, Object> values);
  }

  private record Chart(String reference, String name, String version, Template template) {}

  private final List<Chart> charts = new CopyOnWriteArrayList<>();
  private final List<ChartRequest> requests = new CopyOnWriteArrayList<>();

  /** No chart yet: add them with {@link #chart}. */
  public InMemoryCharts() {}

  /**
   * Adds a chart.
   *
   * @param reference where it is, as {@link ChartReference#describe()} names it
   * @param name its name
   * @param version its version
   * @param template its templates
   * @return this
   */
  public InMemoryCharts chart(String reference, String name, String version, Template template) {
    charts.add(
        new Chart(
            requireNonNull(reference, "reference"),
            requireNonNull(name, "name"),
            requireNonNull(version, "version"),
            requireNonNull(template, "template")));
    return this;
  }

  /** Every request rendered so far, in order. */
  public List<ChartRequest> requests() {
    return List.copyOf(requests);
  }

  /** {@inheritDoc} The manifests are checked against {@code limits} once rendered. */
  @Override
  public RenderedChart render(ChartRequest request, RenderLimits limits) {
    requireNonNull(limits, "limits");
    requests.add(requireNonNull(request, "request"));
    String reference = request.chart().describe();
    String wanted = request.version();
    if (wanted != null && !wanted.matches("[0-9A-Za-z.+-]+")) {
      throw new ChartException(
          "chart "
              + Escapes.escape(reference)
              + ": in-memory charts take an exact version, not the range "
              + Escapes.quote(wanted));
    }
    Chart found = null;
    for (Chart c : charts) {
      if (c.reference.equals(reference)
          && (wanted == null
              ? found == null || newer(c.version, found.version)
              : c.version.equals(wanted))) {
        found = c;
      }
    }
    if (found == null) {
      throw new ChartException(
          "chart "
              + Escapes.escape(reference)
              + (wanted == null ? "" : " version " + Escapes.escape(wanted))
              + " not found");
    }
    Map<String, Object> values = merge(request.values());
    return limits.check(
        new RenderedChart(
            found.template.render(request, values),
            found.name,
            found.version,
            null,
            "sha256:" + sha256(reference + "\n" + found.name + "\n" + found.version),
            values,
            "in-memory",
            List.of()));
  }

  private static boolean newer(String a, String b) {
    String[] x = a.split("[.+-]", -1);
    String[] y = b.split("[.+-]", -1);
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i].matches("[0-9]+") && y[i].matches("[0-9]+")) {
        int c = Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]));
        if (c != 0) {
          return c > 0;
        }
      } else if (!x[i].equals(y[i])) {
        return x[i].compareTo(y[i]) > 0;
      }
    }
    return x.length > y.length;
  }

  /** The values merged as the class comment says. */
  static Map<String, Object> merge(ChartValues given) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (ChartValues.File f : given.files()) {
      Object tree;
      try {
        tree = StrictDocuments.readOne(f.content().getBytes(StandardCharsets.UTF_8), LIMITS);
      } catch (InvalidDocumentException e) {
        throw new ChartException("values file " + Escapes.quote(f.label()) + ": " + e.getMessage());
      }
      if (tree instanceof Map<?, ?> map) {
        mergeInto(out, map);
      } else if (tree != null) {
        throw new ChartException(
            "values file " + Escapes.quote(f.label()) + " must hold a mapping at its top");
      }
    }
    for (String expression : given.set()) {
      for (String item : expression.split(",", -1)) {
        int eq = item.indexOf('=');
        put(out, item.substring(0, Math.max(eq, 0)), typed(item.substring(eq + 1)), "--set");
      }
    }
    for (String expression : given.setString()) {
      for (String item : expression.split(",", -1)) {
        int eq = item.indexOf('=');
        put(out, item.substring(0, Math.max(eq, 0)), item.substring(eq + 1), "--set-string");
      }
    }
    for (ChartValues.KeyFile f : given.setFile()) {
      put(out, f.key(), f.content(), "--set-file");
    }
    return out;
  }

  private static final InputLimits LIMITS = InputLimits.oneDocument();

  private static Object typed(String value) {
    if (value.equals("true") || value.equals("false")) {
      return Boolean.valueOf(value);
    }
    if (value.matches("-?[0-9]{1,18}")) {
      return Long.parseLong(value);
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> root, String key, Object value, String flag) {
    if (key.isEmpty() || key.contains("[")) {
      throw new ChartException(
          flag
              + ": in-memory charts take KEY=VALUE with a dotted key, no list index: "
              + Escapes.quote(key));
    }
    String[] path = key.split("\\.", -1);
    Map<String, Object> at = root;
    for (int i = 0; i < path.length - 1; i++) {
      Object next = at.get(path[i]);
      if (!(next instanceof Map)) {
        next = new LinkedHashMap<String, Object>();
        at.put(path[i], next);
      }
      at = (Map<String, Object>) next;
    }
    at.put(path[path.length - 1], value);
  }

  @SuppressWarnings("unchecked")
  private static void mergeInto(Map<String, Object> into, Map<?, ?> from) {
    for (Map.Entry<?, ?> e : from.entrySet()) {
      String key = String.valueOf(e.getKey());
      @Nullable Object value = e.getValue();
      if (value == null) {
        into.remove(key);
      } else if (value instanceof Map<?, ?> map && into.get(key) instanceof Map<?, ?> existing) {
        Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) existing);
        mergeInto(copy, map);
        into.put(key, copy);
      } else if (value instanceof Map<?, ?> map) {
        Map<String, Object> copy = new LinkedHashMap<>();
        mergeInto(copy, map);
        into.put(key, copy);
      } else {
        into.put(key, value instanceof List<?> list ? new ArrayList<>(list) : value);
      }
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
