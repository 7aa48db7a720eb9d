package dev.capstan.cli.update;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Sleeper;
import dev.capstan.update.ConfirmationMissingException;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.TargetMismatchException;
import dev.capstan.update.TargetRequiredException;
import dev.capstan.update.UpdateAbortedException;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.RolloutFailedException;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.build.BuildSettings;
import dev.capstan.update.build.ImageBuilder;
import dev.capstan.update.build.ImageBuilds;
import dev.capstan.update.build.ImageRegistry;
import dev.capstan.update.build.SourceTree;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.event.EventLog;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.plan.ImageAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdateBlockedException;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.version.Semver;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The update command: the host's catalog and ports, assembled once; {@link #run} once per
 * invocation. See the package docs for the flow.
 *
 * <pre>{@code
 * UpdateCommand command = UpdateCommand.builder(catalog, cluster)
 *     .confirmer(Confirmer.nonInteractive())
 *     .environment(Environment.system())
 *     .build();
 * UpdateOutcome outcome = command.run(UpdateOptions.defaults().withTo("v0.5.0"), System.out);
 * }</pre>
 */
public final class UpdateCommand {

  /** The environment variable read for the image platform, unless the host names another. */
  public static final String DEFAULT_PLATFORM_ENV = "CAPSTAN_IMAGE_PLATFORM";

  /** Logs the plan event (see {@link EventLog}). */
  private static final UpdateListener LOG =
      EventLog.on(LoggerFactory.getLogger(UpdateCommand.class));

  private final Catalog catalog;
  private final PlatformCluster cluster;
  private final ManifestLoader loader;
  private final Confirmer confirmer;
  private final Environment environment;
  private final String platformEnv;
  private final UpdateListener listener;
  private final @Nullable ImageRegistry registry;
  private final @Nullable ImageBuilder builder;
  private final @Nullable Function<String, SourceTree> sourceTrees;
  private final ApplyOptions applyDefaults;

  private UpdateCommand(Builder b) {
    this.catalog = b.catalog;
    this.cluster = b.cluster;
    this.loader = b.loader;
    this.confirmer = b.confirmer;
    this.environment = b.environment;
    this.platformEnv = b.platformEnv;
    this.listener = UpdateListener.all(b.listeners);
    this.registry = b.registry;
    this.builder = b.builder;
    this.sourceTrees = b.sourceTrees;
    this.applyDefaults = b.applyDefaults;
  }

  /**
   * Starts a command.
   *
   * @param catalog the host's catalog
   * @param cluster the cluster to update
   * @return the builder
   */
  public static Builder builder(Catalog catalog, PlatformCluster cluster) {
    return new Builder(catalog, cluster);
  }

