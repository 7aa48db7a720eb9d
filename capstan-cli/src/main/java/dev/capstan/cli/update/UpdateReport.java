package dev.capstan.cli.update;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.JsonMappers;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadResult;
import dev.capstan.update.result.WorkloadStatus;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Renders plans and results as text or JSON: the update command's output. */
final class UpdateReport {

  private static final ObjectMapper MAPPER = JsonMappers.trees();
  private static final DefaultIndenter INDENT = new DefaultIndenter("  ", "\n");
  private static final ObjectWriter WRITER =
      MAPPER.writer(
          new DefaultPrettyPrinter()
              .withSeparators(
                  Separators.createDefaultInstance()
                      .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                      .withObjectEmptySeparator("")
                      .withArrayEmptySeparator(""))
              .withObjectIndenter(INDENT)
              .withArrayIndenter(INDENT));

  private UpdateReport() {}

  /**
   * Renders a plan as text: header lines, the component table, then the image builds, CRDs,
   * warnings and what is preserved.
   *
   * @param plan the plan
   * @return the text, ending with a newline
   */
  static String text(UpdatePlan plan) {
    StringBuilder sb = new StringBuilder();
    header(sb, "Kube context:", plan.cluster().context());
    header(sb, "API server:", plan.cluster().server());
    header(sb, "Cluster ID:", plan.cluster().clusterId());
    header(sb, "Manifest:", plan.manifestSource());
    header(sb, "Version:", dash(plan.installedVersion()) + " -> " + plan.targetVersion());
    if (plan.applyCrds()) {
      header(
          sb,
          "CRDs:",
          "apply "
              + plan.crdNames().size()
              + " CustomResourceDefinition(s) before image rollouts: "
              + String.join(", ", plan.crdNames()));
    }
    sb.append('\n');
    TextTable rows =
        new TextTable("COMPONENT", "WORKLOAD", "ACTION", "CURRENT", "TARGET", "REASON");
    for (PlanRow r : plan.rows()) {
      rows.row(
          r.notes().stream().map(n -> "note: " + n).toList(),
          r.component(),
          r.namespace().isEmpty() ? "" : r.namespace() + "/" + r.deployment(),
          r.action().label(),
          r.currentImage(),
          r.targetImage(),
          Wording.reason(r.reason()));
    }
    rows.appendTo(sb);
    if (!plan.imageBuilds().isEmpty()) {
      sb.append("\nImages (--build):\n");
      TextTable images = new TextTable("COMPONENT", "IMAGE", "ACTION", "REASON");
      for (ImageBuildAction b : plan.imageBuilds()) {
        images.row(b.component(), b.image(), b.action().label(), b.reason());
      }
      images.appendTo(sb);
    }
    if (!plan.crdPreview().isEmpty()) {
      sb.append("\nCustomResourceDefinitions:\n");
      boolean reasons = plan.crdPreview().stream().anyMatch(c -> !Wording.reason(c).isEmpty());
      TextTable crds =
          reasons ? new TextTable("CRD", "ACTION", "REASON") : new TextTable("CRD", "ACTION");
      for (CrdResult c : plan.crdPreview()) {
        if (reasons) {
          crds.row(c.name(), c.action(), Wording.reason(c));
        } else {
          crds.row(c.name(), c.action());
        }
      }
      crds.appendTo(sb);
    }
    list(sb, "Warnings:", warnings(plan));
    list(sb, "Preserved (never modified by update):", plan.preserved());
    return sb.toString();
  }

  /**
   * Renders the recovery commands of a plan, known before anything runs: per workload the plan
   * patches, in rollout order, the commands that restore the images it runs now. Empty when the
   * plan patches nothing.
   *
   * @param plan the plan
   * @return the text, ending with a newline, or empty
   */
  static String recoveryText(UpdatePlan plan) {
    Map<Workload, List<String>> recovery = UpdateApplier.recoveryCommands(plan);
    if (recovery.isEmpty()) {
      return "";
    }
    StringBuilder sb =
        new StringBuilder("\nRecovery commands, should this update need undoing by hand:\n");
    recovery.forEach(
        (w, commands) -> {
          sb.append("  # ").append(w.key()).append('\n');
          commands.forEach(c -> sb.append("  ").append(c).append('\n'));
        });
    return sb.toString();
  }

  /**
   * Renders a result as text: the CRD table, the workload table and, when the update failed, the
   * recovery commands of every workload that was reached.
   *
   * @param result the result
   * @return the text, ending with a newline
   */
  static String text(UpdateResult result) {
    StringBuilder sb = new StringBuilder("Update result:\n");
    if (!result.crds().isEmpty()) {
      TextTable crds = new TextTable("CRD", "ACTION", "DETAIL");
      for (CrdResult c : result.crds()) {
        crds.row(c.name(), c.action(), c.error());
      }
      crds.appendTo(sb);
      sb.append('\n');
    }
    TextTable workloads = new TextTable("WORKLOAD", "COMPONENTS", "STATUS", "DETAIL");
    for (WorkloadResult w : result.workloads()) {
      workloads.row(
          w.workload().key(), String.join(",", w.components()), w.status().label(), w.error());
    }
    workloads.appendTo(sb);
    if (result.failed()) {
      List<WorkloadResult> reached =
          result.workloads().stream()
              .filter(w -> w.status() != WorkloadStatus.NOT_ATTEMPTED)
              .toList();
      if (!reached.isEmpty()) {
        sb.append("\nManual recovery commands (restore the images recorded before this update):\n");
        for (WorkloadResult w : reached) {
          sb.append("  # ").append(w.workload().key()).append(" (").append(w.status().label());
          sb.append(")\n");
          for (String command : w.recovery()) {
            sb.append("  ").append(command).append('\n');
          }
        }
      }
    }
    return sb.toString();
  }

