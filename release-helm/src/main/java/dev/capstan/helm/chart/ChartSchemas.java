package dev.capstan.helm.chart;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.chart.ChartException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Refuses, before Helm runs, a chart whose values schemas would make Helm load a document. Helm
 * validates the values against each {@code values.schema.json} (the chart's and its subcharts')
 * when it renders, and its validator loads every schema they refer to with {@code file}, {@code
 * http} and {@code https} loaders, from the machine Helm runs on and outside {@link EgressProxy}: a
 * reference to a cloud's metadata service, an internal address or a local file would be read, and
 * what came back (a status, whether it parsed) would show in the failure. So in every schema Helm
 * would read (a directory's, its {@code charts/} folders' and {@code charts/*.tgz} archives', at
 * any depth, the archives read as Helm reads them) each {@code $ref}, {@code $schema}, {@code $id},
 * {@code $dynamicRef} and {@code $recursiveRef} must refer within the schema ({@code #...}) or to a
 * JSON Schema draft's meta-schema, which the validator holds itself. ARCHITECTURE.md, "Charts".
 */
final class ChartSchemas {
  /** The keywords whose value is a URI a validator may load. */
  private static final Set<String> KEYWORDS =
      Set.of("$ref", "$schema", "$id", "$dynamicRef", "$recursiveRef");

  /** The meta-schemas of the drafts, which Helm's validators carry (a fragment may follow). */
  static final Set<String> META_SCHEMAS =
      Stream.of("http://", "https://")
          .flatMap(
              scheme ->
                  Stream.of(
                          "schema",
                          "draft-04/schema",
                          "draft-06/schema",
                          "draft-07/schema",
                          "draft/2019-09/schema",
                          "draft/2020-12/schema")
                      .map(path -> scheme + "json-schema.org/" + path))
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /** How deep subcharts may nest. */
  static final int MAX_DEPTH = 16;

  private static final JsonFactory JSON = JsonMappers.trees().getFactory();

  private ChartSchemas() {}

  /**
   * Refuses the chart {@code chart} (a directory or a packaged chart) when a values schema of it
   * refers to a document outside itself.
   *
   * @param label the chart as messages name it, escaped
   * @throws ChartException naming the chart, the file, the keyword's JSON pointer and its value
   */
  static void check(Path chart, String label) {
    TarEntries.Budget budget = new TarEntries.Budget(ChartFiles.MAX_UNPACKED);
    try {
      if (Files.isDirectory(chart)) {
        directory(chart, "", label, 0, budget);
      } else {
        try (InputStream in = Files.newInputStream(chart)) {
          archive(in, "", label, 0, budget);
        }
      }
    } catch (IOException e) {
      throw new ChartException(
          "chart "
              + label
              + ": cannot read its values schemas: "
              + Escapes.escape(String.valueOf(e.getMessage()))
              + "; nothing was written",
          e);
    }
  }

  /** A chart directory {@code file} ({@code ""} for the chart itself), its subcharts too. */
  private static void directory(
      Path dir, String file, String label, int depth, TarEntries.Budget budget) throws IOException {
    nested(file, label, depth);
    String prefix = file.isEmpty() ? "" : file + "/";
    Path schema = dir.resolve("values.schema.json");
    if (Files.isRegularFile(schema)) {
      try (InputStream in = Files.newInputStream(schema)) {
        schema(in, prefix + "values.schema.json", label);
      }
    }
    Path charts = dir.resolve("charts");
    if (!Files.isDirectory(charts)) {
      return;
    }
    List<Path> subcharts;
    try (Stream<Path> children = Files.list(charts)) {
      subcharts = children.sorted().toList();
    }
    for (Path sub : subcharts) {
      String name = prefix + "charts/" + sub.getFileName();
      if (Files.isDirectory(sub)) {
        directory(sub, name, label, depth + 1, budget);
      } else if (name.endsWith(".tgz") && Files.isRegularFile(sub)) {
        try (InputStream in = Files.newInputStream(sub)) {
          archive(in, name, label, depth + 1, budget);
        }
      }
    }
  }

  /** A packaged chart {@code file} ({@code ""} for the chart itself), its subcharts too. */
  private static void archive(
      InputStream packaged, String file, String label, int depth, TarEntries.Budget budget) {
    nested(file, label, depth);
    String prefix = file.isEmpty() ? "" : file + "/";
    try {
      TarEntries tar = new TarEntries(new GZIPInputStream(packaged), budget);
      for (TarEntries.Entry e = tar.next(); e != null; e = tar.next()) {
        String name = e.file() ? helmName(e.name()) : null;
        if (name != null && schemaName(name)) {
          schema(tar.data(), prefix + name, label);
        } else if (name != null && packagedName(name)) {
          archive(tar.data(), prefix + name, label, depth + 1, budget);
        }
      }
    } catch (IOException e) {
      throw new ChartException(
          "chart "
              + label
              + ": cannot read "
              + (file.isEmpty() ? "it" : Escapes.escape(file))
              + " as a packaged chart (gzip of tar): "
              + Escapes.escape(String.valueOf(e.getMessage()))
              + "; nothing was written",
          e);
    }
  }

  private static void nested(String file, String label, int depth) {
    if (depth > MAX_DEPTH) {
      throw new ChartException(
          "chart "
              + label
              + ": its subcharts nest deeper than "
              + MAX_DEPTH
              + " levels: "
              + Escapes.quote(file)
              + "; nothing was written");
    }
  }

  /**
   * The name Helm's loader gives an archive's entry: its first segment dropped (split at {@code \}
   * when it has one, else at {@code /}), cleaned as Go's {@code path.Clean}; {@code null} for one
   * Helm refuses (absolute, outside the chart, a drive letter), whose archive it does not load.
   */
  static @Nullable String helmName(String entry) {
    String[] parts = entry.split(Pattern.quote(entry.indexOf('\\') >= 0 ? "\\" : "/"), -1);
    String name = String.join("/", Arrays.asList(parts).subList(1, parts.length));
    if (name.startsWith("/") || parts[0].equals("Chart.yaml")) {
      return null;
    }
    Deque<String> segments = new ArrayDeque<>();
    for (String segment : name.split("/", -1)) {
      if (segment.equals("..") && !segments.isEmpty() && !segments.peekLast().equals("..")) {
        segments.removeLast();
      } else if (!segment.isEmpty() && !segment.equals(".")) {
        segments.addLast(segment);
      }
    }
    String clean = String.join("/", segments);
    if (clean.isEmpty() || clean.startsWith("..") || clean.matches("(?s)[a-zA-Z]:/.*")) {
      return null;
    }
    return clean;
  }

  /**
   * Whether {@code name} is a values schema's name in a chart, as Helm's loader finds it: its own,
   * or a subchart's ({@code (charts/[^/]+/)*values.schema.json}).
   */
  static boolean schemaName(String name) {
    String file = "values.schema.json";
    return name.endsWith(file) && subchartFolders(name, name.length() - file.length());
  }

  /**
   * Whether {@code name} is a packaged subchart's name in a chart, which Helm's loader unpacks
   * ({@code (charts/[^/]+/)*charts/[^/]+.tgz}).
   */
  static boolean packagedName(String name) {
    int slash = name.lastIndexOf('/');
    return slash >= "charts".length()
        && name.endsWith(".tgz")
        && name.length() - slash - 1 > ".tgz".length()
        && name.startsWith("charts", slash - "charts".length())
        && subchartFolders(name, slash - "charts".length());
  }

  /**
   * Whether the first {@code end} characters of {@code name} are subcharts' folders, {@code
   * (charts/[^/]+/)*}. A loop rather than that pattern: Java matches a repeated group by recursing
   * once per repetition, and an archive's entry name may be 1 MiB long.
   */
  private static boolean subchartFolders(String name, int end) {
    int at = 0;
    while (at < end) {
      if (!name.startsWith("charts/", at)) {
        return false;
      }
      int slash = name.indexOf('/', at + "charts/".length());
      if (slash <= at + "charts/".length() || slash >= end) {
        return false;
      }
      at = slash + 1;
    }
    return true;
  }

  /** Reads one values schema, refusing its first reference outside it. */
  private static void schema(InputStream in, String file, String label) throws IOException {
    try (JsonParser json = JSON.createParser(unclosed(in))) {
      for (JsonToken t = json.nextToken(); t != null; t = json.nextToken()) {
        String key = json.currentName();
        if (t == JsonToken.VALUE_STRING
            && key != null
            && json.getParsingContext().inObject()
            && KEYWORDS.contains(key)
            && !local(json.getText())) {
          throw new ChartException(
              "chart "
                  + label
                  + ": "
                  + Escapes.escape(file)
                  + ": "
                  + Escapes.escape(json.getParsingContext().pathAsPointer().toString())
                  + " must refer within the schema (#...) or to a JSON Schema draft's"
                  + " meta-schema, since Helm would load any other from its URL or file: "
                  + Escapes.quote(json.getText())
                  + "; nothing was written");
        }
      }
    } catch (JacksonException e) {
      throw new ChartException(
          "chart "
              + label
              + ": "
              + Escapes.escape(file)
              + " is "
              + StrictDocuments.describe(e)
              + "; nothing was written",
          e);
    }
  }

  /** A fragment of the schema itself, or a draft's meta-schema (with a fragment or none). */
  static boolean local(String uri) {
    int hash = uri.indexOf('#');
    return hash == 0 || META_SCHEMAS.contains(hash < 0 ? uri : uri.substring(0, hash));
  }

  private static InputStream unclosed(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public void close() {
        // the archive's stream goes on past this entry
      }
    };
  }
}
