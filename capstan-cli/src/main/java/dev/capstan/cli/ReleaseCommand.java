package dev.capstan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.OperationInProgress;
import dev.capstan.release.result.UninstallResult;
import dev.capstan.release.validate.ApiServerLimits;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code capstan release ...}: plan, cast, inspect, roll back and uninstall releases (subcommands
 * added by {@link CommandTree}).
 */
@Command(
    name = "release",
    description = "Plan, cast, inspect, roll back and uninstall releases.",
    mixinStandardHelpOptions = true)
final class ReleaseCommand implements Runnable {
  @ParentCommand @Nullable CapstanCommand root;

  @Override
  public void run() {
    root().cli.out().print(new picocli.CommandLine(this).getUsageMessage());
  }

  CapstanCommand root() {
    if (root == null) {
      throw new IllegalStateException("no parent command");
    }
    return root;
  }

  /** The output format. */
  enum Output {
    text,
    json,
    yaml
  }

  /**
   * Writes and deletes in flight at once: enough to hide a real API server's round trip (its
   * default client limits are far above), few enough not to crowd it.
   */
  static final int DEFAULT_PARALLELISM = 16;

  /** Options every release subcommand has. */
  static final class Common {
    @Option(
        names = {"-n", "--namespace"},
        paramLabel = "NAMESPACE",
        description =
            "The release's home namespace (default: the file's, else the kubeconfig context's,"
                + " else default).")
    @Nullable String namespace;

    @Option(
        names = {"-o", "--output"},
        paramLabel = "FORMAT",
        description = "text, json or yaml (default: text).")
    Output output = Output.text;

    @Option(
        names = "--parallelism",
        paramLabel = "N",
        description =
            "How many objects of one rank to write or delete at once (default: "
                + DEFAULT_PARALLELISM
                + ").")
    int parallelism = DEFAULT_PARALLELISM;

    @Option(
        names = "--delete-parallelism",
        paramLabel = "N",
        description =
            "How many objects of one rank to delete at once in an uninstall or prune (default: "
                + ReleaseController.DEFAULT_DELETE_PARALLELISM
                + "; 1 with --parallelism 1).")
    @Nullable Integer deleteParallelism;

    /** The namespace when no -n is given: the kubeconfig context's, else default. */
    String defaultNamespace = "default";

    /** {@code -n}, else {@link #defaultNamespace}. */
    String namespace() {
      return namespace == null ? defaultNamespace : namespace;
    }
  }

