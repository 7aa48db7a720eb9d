package dev.capstan.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code capstan release rollback}. */
@Command(
    name = "rollback",
    description = "Cast a recorded revision's objects forward as a new revision.")
final class RollbackCommand extends ReleaseSubcommand {
  @Parameters(paramLabel = "NAME", description = "The release name.")
  String name = "";

  @Mixin DeleteGateOptions gate = new DeleteGateOptions();

  @Option(
      names = "--to",
      paramLabel = "REVISION",
      description = "The revision to return to; 0 (the default) means the previous one.")
  int to;

  @Option(names = "--yes", description = "Do not ask for confirmation.")
  boolean yes;

  @Option(names = "--diff", description = CastCommand.DIFF_HELP)
  boolean diff;

  @Option(
      names = "--secrets",
      paramLabel = "FILE|DIR",
      description =
          "The Secrets whose values the revision did not record (cast with"
              + " --no-record-secret-values), given again: a release file or manifests.")
  @Nullable Path secrets;

  @Option(names = "--adopt", description = "Take ownership of existing objects no release owns.")
  boolean adopt;

  @Option(names = "--atomic", description = "On failure, revert this revision's changes.")
  boolean atomic;

  @Option(
      names = "--allow-unsafe-crd-changes",
      description =
          "Roll back across a CRD change that breaks objects stored at it (a stored version no"
              + " longer served, the storage version changed without a path, a schema"
              + " narrowed); refused otherwise, before any write. A stored version removed stays"
              + " refused.")
  boolean allowUnsafeCrdChanges;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "How long to wait for the objects to be ready (default: 15m).")
  Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

  @Option(
      names = "--no-wait-for-load-balancer",
      description =
          "Count a LoadBalancer Service healthy once it exists, not once it has an address.")
  boolean noWaitForLoadBalancer;

  @Override
  int run(Target target, ReleaseController controller) {
    String ns = common.namespace();
    if (to < 0) {
      throw new IllegalArgumentException(
          "--to must be a revision number, or 0 for the previous one: " + to);
    }
    cli().announce(target);
    Payloads given = Payloads.empty();
    if (secrets != null) {
      FileOptions f = new FileOptions();
      f.files.add(secrets);
      f.name = name;
      given = load(f).payloads();
    }
    ReleaseOptions options =
        ReleaseOptions.defaults()
            .withAdopt(adopt)
            .withAtomic(atomic)
            .withTimeout(timeout)
            .withWaitForLoadBalancer(!noWaitForLoadBalancer)
            .withAllowUnsafeCrdChanges(allowUnsafeCrdChanges)
            .withDeleteGate(gate.deleteGate(DeleteGate.defaults()));
    if (yes && !diff) {
      return rollbackUnreviewed(controller, options, given);
    }
    List<Release> revisions = controller.history(ns, name);
    if (revisions.isEmpty()) {
      throw new ReleaseNotFoundException(ns + "/" + name, null);
    }
    ManagedReleases.warn(cli(), revisions.get(0), "rollback");
    int revision;
    if (to == 0) {
      if (revisions.size() < 2) {
        throw new ReleaseNotFoundException(ns + "/" + name, revisions.get(0).revision() - 1);
      }
      revision = revisions.get(1).revision();
    } else {
      revision = to;
    }
    Release revisionTo =
        revisions.stream()
            .filter(r -> r.revision() == revision)
            .findFirst()
            .orElseThrow(() -> new ReleaseNotFoundException(ns + "/" + name, revision));
    // a revision recorded without its Secrets' values plans without diffs (their values come
    // with --secrets) and casts through rollback, which checks them against the record
    boolean withheld = !revisionTo.withheldSecrets().isEmpty();
    Plan plan =
        json() || withheld
            ? controller.planRollback(ns, name, revision, options)
            : controller.planRollbackWithDiff(ns, name, revision, options);
    Payloads payloads = revisionTo.payloads();
    showPlan(plan, !json());
    if (plan.needsConfirmation()) {
      cli()
          .confirm(
              yes,
              "Roll "
                  + ns
                  + "/"
                  + name
                  + " back to revision "
                  + revision
                  + " on the "
                  + target.describe()
                  + ".");
    }
    // the plan shown is the plan cast: refused, with nothing written, if anything moved since;
    // a revision recorded without Secret values is cast from them, given again
    CastResult result =
        secrets == null && !withheld
            ? controller.cast(plan, payloads)
            : controller.rollback(ns, name, revision, options, given);
    printResult(result, revision);
    return ExitCode.OK;
  }

  /**
   * {@code --yes} without {@code --diff}: nobody reviews the plan before it is cast, so the
   * controller rolls back at once (the lease taken, the record read and the objects observed once
   * under it, the plan shown as it is made, before the first write), as {@code cast --yes} does.
   * Only the latest record is read before it, and only the revision returned to besides, in the
   * rollback: a history of large records is not decoded whole (the previous revision, for {@code
   * --to 0}, is the latest's number less one, as Helm's {@code rollback} takes it).
   */
  private int rollbackUnreviewed(
      ReleaseController controller, ReleaseOptions options, Payloads given) {
    String ns = common.namespace();
    Release latest =
        controller
            .get(ns, name)
            .orElseThrow(() -> new ReleaseNotFoundException(ns + "/" + name, null));
    ManagedReleases.warn(cli(), latest, "rollback");
    int revision = to == 0 ? latest.revision() - 1 : to;
    if (revision < 1) {
      throw new ReleaseNotFoundException(ns + "/" + name, revision);
    }
    if (!json()) {
      onPlanned = plan -> out().print(PlanRenderer.text(plan));
    }
    printResult(controller.rollback(ns, name, revision, options, given), revision);
    return ExitCode.OK;
  }

  private void printResult(CastResult result, int revision) {
    if (json()) {
      ObjectNode doc = ReleaseOutput.json().createObjectNode();
      doc.set("plan", PlanRenderer.jsonTree(result.plan()));
      doc.set("release", ReleaseOutput.json(result.release()));
      printJson(doc);
    } else {
      out()
          .println(
              "Release "
                  + result.release().qualifiedName()
                  + " rolled back to revision "
                  + revision
                  + " as revision "
                  + result.release().revision()
                  + ".");
    }
  }
}
