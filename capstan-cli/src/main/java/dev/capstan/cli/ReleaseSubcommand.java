package dev.capstan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.health.HealthRule;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.file.HealthRuleDocs;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** A command's session: the target, a controller printing progress, and the output. */
abstract class ReleaseSubcommand implements java.util.concurrent.Callable<Integer> {
  @ParentCommand @Nullable ReleaseCommand parent;

  @Mixin CommonOptions common = new CommonOptions();

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

  /**
   * The {@code -o} formats this command prints: text, json and yaml; {@code release list} and
   * {@code release get} add theirs.
   */
  java.util.Set<ReleaseCommand.Output> outputs() {
    return java.util.EnumSet.of(
        ReleaseCommand.Output.text, ReleaseCommand.Output.json, ReleaseCommand.Output.yaml);
  }

  @Override
  public Integer call() {
    if (!outputs().contains(common.output)) {
      throw new IllegalArgumentException(
          "-o "
              + common.output
              + ": this command prints "
              + String.join(", ", outputs().stream().map(Enum::name).toList())
              + "; only release list prints name and wide, and release get name");
    }
    if (common.namespace != null) {
      try {
        ResourceRef.namespace(common.namespace); // one line for a bad -n, not one per object
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("-n: " + e.getMessage(), e);
      }
    }
    if (common.parallelism < 1) {
      throw new IllegalArgumentException("--parallelism must be at least 1: " + common.parallelism);
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
      configure(builder, target);
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

  /** What a command adds to its controller's settings before it is built (nothing by default). */
  void configure(ReleaseControllerBuilder builder, Target target) {}

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
        || e instanceof ReleaseEvent.HookWaiting
        || e instanceof ReleaseEvent.StillWaiting
        || e instanceof ReleaseEvent.Verified
        || e instanceof ReleaseEvent.Failed
        || e instanceof ReleaseEvent.Fenced
        || e instanceof ReleaseEvent.Reverted
        || e instanceof ReleaseEvent.Warning
        || e instanceof ReleaseEvent.RecordSaved
        || e instanceof ReleaseEvent.Retrying
        || e instanceof ReleaseEvent.WaitingForLease
        || e instanceof ReleaseEvent.AskedToYield
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
   * The reliability suite's deterministic fault point (testing/reliability/README.md): with {@code
   * CAPSTAN_TEST_HOLD_AFTER_WRITES=N}, the command stops after its Nth object write (a namespace
   * reference is no write), or with {@code 0} as its first object write starts (under its lease,
   * its plan final, its intent kept with the lease or recorded pending); it says so on stderr and
   * holds there until the file named by {@code CAPSTAN_TEST_RESUME_FILE} exists (for ever without
   * one), so the suite can kill -9 or SIGSTOP it at a known point, or release two casters at once.
   * An interrupt (the daemon stopping the command) ends the hold, and the cast stops before its
   * next write.
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
    return common.output == ReleaseCommand.Output.json
        || common.output == ReleaseCommand.Output.yaml;
  }