  /**
   * Runs one update: validate → manifest → plan → refuse blocked → dry-run stop → confirm → build →
   * apply. The plan (and the result) are printed to {@code out} as text, or as one JSON document at
   * the end with {@code --output json}; a blocked or failed update prints before it throws.
   *
   * @param options the invocation's options
   * @param out where the report goes
   * @return the plan and, when something was applied, the result
   * @throws TargetRequiredException when no target is given
   * @throws InvalidOptionsException when an option is invalid
   * @throws dev.capstan.update.InvalidManifestException when the manifest cannot be read or breaks
   *     a rule
   * @throws TargetMismatchException when {@code --to} differs from the manifest's version
   * @throws dev.capstan.update.NotInstalledException when the platform is not installed
   * @throws UpdateBlockedException when the plan has blocked rows, also in dry-run
   * @throws ConfirmationMissingException when confirmation is needed and there is no terminal
   * @throws UpdateAbortedException when the operator does not answer {@code yes}
   * @throws dev.capstan.update.ImageBuildException when an image build fails (nothing is applied)
   * @throws RolloutFailedException when a CRD or a rollout fails (after rollback, when enabled)
   * @throws dev.capstan.common.ClusterException when the cluster cannot be read
   */
  public UpdateOutcome run(UpdateOptions options, PrintStream out) {
    Instant start = applyDefaults.clock().instant();
    options.validate();
    if (options.build() && builder == null) {
      throw new InvalidOptionsException(List.of("--build needs an image builder; none is set"));
    }
    if (options.build() && !options.dryRun() && registry == null) {
      throw new InvalidOptionsException(List.of("--build needs an image registry; none is set"));
    }
    String location = manifestLocation(options);
    PlatformRelease release = PlatformReleases.parse(loader.load(location), location, catalog);
    if (!options.to().isEmpty()
        && Semver.parse(options.to()).compareTo(Semver.parse(release.version())) != 0) {
      throw new TargetMismatchException(options.to(), release.version(), location, "--to");
    }
    release = withCrds(release, options);
    InventorySnapshot inventory = cluster.inventory(UpdatePlanner.query(catalog, release));
    ClusterInfo info = cluster.info();
    checkSelection(options.selection());
    UpdatePlan plan;
    try {
      plan = UpdatePlanner.plan(inventory, release, catalog, options.selection());
    } catch (InvalidManifestException e) {
      // the release was parsed against this catalog, so the planner's one manifest problem left
      // is a missing CRD bundle: name the flag that supplies it
      checkCrdBundle(release, options.selection());
      throw e;
    }
    plan = plan.withCluster(info).withManifestSource(location);
    UpdateListener.all(List.of(LOG, listener))
        .onEvent(
            new UpdateEvent.Planned(
                plan.targetVersion(),
                plan.installedVersion(),
                plan.changed().size(),
                plan.blocked().size() + plan.blockedCrds().size(),
                Duration.between(start, applyDefaults.clock().instant())));
    if (plan.isBlocked()) {
      out.print(
          options.json()
              ? UpdateReport.json(options.dryRun(), plan, null)
              : UpdateReport.text(plan));
      throw new UpdateBlockedException(plan);
    }
    ImageBuilder imageBuilder = builder;
    if (options.build() && imageBuilder != null) {
      plan = plan.withBuiltTargetsAsTags();
      plan =
          plan.withImageBuilds(
              ImageBuilds.plan(plan, options.dryRun() ? null : registry, imageBuilder));
    }
    if (!options.json()) {
      out.print(UpdateReport.text(plan));
    }
    if (options.dryRun() || !plan.needsApply()) {
      if (options.json()) {
        out.print(UpdateReport.json(options.dryRun(), plan, null));
      } else {
        if (options.dryRun()) {
          out.print(UpdateReport.recoveryText(plan));
        }
        out.println();
        out.println(
            plan.needsApply()
                ? dryRunSummary(plan)
                : "Platform is up to date; nothing to roll out.");
      }
      return new UpdateOutcome(options.dryRun(), plan, null);
    }
    if (!options.yes()) {
      confirm(plan, info);
    }
    if (options.build() && imageBuilder != null) {
      ImageBuilds.run(
          plan.imageBuilds(),
          imageBuilder,
          sourceTrees == null ? null : sourceTrees.apply(options.source()),
          new BuildSettings(
              platform(options),
              options.source(),
              options.buildParallelism(),
              options.buildRetries()),
          listener);
    }
    UpdateResult result =
        UpdateApplier.apply(
            cluster,
            plan,
            applyDefaults
                .withTimeout(options.timeout())
                .withRollbackOnFailure(options.rollbackOnFailure())
                .withListener(listener));
    out.print(
        options.json() ? UpdateReport.json(false, plan, result) : "\n" + UpdateReport.text(result));
    if (result.failed()) {
      throw new RolloutFailedException(result);
    }
    return new UpdateOutcome(false, plan, result);
  }

  private String manifestLocation(UpdateOptions options) {
    if (!options.releaseManifest().isEmpty()) {
      return options.releaseManifest();
    }
    return catalog
        .manifestUrl(options.to())
        .orElseThrow(
            () ->
                new TargetRequiredException(
                    "--to "
                        + options.to()
                        + " needs a release URL and the catalog has none; pass --release-manifest"
                        + " <file>"));
  }

