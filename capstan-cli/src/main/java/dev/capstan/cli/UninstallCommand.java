package dev.capstan.cli;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.result.UninstallResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code capstan release uninstall}. */
@Command(
    name = "uninstall",
    aliases = "delete",
    description = "Delete a release's objects in reverse order; keep a tombstone unless --purge.")
final class UninstallCommand extends ReleaseSubcommand {
  @Parameters(paramLabel = "NAME", description = "The release name.")
  String name = "";

  @Option(
      names = "--keep-volumes",
      description = "Keep every volume's data, whatever its reclaim policy.")
  boolean keepVolumes;

  @Option(names = "--purge", description = "Delete every record of the release too.")
  boolean purge;

  @Option(
      names = "--delete-crds",
      description =
          "Delete the release's CRDs too (deletes every custom resource of them, cluster-wide).")
  boolean deleteCrds;

  @Option(
      names = "--delete-namespaces",
      description =
          "Delete the namespaces the release ensures (its Namespace documents) too, with"
              + " everything in them, unless another release ensures one as well.")
  boolean deleteNamespaces;

  @Option(
      names = "--wait-for-deletion",
      description =
          "Wait until the deleted objects are gone (finalizers run), up to --timeout, as helm"
              + " uninstall --wait does (--wait queues behind another caster).")
  boolean waitForDeletion;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "How long --wait-for-deletion waits (default: 5m).")
  Duration timeout = Duration.ofMinutes(5);

  @Option(names = "--yes", description = "Do not ask for confirmation.")
  boolean yes;

  @Option(
      names = "--allow-hook",
      paramLabel = "KEY",
      description =
          "Let the record's delete hook of this object ([group/]Kind/namespace/name) run although"
              + " it is outside the release's namespace; repeatable. It is written with your"
              + " rights, and a record is as trusted as whoever may write the release's records.")
  List<String> allowHooks = new ArrayList<>();

  @Override
  int run(Target target, ReleaseController controller) {
    String ns = common.namespace();
    cli().announce(target);
    Optional<Release> found = controller.get(ns, name);
    ManagedReleases.warn(cli(), found.orElse(null), "uninstall");
    // the hooks it runs are listed (with --yes too) and those outside the namespace refused unless
    // named; an unknown release is refused under the uninstall's lease just the same
    List<ResourceRef> allowed = allowHooks.stream().map(ResourceRef::parse).toList();
    @Nullable HookPlan hooks = found.map(HookPlan::uninstall).orElse(null);
    if (hooks != null) {
      ReleaseOutput.review(hooks, "uninstall", allowed, !json(), out());
    }
    if (!yes) {
      Release latest = found.orElseThrow(() -> new ReleaseNotFoundException(ns + "/" + name, null));
      int n = requireNonNull(hooks).hooks().size();
      cli()
          .confirm(
              false,
              "Uninstall "
                  + ns
                  + "/"
                  + name
                  + " ("
                  + latest.owns().size()
                  + " object(s)"
                  + (n == 0 ? "" : ", running the " + n + " hook(s) listed")
                  + ") from the "
                  + target.describe()
                  + (purge ? " and delete its history" : "")
                  + ".");
    }
    UninstallResult u =
        controller.uninstall(
            ns,
            name,
            UninstallOptions.defaults()
                .withKeepVolumes(keepVolumes)
                .withPurge(purge)
                .withDeleteCrds(deleteCrds)
                .withDeleteNamespaces(deleteNamespaces)
                .withWait(waitForDeletion ? timeout : null)
                .withAllowedHooks(allowed));
    if (json()) {
      ObjectNode doc = ReleaseOutput.json().createObjectNode();
      ArrayNode deleted = doc.putArray("deleted");
      u.deleted().forEach(r -> deleted.add(r.key()));
      ArrayNode retained = doc.putArray("retained");
      u.retained().forEach(r -> retained.add(r.key()));
      ArrayNode notes = doc.putArray("notes");
      u.notes().forEach(notes::add);
      doc.put("purged", u.purged());
      if (hooks != null) {
        doc.set("hooks", ReleaseOutput.json(hooks));
      }
      doc.set("release", ReleaseOutput.json(u.release()));
      printJson(doc);
    } else {
      u.deleted().forEach(r -> out().println("deleted  " + r.key()));
      u.retained()
          .forEach(
              r ->
                  out()
                      .println(
                          "retained "
                              + r.key()
                              + (r.kind().isCrd()
                                  ? " (a CRD: kept with its custom resources; --delete-crds"
                                      + " deletes it)"
                                  : " (data kept)")));
      u.notes().forEach(line -> out().println("note     " + Escapes.escape(line)));
      out()
          .println(
              "Release "
                  + ns
                  + "/"
                  + name
                  + (u.purged()
                      ? " uninstalled and purged."
                      : " uninstalled (history kept; --purge removes it)."));
    }
    return ExitCode.OK;
  }
}