  /** Prints a document in the {@code -o} format: JSON, or the same tree as YAML. */
  void printJson(Object tree) {
    if (common.output == ReleaseCommand.Output.yaml) {
      out().print(ReleaseOutput.yaml(tree));
      return;
    }
    try {
      out().println(ReleaseOutput.json().writeValueAsString(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON", e);
    }
  }

  /**
   * What a cast or plan casts: the release file or manifests of {@code -f}, or the chart of {@code
   * --chart} rendered for the target ({@code -f} then names values files), with the options of the
   * command line over the file's. The engine checks it (the API server's limits among the rest)
   * before it plans, for a plan and a cast alike.
   */
  ReleaseInput input(
      FileOptions f,
      DeleteGateOptions gate,
      ChartOptions chart,
      Duration timeout,
      Target target,
      ReleaseController controller) {
    if (f.name != null && f.release != null && !f.name.equals(f.release)) {
      throw new IllegalArgumentException(
          "NAME and --release name different releases: " + f.name + ", " + f.release);
    }
    ReleaseInput in;
    ReleaseOptions options;
    if (chart.given()) {
      in =
          ChartInput.load(
              cli(),
              chart,
              f.files,
              common.namespace(),
              f.name != null ? f.name : f.release,
              target,
              controller);
      options = ReleaseOptions.defaults().withVerifyOnServer(true);
    } else {
      chart.refuseWithoutChart();
      ReleaseFile file = load(f);
      in = new ReleaseInput(file.toSpec(), file.payloads());
      options = file.options();
    }
    Path rulesFile = f.healthRules;
    if (rulesFile != null) {
      List<HealthRule> rules = new java.util.ArrayList<>(healthRules(rulesFile));
      rules.addAll(options.healthRules());
      options = options.withHealthRules(rules);
    }
    return new ReleaseInput(spec(in.spec(), options, f, gate, timeout), in.payloads());
  }

  /** The rules of a {@code --health-rules} file, compiled; refused (exit 2) with each problem. */
  private List<HealthRule> healthRules(Path given) {
    String what = "--health-rules " + Escapes.quote(given);
    Object tree =
        StrictDocuments.readOne(
            BoundedInput.read(cli().resolve(given), given.toString(), 1 << 20),
            InputLimits.oneDocument().withMaxBytes(1 << 20));
    if (!(tree instanceof List<?> list)) {
      throw new IllegalArgumentException(
          what + " must hold a YAML list of rules ({kind, current, inProgress, failed})");
    }
    List<String> problems = new java.util.ArrayList<>();
    List<HealthRule> rules = HealthRuleDocs.read(new java.util.ArrayList<>(list), what, problems);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return rules;
  }

  ReleaseFile load(FileOptions f) {
    Path given = f.releaseFile();
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
    Function<String, @Nullable String> env = cli().env();
    return ReleaseFiles.read(
        file,
        String.valueOf(given),
        new Overrides(
            common.namespace, f.name != null ? f.name : f.release, common.defaultNamespace),
        env);
  }

  /**
   * {@code spec} with the command line's options over {@code options} (a release file's): the plan
   * verified on the server as {@code --verify}/{@code --no-verify} says, else as the file says
   * unless {@code --atomic}; its delete gate's policy and approvals over the file's.
   */
  static ReleaseSpec spec(
      ReleaseSpec spec,
      ReleaseOptions options,
      FileOptions f,
      DeleteGateOptions gate,
      Duration timeout) {
    return spec.withOptions(
        options
            .withAdopt(f.adopt)
            .withAtomic(f.atomic)
            .withCreateNamespace(f.createNamespace)
            .withAllowCrdDeletion(f.allowCrdDeletion)
            .withRecordSecretValues(!f.noRecordSecretValues)
            .withWaitForLoadBalancer(!f.noWaitForLoadBalancer)
            .withDangerousAllowEmpty(f.dangerousAllowEmpty)
            .withAllowUnsafeCrdChanges(options.allowUnsafeCrdChanges() || f.allowUnsafeCrdChanges)
            .withVerifyOnServer(f.verify != null ? f.verify : options.verifyOnServer() && !f.atomic)
            .withDeleteGate(gate.deleteGate(options.deleteGate()))
            .withTimeout(timeout));
  }

  /**
   * Prints a plan (text) and refuses it when it has conflicts, or when the destructive-change gate
   * refuses its deletes (before anyone is asked to confirm it).
   */
  void showPlan(Plan plan, boolean printText) {
    if (printText) {
      out().print(PlanRenderer.text(plan));
    }
    java.util.Optional<DeleteRefusal> refused = DeleteRefusal.of(plan);
    if (!plan.applyable() || refused.isPresent()) {
      if (json()) {
        ObjectNode doc = ReleaseOutput.json().createObjectNode();
        doc.set("plan", PlanRenderer.jsonTree(plan));
        printJson(doc);
      }
      if (!plan.applyable()) {
        throw new ReleaseConflictException(plan);
      }
      throw new DestructiveChangeRefusedException(plan, refused.get());
    }
  }
}