  private PlatformRelease withCrds(PlatformRelease release, UpdateOptions options) {
    if (!release.crdChange() || !release.crds().isBlank() || !options.only().isEmpty()) {
      return release;
    }
    Optional<String> location =
        options.crds().isEmpty() ? catalog.crdsUrl(release.version()) : Optional.of(options.crds());
    if (location.isEmpty()) {
      return release;
    }
    return release.withCrds(new String(loader.load(location.get()), StandardCharsets.UTF_8));
  }

  /**
   * Refuses unknown {@code --only} names and {@code --include} groups, as the planner would, in the
   * flags' words.
   */
  private void checkSelection(Selection selection) {
    List<String> problems = selection.problems(catalog, "--only", "--include");
    if (!problems.isEmpty()) {
      throw new InvalidOptionsException(problems);
    }
  }

  /**
   * Refuses a release that changes CRDs without a bundle (none embedded, none from {@code --crds}
   * or the catalog), as the planner does, naming {@code --crds}.
   */
  static void checkCrdBundle(PlatformRelease release, Selection selection) {
    if (release.crdChange() && selection.only().isEmpty() && release.crds().isBlank()) {
      throw new InvalidManifestException(
          "for version " + release.version(),
          List.of(
              "crdChange is set but the release has no embedded crds; pass --crds <file> with the"
                  + " release's CRD bundle"));
    }
  }

  private String platform(UpdateOptions options) {
    if (!options.imagePlatform().isEmpty()) {
      return options.imagePlatform();
    }
    String fromEnv = environment.get(platformEnv);
    return fromEnv == null || fromEnv.isBlank() ? BuildSettings.DEFAULT_PLATFORM : fromEnv.strip();
  }

  private void confirm(UpdatePlan plan, ClusterInfo info) {
    if (!confirmer.isInteractive()) {
      throw new ConfirmationMissingException(
          "confirmation required but stdin is not a terminal; review the plan (--dry-run) and pass"
              + " --yes to apply it");
    }
    String reply = confirmer.ask(confirmPrompt(plan, info));
    if (!reply.strip().equals("yes")) {
      throw new UpdateAbortedException();
    }
  }

  static String dryRunSummary(UpdatePlan plan) {
    StringBuilder sb =
        new StringBuilder("Dry run (plan only; no CRD apply, builds, or rollouts were attempted): ")
            .append(plan.changed().size())
            .append(" component(s)");
    if (plan.applyCrds()) {
      sb.append(" and ").append(plan.crdNames().size()).append(" CustomResourceDefinition(s)");
    }
    if (!plan.imageBuilds().isEmpty()) {
      sb.append(" (")
          .append(count(plan, ImageAction.BUILD))
          .append(" image build(s), ")
          .append(count(plan, ImageAction.REUSE))
          .append(" reuse)");
    }
    return sb.append(" would be updated.").toString();
  }

  private String confirmPrompt(UpdatePlan plan, ClusterInfo info) {
    StringBuilder sb = new StringBuilder("\n");
    if (plan.applyCrds()) {
      sb.append("CustomResourceDefinitions are applied first: ")
          .append(String.join(", ", plan.crdNames()))
          .append('\n');
    }
    if (!plan.imageBuilds().isEmpty()) {
      sb.append("Image builds: ")
          .append(count(plan, ImageAction.BUILD))
          .append(" to build, ")
          .append(count(plan, ImageAction.REUSE))
          .append(" to reuse\n");
    }
    Set<String> workloads = new LinkedHashSet<>();
    List<String> notes = new ArrayList<>();
    for (PlanRow row : plan.changed()) {
      row.workload().ifPresent(w -> workloads.add(w.key()));
      catalog
          .component(row.component())
          .map(c -> c.note())
          .ifPresent(note -> notes.add("Note: " + row.component() + " change: " + note + "\n"));
    }
    sb.append("Workloads rolled out one at a time: ")
        .append(workloads.isEmpty() ? "none" : String.join(", ", workloads))
        .append('\n');
    notes.forEach(sb::append);
    return sb.append("Apply this update to context \"")
        .append(info.context())
        .append("\" (cluster ")
        .append(info.clusterId().isEmpty() ? "unknown" : info.clusterId())
        .append(")? Type 'yes' to continue: ")
        .toString();
  }

