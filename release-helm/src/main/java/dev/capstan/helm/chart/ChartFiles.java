package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.chart.ChartException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * What Capstan reads of a chart itself: its {@code Chart.yaml} (from a directory, or from a
 * packaged chart's tar stream) and its digest. Rendering is Helm's.
 */
final class ChartFiles {
  /** The largest {@code Chart.yaml} read. */
  private static final int MAX_CHART_YAML = 1 << 20;

  /** The largest packaged chart read: Helm's own limit on a chart archive is 20 MiB. */
  static final long MAX_ARCHIVE = 64L << 20;

  /**
   * The most bytes a packaged chart, with the packaged subcharts in it, may unpack to: Helm's own
   * limit is 100 MiB an archive.
   */
  static final long MAX_UNPACKED = 256L << 20;

  private static final InputLimits LIMITS =
      InputLimits.oneDocument().withMaxBytes(MAX_CHART_YAML).withMaxAliases(0);

  /**
   * A chart's {@code Chart.yaml}, as far as Capstan reads it.
   *
   * @param name its name
   * @param version its version
   * @param appVersion its app version, or {@code null}
   * @param dependencies the charts it depends on
   */
  record Meta(
      String name, String version, @Nullable String appVersion, List<Dependency> dependencies) {}

  /**
   * A dependency a {@code Chart.yaml} declares.
   *
   * @param name the chart's name
   * @param repository where it comes from: a URL, {@code oci://...}, {@code file://PATH} or {@code
   *     @alias}, or {@code ""}
   */
  record Dependency(String name, String repository) {}

  private ChartFiles() {}

  /** The {@code Chart.yaml} of the chart directory {@code dir}. */
  static Meta directory(Path dir, String label) {
    Path chartYaml = dir.resolve("Chart.yaml");
    if (!Files.isRegularFile(chartYaml)) {
      throw new ChartException(
          "chart " + Escapes.quote(label) + " is no chart directory: it has no Chart.yaml");
    }
    try {
      if (Files.size(chartYaml) > MAX_CHART_YAML) {
        throw new ChartException("chart " + Escapes.quote(label) + ": Chart.yaml is over 1 MiB");
      }
      Meta meta = parse(Files.readAllBytes(chartYaml), label);
      Path requirements = dir.resolve("requirements.yaml"); // apiVersion v1 charts
      if (meta.dependencies().isEmpty() && Files.isRegularFile(requirements)) {
        return new Meta(
            meta.name(),
            meta.version(),
            meta.appVersion(),
            dependencies(read(Files.readAllBytes(requirements), label + " requirements.yaml")));
      }
      return meta;
    } catch (IOException e) {
      throw new ChartException(
          "chart " + Escapes.quote(label) + ": cannot read Chart.yaml: " + e.getMessage(), e);
    }
  }

  /** The top {@code Chart.yaml} of the packaged chart {@code archive} (gzip of tar). */
  static Meta archive(Path archive, String label) {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(archive))) {
      TarEntries tar = new TarEntries(in, new TarEntries.Budget(MAX_UNPACKED));
      for (TarEntries.Entry e = tar.next(); e != null; e = tar.next()) {
        if (e.file() && e.name().matches("[^/]+/Chart\\.yaml")) {
          byte[] body = tar.data().readNBytes(MAX_CHART_YAML + 1);
          if (body.length <= MAX_CHART_YAML) {
            return parse(body, label);
          }
        }
      }
    } catch (IOException e) {
      throw new ChartException(
          "chart "
              + Escapes.quote(label)
              + " is no packaged chart (gzip of tar): "
              + Escapes.escape(String.valueOf(e.getMessage())),
          e);
    }
    throw new ChartException(
        "chart " + Escapes.quote(label) + " is no packaged chart: it holds no NAME/Chart.yaml");
  }

  private static Meta parse(byte[] bytes, String label) {
    Map<?, ?> chart = read(bytes, label + " Chart.yaml");
    Object name = chart.get("name");
    Object version = chart.get("version");
    if (!(name instanceof String n)
        || n.isBlank()
        || !(version instanceof String v)
        || v.isBlank()) {
      throw new ChartException(
          "chart "
              + Escapes.quote(label)
              + ": Chart.yaml must name the chart and its version (name, version)");
    }
    Object app = chart.get("appVersion");
    return new Meta(n, v, app == null ? null : String.valueOf(app), dependencies(chart));
  }

  private static Map<?, ?> read(byte[] bytes, String label) {
    Object tree;
    try {
      tree = StrictDocuments.readOne(bytes, LIMITS);
    } catch (InvalidDocumentException e) {
      throw new ChartException(Escapes.escape(label) + ": " + e.getMessage(), e);
    }
    if (!(tree instanceof Map<?, ?> map)) {
      throw new ChartException(Escapes.escape(label) + " must be a mapping");
    }
    return map;
  }

  private static List<Dependency> dependencies(Map<?, ?> chart) {
    List<Dependency> out = new ArrayList<>();
    if (chart.get("dependencies") instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof Map<?, ?> dep && dep.get("name") != null) {
          Object repository = dep.get("repository");
          out.add(
              new Dependency(
                  String.valueOf(dep.get("name")),
                  repository == null ? "" : String.valueOf(repository)));
        }
      }
    }
    return out;
  }

  /**
   * Whether every dependency {@code meta} declares is in the directory's {@code charts/}, as a
   * folder or a packaged chart: otherwise Helm cannot render it before {@code helm dependency
   * build}.
   */
  static boolean dependenciesPresent(Path dir, Meta meta) {
    Path charts = dir.resolve("charts");
    List<String> present = new ArrayList<>();
    if (Files.isDirectory(charts)) {
      try (Stream<Path> entries = Files.list(charts)) {
        entries.forEach(p -> present.add(p.getFileName().toString()));
      } catch (IOException e) {
        return false;
      }
    }
    for (Dependency d : meta.dependencies()) {
      String dep = d.name();
      boolean found =
          present.stream()
              .anyMatch(p -> p.equals(dep) || (p.startsWith(dep + "-") && p.endsWith(".tgz")));
      if (!found) {
        return false;
      }
    }
    return true;
  }

  /** {@code sha256:} of the file. */
  static String digest(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest sha = sha256();
      byte[] buffer = new byte[65_536];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        sha.update(buffer, 0, n);
      }
      return "sha256:" + HexFormat.of().formatHex(sha.digest());
    } catch (IOException e) {
      throw new ChartException("cannot read " + Escapes.quote(file) + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code sha256:} over a directory's files: each regular file's path (relative, {@code /}
   * separated) and the SHA-256 of its content, one line each, sorted by path.
   */
  static String directoryDigest(Path dir) {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile).sorted()::iterator) {
        String relative = dir.relativize(p).toString().replace('\\', '/');
        lines.add(relative + "\0" + digest(p) + "\n");
      }
    } catch (IOException e) {
      throw new ChartException(
          "cannot read the chart directory " + Escapes.quote(dir) + ": " + e.getMessage(), e);
    }
    lines.sort(null);
    MessageDigest sha = sha256();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    lines.forEach(l -> bytes.writeBytes(l.getBytes(StandardCharsets.UTF_8)));
    return "sha256:" + HexFormat.of().formatHex(sha.digest(bytes.toByteArray()));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
