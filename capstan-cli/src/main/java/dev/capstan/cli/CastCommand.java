package dev.capstan.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code capstan release cast}. */
@Command(
    name = "cast",
    description =
        "Plan and apply a release file, manifests or a Helm chart (--chart). Plans that prune or"
            + " adopt need confirmation (--yes).")
final class CastCommand extends ReleaseSubcommand {
  /**
   * How often a cast plans again when its own plan went stale while it waited for the lease (each
   * time another caster moved the release first).
   */
  private static final int MAX_REPLANS = 10;

  @Mixin FileOptions file = new FileOptions();

  @Mixin DeleteGateOptions gate = new DeleteGateOptions();

  @Mixin ChartOptions chart = new ChartOptions();

  @Option(names = "--dry-run", description = "Show the plan only.")
  boolean dryRun;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "How long to wait for services to be ready (default: 15m).")
  Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

  @Option(
      names = "--yes",
      description =
          "Do not ask for confirmation: the plan is made under the release's lease and cast"
              + " at once (one observation), and shown as it is made, without field diffs"
              + " unless --diff.")
  boolean yes;

  /** The help of {@code --diff}, which {@code rollback} takes too. */
  static final String DIFF_HELP =
      "With --yes, show the field-level diff of each change (a server-side dry run per"
          + " changed object) and cast that reviewed plan.";

  @Option(names = "--diff", description = DIFF_HELP)
  boolean diff;

  @Option(
      names = "--plan",
      paramLabel = "FILE",
      description =
          "Cast exactly this saved plan ('release plan --out'); refused, with nothing written,"
              + " when the release or a planned object changed since, or the files differ.")
  @Nullable Path planFile;

  @Option(
      names = "--supersede",
      description =
          "When another cast holds the release's lease, ask it to yield: it stops at its next"
              + " check (within a second while it waits for health, or before its next wave),"
              + " records its revision failed as superseded, and this cast takes the lease and"
              + " plans again (waiting up to --wait, 5m when not given). Not with --plan: the"
              + " yielded revision makes a saved plan stale.")
  boolean supersede;

  @Override
  void configure(ReleaseControllerBuilder builder, Target target) {
    if (!supersede) {
      return;
    }
    if (planFile != null) {
      throw new IllegalArgumentException(
          "--supersede with --plan: the cast that yields records a failed revision, which makes"
              + " the saved plan stale; cast the release file with --supersede, or wait for the"
              + " holder with --wait");
    }
    if (!target.store().carriesYieldRequests()) {
      // of the stores the command line opens, only the database (--store) carries none
      throw new IllegalArgumentException(
          "--supersede: the database store (--store) carries no request to yield a release's"
              + " lease; queue behind the cast holding it with --wait instead");
    }
    builder.askHoldersToYield(true);
    if (waitForLease == null) {
      builder.waitForLease(Duration.ofMinutes(5));
    }
  }

  @Override
  int run(Target target, ReleaseController controller) {
    ReleaseInput in = input(file, gate, chart, timeout, target, controller);
    ReleaseSpec spec = in.spec();
    Payloads payloads = in.payloads();
    Path saved = planFile;
    Plan reviewed = saved != null ? readPlan(saved, spec) : null;
    if (!dryRun) {
      cli().announce(target);
    }
    ManagedReleases.warn(cli(), controller.get(spec.namespace(), spec.name()).orElse(null), "cast");
    if (yes && !diff && !dryRun && saved == null) {
      return castUnreviewed(controller, spec, payloads);
    }
    // the plan shown is the plan cast: one observation, no second planner run; field-level
    // diffs where a person reads the plan (text, or --dry-run), scripts pay nothing
    Plan plan =
        reviewed != null
            ? reviewed
            : json() && !dryRun ? controller.plan(in) : controller.planWithDiff(in);
    showPlan(plan, !json());
    if (dryRun) {
      if (json()) {
        ObjectNode doc = ReleaseOutput.json().createObjectNode();
        doc.put("dryRun", true);
        doc.set("plan", PlanRenderer.jsonTree(plan));
        printJson(doc);
      } else {
        out().println("Dry run: nothing was applied.");
      }
      return ExitCode.OK;
    }
    confirm(plan, target);
    CastResult result;
    for (int replans = 0; ; replans++) {
      try {
        result = controller.cast(plan, payloads);
        break;
      } catch (StalePlanException stale) {
        // a plan this command made (not a reviewed --plan file) went stale because another
        // caster moved the release while this one waited for the lease, or a dead caster's
        // pending revision was recorded failed on takeover: plan again under what is now live
        if (saved != null || replans >= MAX_REPLANS) {
          throw stale;
        }
        cli()
            .err()
            .println(
                "capstan: "
                    + spec.qualifiedName()
                    + ": the release moved since the plan; planning again: "
                    + Escapes.escape(String.join("; ", stale.moved())));
        plan = json() ? controller.plan(in) : controller.planWithDiff(in);
        showPlan(plan, !json());
        confirm(plan, target);
      }
    }
    printResult(result);
    return ExitCode.OK;
  }

  private void printResult(CastResult result) {
    if (json()) {
      ObjectNode doc = ReleaseOutput.json().createObjectNode();
      doc.put("dryRun", false);
      doc.set("plan", PlanRenderer.jsonTree(result.plan()));
      doc.set("release", ReleaseOutput.json(result.release()));
      printJson(doc);
    } else {
      out()
          .println(
              "Release "
                  + result.release().qualifiedName()
                  + " revision "
                  + result.release().revision()
                  + " "
                  + result.release().status().id()
                  + ".");
    }
  }

  /**
   * {@code --yes} without {@code --diff}: nobody reviews the plan before it is cast, so the
   * controller takes the lease, reads the record and observes once, plans, and casts that plan; the
   * plan is shown as it is made, before the first write.
   */
  private int castUnreviewed(ReleaseController controller, ReleaseSpec spec, Payloads payloads) {
    if (!json()) {
      onPlanned = plan -> out().print(PlanRenderer.text(plan));
    }
    CastResult result;
    try {
      result = controller.cast(new ReleaseInput(spec, payloads));
    } catch (ReleaseConflictException e) {
      if (json()) {
        ObjectNode doc = ReleaseOutput.json().createObjectNode();
        doc.set("plan", PlanRenderer.jsonTree(e.plan()));
        printJson(doc);
      }
      throw e;
    }
    printResult(result);
    return ExitCode.OK;
  }

  /** Asks for confirmation when the plan deletes or takes over objects (unless --yes). */
  private void confirm(Plan plan, Target target) {
    if (plan.needsConfirmation()) {
      cli()
          .confirm(
              yes,
              "This plan "
                  + (plan.hasPrune() ? "deletes objects" : "takes ownership of existing objects")
                  + " on the "
                  + target.describe()
                  + ".");
    }
  }

  /**
   * Reads a saved plan and checks it is for the release of {@code -f}; the options that decide only
   * how a failure is handled and how long to wait ({@code --atomic}, {@code --timeout}) may be
   * given again, the others must be as planned.
   */
  private Plan readPlan(Path given, ReleaseSpec spec) {
    Plan plan =
        PlanCodec.decode(
            BoundedInput.read(cli().resolve(given), given.toString(), PlanCodec.MAX_BYTES));
    PlanFingerprint fingerprint = java.util.Objects.requireNonNull(plan.fingerprint());
    if (!fingerprint.spec().qualifiedName().equals(spec.qualifiedName())) {
      throw new IllegalArgumentException(
          "--plan "
              + Escapes.quote(given)
              + " is a plan of release "
              + fingerprint.spec().qualifiedName()
              + ", but -f gives release "
              + spec.qualifiedName());
    }
    ReleaseOptions planned = fingerprint.spec().options();
    ReleaseOptions requested = spec.options();
    return plan.withOptions(
        requested
            .withAtomic(requested.atomic() || planned.atomic())
            .withTimeout(
                timeout.equals(ReleaseOptions.DEFAULT_TIMEOUT) ? planned.timeout() : timeout));
  }
}
