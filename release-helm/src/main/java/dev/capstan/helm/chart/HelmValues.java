package dev.capstan.helm.chart;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.capstan.common.JsonMappers;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartOutputTooLargeException;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.RenderLimits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The caller's values as Helm takes them: files written to the workspace (never on a command line),
 * {@code --set} and {@code --set-string} as given, {@code --set-file} contents written to files;
 * and the values as Helm merges them, read back from Helm itself.
 */
final class HelmValues {
  /** A chart of one template printing its values as JSON: Helm's own merge of the caller's. */
  private static final String CHART_YAML =
      "apiVersion: v2\nname: capstan-values\nversion: 0.0.0\ndescription: the caller's values\n";

  private static final String TEMPLATE = "{{ toJson .Values }}\n";

  private HelmValues() {}

  /** A parser of {@code json} that builds no more than {@code limits}' nodes. */
  private static JsonParser parser(String json, RenderLimits limits) throws IOException {
    return JsonMappers.boundedTo(JsonMappers.trees().getFactory(), limits.maxValueNodes())
        .createParser(json);
  }

  /** The value flags of {@code helm template}, files written to {@code ws}. */
  static List<String> args(ChartValues values, Workspace ws) {
    List<String> args = new ArrayList<>();
    int i = 0;
    for (ChartValues.File f : values.files()) {
      args.add("--values");
      args.add(ws.write("values/" + i++ + ".yaml", f.content()).toString());
    }
    for (String e : values.set()) {
      args.add("--set");
      args.add(e);
    }
    for (String e : values.setString()) {
      args.add("--set-string");
      args.add(e);
    }
    int j = 0;
    for (ChartValues.KeyFile f : values.setFile()) {
      args.add("--set-file");
      args.add(f.key() + "=" + ws.write("set-file/" + j++, f.content()));
    }
    return args;
  }

  /**
   * The values {@code args} give, merged by Helm (files in order, then {@code --set}, {@code
   * --set-string}, {@code --set-file}), without any chart's defaults, in the time {@code deadline}
   * leaves.
   */
  static Map<String, Object> merged(
      HelmProcess helm,
      Workspace ws,
      Map<String, String> env,
      List<String> args,
      String label,
      Deadline deadline,
      RenderLimits limits) {
    if (args.isEmpty()) {
      return Map.of();
    }
    ws.write("values-chart/Chart.yaml", CHART_YAML);
    ws.write("values-chart/templates/values.json", TEMPLATE);
    List<String> command =
        new ArrayList<>(
            List.of("template", "values", ws.root().resolve("values-chart").toString()));
    command.addAll(args);
    HelmProcess.Result r = helm.run(command, env, ws, deadline, limits.maxOutputBytes());
    if (r.exitCode() != 0) {
      throw new ChartException(
          "chart " + label + ": the values do not merge: " + r.reason() + "; nothing was written");
    }
    int start = r.out().indexOf('{');
    if (start < 0) {
      throw new ChartException(
          "chart " + label + ": helm printed no values back; nothing was written");
    }
    try (JsonParser parser = parser(r.out().substring(start), limits)) {
      return JsonMappers.trees().readValue(parser, new TypeReference<Map<String, Object>>() {});
    } catch (StreamConstraintsException e) {
      throw ChartOutputTooLargeException.values(label, limits);
    } catch (IOException e) {
      throw new ChartException(
          "chart "
              + label
              + ": cannot read the values helm merged back: "
              + e.getClass().getSimpleName(),
          e);
    }
  }
}