  /**
   * Renders a plan, then its result when there is one, separated by a blank line.
   *
   * @param plan the plan
   * @param result the result, or null before (or without) an apply
   * @return the text
   */
  static String text(UpdatePlan plan, @Nullable UpdateResult result) {
    return result == null ? text(plan) : text(plan) + "\n" + text(result);
  }

  /**
   * Renders the JSON report: one indented object {@code {"dryRun", "plan", "result"}}, the result
   * left out when null. A dry run's plan also lists its recovery commands ({@code "recovery": [{
   * "namespace", "deployment", "commands"}]}, see {@link #recoveryText}).
   *
   * @param dryRun whether this was a dry run
   * @param plan the plan
   * @param result the result, or null
   * @return the JSON document, ending with a newline
   */
  static String json(boolean dryRun, UpdatePlan plan, @Nullable UpdateResult result) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("dryRun", dryRun);
    ObjectNode planNode = plan(plan);
    if (dryRun) {
      Map<Workload, List<String>> recovery = UpdateApplier.recoveryCommands(plan);
      if (!recovery.isEmpty()) {
        ArrayNode array = planNode.putArray("recovery");
        recovery.forEach(
            (w, commands) -> {
              ObjectNode e = array.addObject();
              e.put("namespace", w.namespace());
              e.put("deployment", w.deployment());
              putStrings(e, "commands", commands, true);
            });
      }
    }
    root.set("plan", planNode);
    if (result != null) {
      root.set("result", result(result));
    }
    try {
      return WRITER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectNode plan(UpdatePlan plan) {
    ObjectNode n = MAPPER.createObjectNode();
    ObjectNode cluster = n.putObject("cluster");
    cluster.put("context", plan.cluster().context());
    cluster.put("server", plan.cluster().server());
    cluster.put("clusterID", plan.cluster().clusterId());
    n.put("manifestSource", plan.manifestSource());
    n.put("targetVersion", plan.targetVersion());
    putNonEmpty(n, "installedVersion", plan.installedVersion());
    if (plan.applyCrds()) {
      n.put("applyCRDs", true);
    }
    putStrings(n, "crdNames", plan.crdNames(), false);
    putCrds(n, "crdPreview", plan.crdPreview());
    if (!plan.imageBuilds().isEmpty()) {
      ArrayNode builds = n.putArray("imageBuilds");
      for (ImageBuildAction b : plan.imageBuilds()) {
        ObjectNode e = builds.addObject();
        e.put("component", b.component());
        e.put("image", b.image());
        e.put("action", b.action().label());
        putNonEmpty(e, "reason", b.reason());
      }
    }
    ArrayNode rows = n.putArray("components");
    for (PlanRow r : plan.rows()) {
      ObjectNode e = rows.addObject();
      e.put("component", r.component());
      putNonEmpty(e, "namespace", r.namespace());
      putNonEmpty(e, "deployment", r.deployment());
      putNonEmpty(e, "container", r.container());
      putNonEmpty(e, "envVar", r.envVar());
      putNonEmpty(e, "currentImage", r.currentImage());
      putNonEmpty(e, "currentDigest", r.currentDigest());
      putNonEmpty(e, "targetImage", r.targetImage());
      putNonEmpty(e, "currentVersion", r.currentVersion());
      putNonEmpty(e, "targetVersion", r.targetVersion());
      e.put("action", r.action().label());
      putNonEmpty(e, "reason", Wording.reason(r.reason()));
      putStrings(e, "notes", r.notes(), false);
    }
    putStrings(n, "preservedResources", plan.preserved(), true);
    putStrings(n, "warnings", warnings(plan), false);
    return n;
  }

  private static ObjectNode result(UpdateResult result) {
    ObjectNode n = MAPPER.createObjectNode();
    putCrds(n, "crds", result.crds());
    ArrayNode workloads = n.putArray("workloads");
    for (WorkloadResult w : result.workloads()) {
      ObjectNode e = workloads.addObject();
      e.put("namespace", w.workload().namespace());
      e.put("deployment", w.workload().deployment());
      putStrings(e, "components", w.components(), true);
      e.put("status", w.status().label());
      putNonEmpty(e, "error", w.error());
      putStrings(e, "recovery", w.recovery(), false);
    }
    n.put("failed", result.failed());
    return n;
  }

  private static List<String> warnings(UpdatePlan plan) {
    return plan.warnings().stream().map(Wording::warning).toList();
  }

  private static void putCrds(ObjectNode n, String field, List<CrdResult> crds) {
    if (crds.isEmpty()) {
      return;
    }
    ArrayNode array = n.putArray(field);
    for (CrdResult c : crds) {
      ObjectNode e = array.addObject();
      e.put("name", c.name());
      putNonEmpty(e, "action", c.action());
      putNonEmpty(e, "error", c.error());
      putNonEmpty(e, "reason", Wording.reason(c));
    }
  }

  private static void putNonEmpty(ObjectNode n, String field, String value) {
    if (!value.isEmpty()) {
      n.put(field, value);
    }
  }

  private static void putStrings(ObjectNode n, String field, List<String> values, boolean always) {
    if (values.isEmpty() && !always) {
      return;
    }
    ArrayNode array = n.putArray(field);
    values.forEach(array::add);
  }

  private static void header(StringBuilder sb, String label, String value) {
    sb.append(String.format("%-14s%s", label, dash(value))).append('\n');
  }

  private static void list(StringBuilder sb, String title, List<String> lines) {
    if (lines.isEmpty()) {
      return;
    }
    sb.append('\n').append(title).append('\n');
    for (String line : lines) {
      sb.append("  - ").append(line).append('\n');
    }
  }

  private static String dash(String s) {
    return s.isEmpty() ? "-" : s;
  }
}
