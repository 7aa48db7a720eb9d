package dev.capstan.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.helm.HelmImport;
import dev.capstan.helm.HelmImportPlan;
import dev.capstan.helm.HelmImportResult;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code capstan release import-helm NAME -n NS}: takes a Helm 3 or 4 release over in place (see
 * {@link HelmImport}). Shows the plan and asks before the first write; never prints an object's
 * content, so the values of Helm-managed Secrets never show.
 */
@Command(
    name = "import-helm",
    description =
        "Take a Helm 3 or 4 release over as a Capstan release: adopt its live objects in place"
            + " (stamps only, no restarts), import its revisions as history, hand field ownership"
            + " from Helm to Capstan, on a Kubernetes cluster.")
final class ImportHelmCommand extends ReleaseSubcommand {
  @Parameters(index = "0", paramLabel = "NAME", description = "The Helm release's name.")
  @Nullable String name;

  @Option(
      names = "--remove-helm-records",
      description =
          "Delete Helm's release records after the import (helm no longer lists the release);"
              + " by default they stay, so a return to Helm stays possible.")
  boolean removeHelmRecords;

  @Option(names = "--dry-run", description = "Show the plan only.")
  boolean dryRun;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "How long to wait for the adopted objects to be ready (default: 15m).")
  Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

  @Option(names = "--yes", description = "Do not ask for confirmation.")
  boolean yes;

  @Override
  int run(Target target, ReleaseController controller) {
    if (!(target instanceof KubernetesTarget kube)) {
      throw new IllegalArgumentException(
          "import-helm reads Helm's records from a Kubernetes cluster, not the "
              + target.describe()
              + ": pass --kubeconfig FILE");
    }
    String release = java.util.Objects.requireNonNull(name, "name");
    String namespace = common.namespace();
    HelmImport importer =
        HelmImport.of(kube.clients(), target.orchestrator(), target.store(), controller);
    HelmImportPlan plan = importer.plan(namespace, release).withTimeout(timeout);
    if (!json()) {
      out().print(plan.render());
      out()
          .println(
              removeHelmRecords
                  ? "Helm records: removed after the cast (helm will no longer list the release)"
                  : "Helm records: kept (helm still lists the release; see docs/helm.md)");
    }
    showPlan(plan.plan(), false);
    if (dryRun) {
      if (json()) {
        printJson(planJson(plan));
      } else {
        out().println("Dry run: nothing was written.");
      }
      return ExitCode.OK;
    }
    cli().announce(target);
    cli()
        .confirm(
            yes,
            "This import takes ownership of "
                + plan.adopted().size()
                + " objects of Helm release "
                + namespace
                + "/"
                + release
                + (removeHelmRecords ? " and deletes Helm's records" : "")
                + " on the "
                + target.describe()
                + ".");
    HelmImportResult result = importer.run(plan, removeHelmRecords);
    if (json()) {
      ObjectNode doc = planJson(plan);
      doc.set("release", ReleaseOutput.json(result.cast().release()));
      ArrayNode handed = doc.putArray("handedOver");
      result.handedOver().forEach((ref, entries) -> handed.add(ref.key()));
      ArrayNode removed = doc.putArray("removedRecords");
      result.removedRecords().forEach(removed::add);
      putHooks(doc, result.hooks()); // as the import left them
      printJson(doc);
      return ExitCode.OK;
    }
    out()
        .println(
            "Imported Helm revisions "
                + (result.importedRevisions().isEmpty()
                    ? "(recorded by an earlier run)"
                    : join(result.importedRevisions()))
                + " as history; cast "
                + namespace
                + "/"
                + release
                + " revision "
                + result.cast().release().revision()
                + ": "
                + plan.adopted().size()
                + " adopted, "
                + plan.missing().size()
                + " created.");
    out()
        .println(
            "Field ownership: Helm's field manager removed from "
                + result.handedOver().size()
                + " objects ("
                + result.handedOver().values().stream()
                    .flatMap(List::stream)
                    .distinct()
                    .sorted()
                    .collect(Collectors.joining(", "))
                + "); Capstan's apply owns what it sets.");
    hookLines(result.hooks()).forEach(out()::println);
    out()
        .println(
            result.removedRecords().isEmpty()
                ? "Helm records kept: " + plan.revisions().size() + "."
                : "Helm records removed: " + result.removedRecords().size() + ".");
    return ExitCode.OK;
  }

  /**
   * What the import did with the hook objects: a count of those marked as the release's, left as
   * they are and absent, then one line per object left as it is, saying why; none when the release
   * has no hooks.
   */
  static List<String> hookLines(List<HelmImportPlan.HookObject> hooks) {
    if (hooks.isEmpty()) {
      return List.of();
    }
    List<HelmImportPlan.HookObject> left =
        hooks.stream().filter(h -> h.leftAsIs() != null).toList();
    long marked = hooks.stream().filter(HelmImportPlan.HookObject::marked).count();
    List<String> lines = new java.util.ArrayList<>();
    lines.add(
        "Hook objects: "
            + marked
            + " marked as this release's, "
            + left.size()
            + " left as "
            + (left.size() == 1 ? "it is" : "they are")
            + ", "
            + (hooks.size() - marked - left.size())
            + " absent.");
    left.forEach(h -> lines.add("  · " + h.ref().key() + ": " + h.leftAsIs()));
    return lines;
  }

  private ObjectNode planJson(HelmImportPlan plan) {
    ObjectNode doc = ReleaseOutput.json().createObjectNode();
    doc.put("helmRevision", plan.deployed().revision());
    doc.put("chart", plan.deployed().chart());
    ArrayNode history = doc.putArray("importedRevisions");
    plan.revisions().forEach(r -> history.add(r.revision()));
    doc.put("castRevision", plan.castRevision());
    ArrayNode adopted = doc.putArray("adopt");
    plan.adopted().stream().map(ResourceRef::key).forEach(adopted::add);
    ArrayNode missing = doc.putArray("missing");
    plan.missing().stream().map(ResourceRef::key).forEach(missing::add);
    putHooks(doc, plan.hooks());
    return doc;
  }

  /**
   * {@code hooks}: each hook object, whether present, its events, whether it is (to be) marked as
   * the release's and, when not, why it is left as it is.
   */
  private static void putHooks(ObjectNode doc, List<HelmImportPlan.HookObject> objects) {
    ArrayNode hooks = doc.putArray("hooks");
    for (HelmImportPlan.HookObject h : objects) {
      ObjectNode hook = hooks.addObject();
      hook.put("object", h.ref().key());
      hook.put("present", h.present());
      ArrayNode events = hook.putArray("events");
      h.events().forEach(events::add);
      hook.put("marked", h.marked());
      if (h.leftAsIs() != null) {
        hook.put("leftAsIs", h.leftAsIs());
      }
    }
  }

  private static String join(List<Integer> revisions) {
    return revisions.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }
}