  private static long count(UpdatePlan plan, ImageAction action) {
    return plan.imageBuilds().stream().filter(b -> b.action() == action).count();
  }

  /** Assembles an {@link UpdateCommand}. */
  public static final class Builder {
    private final Catalog catalog;
    private final PlatformCluster cluster;
    private ManifestLoader loader = ManifestLoader.files();
    private Confirmer confirmer = Confirmer.nonInteractive();
    private Environment environment = name -> null;
    private String platformEnv = DEFAULT_PLATFORM_ENV;
    private final List<UpdateListener> listeners = new ArrayList<>();
    private @Nullable ImageRegistry registry;
    private @Nullable ImageBuilder builder;
    private @Nullable Function<String, SourceTree> sourceTrees;
    private ApplyOptions applyDefaults = ApplyOptions.defaults();

    private Builder(Catalog catalog, PlatformCluster cluster) {
      this.catalog = requireNonNull(catalog, "catalog");
      this.cluster = requireNonNull(cluster, "cluster");
    }

    /**
     * Sets how manifests are read (default: local files only).
     *
     * @param value the loader
     * @return this builder
     */
    public Builder manifestLoader(ManifestLoader value) {
      this.loader = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets who confirms (default: nobody, so only {@code --yes} proceeds).
     *
     * @param value the confirmer
     * @return this builder
     */
    public Builder confirmer(Confirmer value) {
      this.confirmer = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets where environment variables are read (default: an empty environment).
     *
     * @param value the environment
     * @return this builder
     */
    public Builder environment(Environment value) {
      this.environment = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the environment variable naming the image platform (default {@value
     * #DEFAULT_PLATFORM_ENV}).
     *
     * @param name the variable name, for example {@code MCP_IMAGE_PLATFORM}
     * @return this builder
     */
    Builder imagePlatformEnv(String name) {
      this.platformEnv = requireNonNull(name, "name");
      return this;
    }

    /**
     * Adds a listener of progress events (default: none; the command logs every event through SLF4J
     * itself). Each listener added receives every event, in the order they were added.
     *
     * @param value the listener
     * @return this builder
     */
    public Builder listener(UpdateListener value) {
      this.listeners.add(requireNonNull(value, "value"));
      return this;
    }

    /**
     * Sets the registry probe used by {@code --build}.
     *
     * @param value the registry
     * @return this builder
     */
    public Builder imageRegistry(ImageRegistry value) {
      this.registry = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the image builder used by {@code --build}.
     *
     * @param value the builder
     * @return this builder
     */
    public Builder imageBuilder(ImageBuilder value) {
      this.builder = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets how the {@code --source} path becomes a source tree (needed for release-commit images).
     *
     * @param value a factory, for example {@code path -> new GitSourceTree(path, runner)}
     * @return this builder
     */
    public Builder sourceTrees(Function<String, SourceTree> value) {
      this.sourceTrees = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the apply defaults: clock, sleeper, poll interval and rollout waiter (the options'
     * timeout and rollback flag, and this command's listener, override theirs).
     *
     * @param value the apply options
     * @return this builder
     */
    Builder applyOptions(ApplyOptions value) {
      this.applyDefaults = requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the rollout waiter (default: poll the cluster).
     *
     * @param value the waiter
     * @return this builder
     */
    public Builder rolloutWaiter(RolloutWaiter value) {
      this.applyDefaults = applyDefaults.withWaiter(value);
      return this;
    }

    /**
     * Sets the time source and the sleeper used while waiting.
     *
     * @param clock the clock
     * @param sleeper the sleeper
     * @param pollInterval the pause between polls
     * @return this builder
     */
    Builder time(Clock clock, Sleeper sleeper, Duration pollInterval) {
      this.applyDefaults =
          applyDefaults.withClock(clock).withSleeper(sleeper).withPollInterval(pollInterval);
      return this;
    }

    /**
     * Builds the command.
     *
     * @return the command
     */
    public UpdateCommand build() {
      return new UpdateCommand(this);
    }
  }
}