  /** Options of the subcommands that read a release file. */
  static final class FileOptions {
    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "NAME",
        description = "The release name (default: the release file's; required for manifests).")
    @Nullable String name;

    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE|DIR",
        description =
            "A release file, or plain Kubernetes manifests: a YAML/JSON file (multi-document),"
                + " a directory of them or a glob such as 'k8s/*.yaml'.")
    @Nullable Path file;

    @Option(
        names = "--release",
        paramLabel = "NAME",
        description = "The release name (same as NAME).")
    @Nullable String release;

    @Option(names = "--adopt", description = "Take ownership of existing objects no release owns.")
    boolean adopt;

    @Option(names = "--atomic", description = "On failure, revert this revision's changes.")
    boolean atomic;

    @Option(
        names = "--create-namespace",
        description =
            "Create referenced namespaces that do not exist, the release's own (which holds its"
                + " record and lease) included.")
    boolean createNamespace;

    @Option(
        names = "--allow-crd-deletion",
        description =
            "Let a prune delete CRDs the release no longer wants (deletes every custom resource"
                + " of them, cluster-wide).")
    boolean allowCrdDeletion;

    @Option(
        names = "--dangerous-allow-empty",
        description =
            "Let a file that holds no object (no spec, truncated, an empty directory) prune every"
                + " object the release owns; without it such a cast is refused (exit 2).")
    boolean dangerousAllowEmpty;

    @Option(
        names = "--allow-unsafe-crd-changes",
        description =
            "Apply a CRD change that breaks objects stored at it (a stored version no longer"
                + " served, the storage version changed without a path, a schema narrowed);"
                + " refused otherwise, before any write. A stored version removed stays refused.")
    boolean allowUnsafeCrdChanges;

    @Option(
        names = "--no-record-secret-values",
        description =
            "Keep Secrets' values out of the release record (it keeps their keys and keyed"
                + " hashes); a rollback to this revision then needs them again (--secrets).")
    boolean noRecordSecretValues;

    @Option(
        names = "--no-wait-for-load-balancer",
        description =
            "Count a LoadBalancer Service healthy once it exists, not once it has an address"
                + " (for a cluster without a load balancer controller).")
    boolean noWaitForLoadBalancer;
  }

  /** A command's session: the target, a controller printing progress, and the output. */
  abstract static class Sub implements java.util.concurrent.Callable<Integer> {
    @ParentCommand @Nullable ReleaseCommand parent;

    @Mixin Common common = new Common();

    @Option(
        names = "--lease-duration",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "How long the release's operation lease lasts without renewal; it is renewed every"
                + " third of that (default: 15s). A caster that dies blocks others this long.")
    @Nullable Duration leaseDuration;

    @Option(
        names = "--wait",
        paramLabel = "DURATION",
        arity = "0..1",
        fallbackValue = "5m",
        converter = Durations.class,
        description =
            "Queue behind another live caster of the release for up to DURATION (5m when no"
                + " value is given) instead of failing with exit code 4 (locked).")
    @Nullable Duration waitForLease;

    /** Shown each plan the controller makes while it casts (the cast's own, under its lease). */
    java.util.function.@Nullable Consumer<Plan> onPlanned;

    /** Writes done so far (for the reliability suite's hold hook, see {@link #testHold}). */
    private final java.util.concurrent.atomic.AtomicInteger writes =
        new java.util.concurrent.atomic.AtomicInteger();

    Cli cli() {
      if (parent == null) {
        throw new IllegalStateException("no parent command");
      }
      return parent.root().cli;
    }

    PrintStream out() {
      return cli().out();
    }

    @Override
    public Integer call() {
      if (common.parallelism < 1) {
        throw new IllegalArgumentException(
            "--parallelism must be at least 1: " + common.parallelism);
      }
      if (common.deleteParallelism != null && common.deleteParallelism < 1) {
        throw new IllegalArgumentException(
            "--delete-parallelism must be at least 1: " + common.deleteParallelism);
      }
      try (Target target = parent().root().target()) {
        common.defaultNamespace = target.defaultNamespace();
        ReleaseControllerBuilder builder =
            ReleaseController.builder(target.orchestrator(), target.store())
                .holder(LeaseHolders.onThisHost())
                .listener(this::progress)
                .parallelism(common.parallelism);
        if (common.deleteParallelism != null) {
          builder.deleteParallelism(common.deleteParallelism);
        }
        if (leaseDuration != null) {
          builder.leaseDuration(leaseDuration);
        }
        if (waitForLease != null) {
          builder.waitForLease(waitForLease);
        }
        target.onRetry(
            (request, attempt, delay, reason) ->
                cli()
                    .err()
                    .println(
                        "capstan: "
                            + Escapes.escape(
                                new ReleaseEvent.Retrying("", request, attempt, delay, reason)
                                    .describe())));
        return run(target, builder.build());
      }
    }

    private ReleaseCommand parent() {
      if (parent == null) {
        throw new IllegalStateException("no parent command");
      }
      return parent;
    }

    abstract int run(Target target, ReleaseController controller);

    private void progress(ReleaseEvent e) {
      java.util.function.Consumer<Plan> planned = onPlanned;
      if (e instanceof ReleaseEvent.Planned p && planned != null) {
        planned.accept(p.plan());
      }
      if (e instanceof ReleaseEvent.Done
          || e instanceof ReleaseEvent.Verifying
          || e instanceof ReleaseEvent.StillWaiting
          || e instanceof ReleaseEvent.Verified
          || e instanceof ReleaseEvent.Failed
          || e instanceof ReleaseEvent.Fenced
          || e instanceof ReleaseEvent.Reverted
          || e instanceof ReleaseEvent.Warning
          || e instanceof ReleaseEvent.RecordSaved
          || e instanceof ReleaseEvent.Retrying
          || e instanceof ReleaseEvent.WaitingForLease
          || (e instanceof ReleaseEvent.LeaseAcquired l && l.takenOver() != null)) {
        cli().err().println("capstan: " + e.release() + ": " + Escapes.escape(e.describe()));
      }
      if (e instanceof ReleaseEvent.Done d && d.action() != Action.REFERENCE) {
        testHold(writes.incrementAndGet());
      } else if (e instanceof ReleaseEvent.Started s
          && s.action() != Action.REFERENCE
          && writes.get() == 0) {
        testHold(0);
      }
    }

    /**
     * The reliability suite's deterministic fault point (testing/reliability/README.md): with
     * {@code CAPSTAN_TEST_HOLD_AFTER_WRITES=N}, the command stops after its Nth object write (a
     * namespace reference is no write), or with {@code 0} as its first object write starts (under
     * its lease, its plan final, its intent kept with the lease or recorded pending); it says so on
     * stderr and holds there until the file named by {@code CAPSTAN_TEST_RESUME_FILE} exists (for
     * ever without one), so the suite can kill -9 or SIGSTOP it at a known point, or release two
     * casters at once. An interrupt (the daemon stopping the command) ends the hold, and the cast
     * stops before its next write.
     */
    private void testHold(int done) {
      String after = cli().env().apply("CAPSTAN_TEST_HOLD_AFTER_WRITES");
      if (after == null || !after.equals(Integer.toString(done))) {
        return;
      }
      String resume = cli().env().apply("CAPSTAN_TEST_RESUME_FILE");
      cli().err().println("capstan: test hold after " + done + " writes");
      cli().err().flush();
      while (resume == null
          || !java.nio.file.Files.exists(cli().resolve(java.nio.file.Path.of(resume)))) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    /** Whether the output is a document (JSON or YAML) rather than text. */
    boolean json() {
      return common.output != Output.text;
    }

    /** Prints a document in the {@code -o} format: JSON, or the same tree as YAML. */
    void printJson(Object tree) {
      if (common.output == Output.yaml) {
        out().print(ReleaseOutput.yaml(tree));
        return;
      }
      try {
        out().println(ReleaseOutput.JSON.writeValueAsString(tree));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot render JSON", e);
      }
    }

    ReleaseFile load(FileOptions f) {
      Path given = java.util.Objects.requireNonNull(f.file, "file");
      Path file = cli().resolve(given);
      boolean glob = given.toString().chars().anyMatch(c -> "*?[{".indexOf(c) >= 0);
      if (!glob && !Files.exists(file)) {
        throw new IllegalArgumentException("-f: no such file: " + Escapes.quote(given));
      }
      if (!glob && !Files.isDirectory(file) && !Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "-f: "
                + Escapes.quote(given)
                + " is not a regular file (a device, pipe or socket); give a file or a directory");
      }
      if (f.name != null && f.release != null && !f.name.equals(f.release)) {
        throw new IllegalArgumentException(
            "NAME and --release name different releases: " + f.name + ", " + f.release);
      }
      Function<String, @Nullable String> env = cli().env();
      ReleaseFile release =
          ReleaseFiles.read(
              file,
              String.valueOf(given),
              new Overrides(
                  common.namespace, f.name != null ? f.name : f.release, common.defaultNamespace),
              env);
      List<String> problems = ApiServerLimits.check(release.payloads());
      if (!problems.isEmpty()) {
        // plan and cast alike: a plan the API server would refuse is not shown as applyable
        throw new InvalidReleaseException(release.namespace() + "/" + release.name(), problems);
      }
      return release;
    }

    static ReleaseSpec spec(ReleaseFile file, FileOptions f, Duration timeout) {
      return file.toSpec()
          .withOptions(
              file.options()
                  .withAdopt(f.adopt)
                  .withAtomic(f.atomic)
                  .withCreateNamespace(f.createNamespace)
                  .withAllowCrdDeletion(f.allowCrdDeletion)
                  .withRecordSecretValues(!f.noRecordSecretValues)
                  .withWaitForLoadBalancer(!f.noWaitForLoadBalancer)
                  .withDangerousAllowEmpty(f.dangerousAllowEmpty)
                  .withAllowUnsafeCrdChanges(
                      file.options().allowUnsafeCrdChanges() || f.allowUnsafeCrdChanges)
                  .withTimeout(timeout));
    }

    /** Prints a plan (text) and refuses it when it has conflicts. */
    void showPlan(Plan plan, boolean printText) {
      if (printText) {
        out().print(PlanRenderer.text(plan));
      }
      if (!plan.applyable()) {
        if (json()) {
          ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
          doc.set("plan", PlanRenderer.jsonTree(plan));
          printJson(doc);
        }
        throw new ReleaseConflictException(plan);
      }
    }
  }

  /** {@code capstan release plan}. */
  @Command(name = "plan", description = "Show what a cast would do, without changing anything.")
  static final class PlanCmd extends Sub {
    @Mixin FileOptions file = new FileOptions();

    @Option(names = "--show-unchanged", description = "List unchanged objects too.")
    boolean showUnchanged;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "The readiness timeout the saved plan is cast with (default: 15m).")
    Duration timeout = ReleaseOptions.DEFAULT_TIMEOUT;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description =
            "Save the plan (no secret value: only hashes) for 'release cast -f FILE --plan FILE',"
                + " which casts exactly it or refuses when something moved.")
    @Nullable Path outFile;

    @Override
    int run(Target target, ReleaseController controller) {
      ReleaseFile f = load(file);
      Plan plan = controller.planWithDiff(spec(f, file, timeout), f.payloads());
      if (json()) {
        printJson(PlanRenderer.jsonTree(plan));
      } else {
        out().print(PlanRenderer.text(plan, showUnchanged));
      }
      if (!plan.applyable()) {
        return ExitCode.BLOCKED;
      }
      Path given = outFile;
      if (given != null) {
        writePlan(given, plan);
        cli()
            .err()
            .println(
                "capstan: plan saved to "
                    + Escapes.quote(given)
                    + "; cast exactly it with: capstan release cast -f "
                    + Escapes.quote(file.file)
                    + " --plan "
                    + Escapes.quote(given));
      }
      return ExitCode.OK;
    }

    private void writePlan(Path given, Plan plan) {
      Path path = cli().resolve(given);
      try {
        Files.write(path, PlanCodec.encode(plan));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "--out: cannot write " + Escapes.quote(given) + ": " + e.getClass().getSimpleName(), e);
      }
    }
  }

  /** {@code capstan release cast}. */
  @Command(
      name = "cast",
      description =
          "Plan and apply a release file. Plans that prune or adopt need confirmation (--yes).")
  static final class CastCmd extends Sub {
    /**
     * How often a cast plans again when its own plan went stale while it waited for the lease (each
     * time another caster moved the release first).
     */
    private static final int MAX_REPLANS = 10;

    @Mixin FileOptions file = new FileOptions();

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

    @Option(
        names = "--diff",
        description =
            "With --yes, show the field-level diff of each change (a server-side dry run per"
                + " changed object) and cast that reviewed plan.")
    boolean diff;

    @Option(
        names = "--plan",
        paramLabel = "FILE",
        description =
            "Cast exactly this saved plan ('release plan --out'); refused, with nothing written,"
                + " when the release or a planned object changed since, or the files differ.")
    @Nullable Path planFile;

    @Override
    int run(Target target, ReleaseController controller) {
      ReleaseFile f = load(file);
      ReleaseSpec spec = spec(f, file, timeout);
      ManagedReleases.warn(
          cli(), controller.get(spec.namespace(), spec.name()).orElse(null), "cast");
      Path saved = planFile;
      if (yes && !diff && !dryRun && saved == null) {
        return castUnreviewed(controller, spec, f.payloads());
      }
      // the plan shown is the plan cast: one observation, no second planner run; field-level
      // diffs where a person reads the plan (text, or --dry-run), scripts pay nothing
      Plan plan =
          saved != null
              ? readPlan(saved, spec)
              : json() && !dryRun
                  ? controller.plan(spec, f.payloads())
                  : controller.planWithDiff(spec, f.payloads());
      showPlan(plan, !json());
      if (dryRun) {
        if (json()) {
          ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
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
          result = controller.cast(plan, f.payloads());
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
          plan =
              json()
                  ? controller.plan(spec, f.payloads())
                  : controller.planWithDiff(spec, f.payloads());
          showPlan(plan, !json());
          confirm(plan, target);
        }
      }
      printResult(result);
      return ExitCode.OK;
    }

    private void printResult(CastResult result) {
      if (json()) {
        ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
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
     * controller takes the lease, reads the record and observes once, plans, and casts that plan;
     * the plan is shown as it is made, before the first write.
     */
    private int castUnreviewed(ReleaseController controller, ReleaseSpec spec, Payloads payloads) {
      if (!json()) {
        onPlanned = plan -> out().print(PlanRenderer.text(plan));
      }
      CastResult result;
      try {
        result = controller.cast(spec, payloads);
      } catch (ReleaseConflictException e) {
        if (json()) {
          ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
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
     * Reads a saved plan and checks it is for the release of {@code -f}; the options that decide
     * only how a failure is handled and how long to wait ({@code --atomic}, {@code --timeout}) may
     * be given again, the others must be as planned.
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

  /** {@code capstan release get}. */
  @Command(name = "get", aliases = "status", description = "Show the latest revision of a release.")
  static final class GetCmd extends Sub {
    @Parameters(paramLabel = "NAME", description = "The release name.")
    String name = "";

    @Override
    int run(Target target, ReleaseController controller) {
      String ns = common.namespace();
      Optional<Release> found = controller.get(ns, name);
      Optional<OperationInProgress> now = controller.inProgress(ns, name);
      Instant at = Instant.now();
      if (found.isEmpty()) {
        // a first cast records its revision when it ends: until then its lease says it runs
        now.ifPresent(
            p ->
                cli()
                    .err()
                    .println(
                        "capstan: "
                            + Escapes.escape(ns + "/" + name)
                            + " has no recorded revision yet; "
                            + ReleaseOutput.inProgress(p, at)));
        throw new ReleaseNotFoundException(ns + "/" + name, null);
      }
      Release r = found.get();
      if (json()) {
        ObjectNode doc = ReleaseOutput.json(r);
        now.ifPresent(p -> doc.set("inProgress", ReleaseOutput.json(p, at)));
        printJson(doc);
      } else {
        out().print(ReleaseOutput.text(r, now.orElse(null), at));
      }
      return ExitCode.OK;
    }
  }

  /** {@code capstan release list}. */
  @Command(name = "list", aliases = "ls", description = "List the releases of a namespace.")
  static final class ListCmd extends Sub {
    @Option(names = "--all", description = "Include uninstalled releases (tombstones).")
    boolean all;

    @Override
    int run(Target target, ReleaseController controller) {
      List<Release> releases = controller.list(common.namespace(), all);
      if (json()) {
        printJson(ReleaseOutput.json(releases));
      } else {
        out().print(ReleaseOutput.table(releases));
      }
      return ExitCode.OK;
    }
  }

  /** {@code capstan release history}. */
  @Command(
      name = "history",
      description = "List the recorded revisions of a release, newest first.")
  static final class HistoryCmd extends Sub {
    @Parameters(paramLabel = "NAME", description = "The release name.")
    String name = "";

    @Override
    int run(Target target, ReleaseController controller) {
      String ns = common.namespace();
      List<Release> revisions = controller.history(ns, name);
      if (revisions.isEmpty()) {
        throw new ReleaseNotFoundException(ns + "/" + name, null);
      }
      if (json()) {
        printJson(ReleaseOutput.json(revisions));
      } else {
        out().print(ReleaseOutput.history(revisions));
      }
      return ExitCode.OK;
    }
  }

  /** {@code capstan release rollback}. */
  @Command(
      name = "rollback",
      description = "Cast a recorded revision's objects forward as a new revision.")
  static final class RollbackCmd extends Sub {
    @Parameters(paramLabel = "NAME", description = "The release name.")
    String name = "";

    @Option(
        names = "--to",
        paramLabel = "REVISION",
        description = "The revision to return to; 0 (the default) means the previous one.")
    int to;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

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
      Payloads given = Payloads.empty();
      if (secrets != null) {
        FileOptions f = new FileOptions();
        f.file = secrets;
        f.name = name;
        given = load(f).payloads();
      }
      ReleaseOptions options =
          ReleaseOptions.defaults()
              .withAdopt(adopt)
              .withAtomic(atomic)
              .withTimeout(timeout)
              .withWaitForLoadBalancer(!noWaitForLoadBalancer)
              .withAllowUnsafeCrdChanges(allowUnsafeCrdChanges);
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
      if (json()) {
        ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
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
      return ExitCode.OK;
    }
  }

  /** {@code capstan release uninstall}. */
  @Command(
      name = "uninstall",
      aliases = "delete",
      description = "Delete a release's objects in reverse order; keep a tombstone unless --purge.")
  static final class UninstallCmd extends Sub {
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
        description = "How long --wait waits (default: 5m).")
    Duration timeout = Duration.ofMinutes(5);

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Override
    int run(Target target, ReleaseController controller) {
      String ns = common.namespace();
      ManagedReleases.warn(cli(), controller.get(ns, name).orElse(null), "uninstall");
      if (!yes) {
        // the question names what goes; --yes asks nothing, and the uninstall reads the record
        // under its lease (an unknown release is refused there just the same)
        Release latest =
            controller
                .get(ns, name)
                .orElseThrow(() -> new ReleaseNotFoundException(ns + "/" + name, null));
        cli()
            .confirm(
                false,
                "Uninstall "
                    + ns
                    + "/"
                    + name
                    + " ("
                    + latest.owns().size()
                    + " object(s)) from the "
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
                  .withWait(waitForDeletion ? timeout : null));
      if (json()) {
        ObjectNode doc = ReleaseOutput.JSON.createObjectNode();
        ArrayNode deleted = doc.putArray("deleted");
        u.deleted().forEach(r -> deleted.add(r.key()));
        ArrayNode retained = doc.putArray("retained");
        u.retained().forEach(r -> retained.add(r.key()));
        ArrayNode notes = doc.putArray("notes");
        u.notes().forEach(notes::add);
        doc.put("purged", u.purged());
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
}
