package dev.capstan.cli.update;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.TargetRequiredException;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.build.BuildSettings;
import dev.capstan.update.internal.GoDuration;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.version.Semver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One update invocation's options, one per flag of {@code capstan update}, with its defaults (see
 * {@link #defaults()}). The compact constructor only rejects nulls, so a CLI can map flags one to
 * one; {@link #validate()} checks the values and names the flag in each message.
 *
 * @param to the target version ({@code --to}); empty when a manifest file is given
 * @param releaseManifest the manifest location ({@code --release-manifest}); empty to derive it
 *     from {@code to} and the catalog's release URL
 * @param crds a CRD bundle location ({@code --crds}) for a release that changes CRDs without
 *     embedding them
 * @param dryRun plan only ({@code --dry-run})
 * @param yes skip the confirmation ({@code --yes})
 * @param only update only these components ({@code --only}); empty for all non-opt-in ones
 * @param includeGroups opt-in groups to include ({@code --include}), generalising {@code
 *     --include-auth} and {@code --include-cert-manager}
 * @param allowDowngrade allow a target older than the installed version ({@code --allow-downgrade})
 * @param allowUnsafeCrdChanges apply CRD changes the safety gate blocks ({@code
 *     --allow-unsafe-crd-changes}; see {@link Selection#allowUnsafeCrdChanges()})
 * @param rollbackOnFailure restore touched workloads on failure ({@code --rollback-on-failure},
 *     default true)
 * @param timeout per-workload rollout timeout ({@code --timeout}, default 5m)
 * @param output {@code text} or {@code json} ({@code --output}, default text)
 * @param kubeconfig the kubeconfig path ({@code --kubeconfig}); for the wrapper that creates the
 *     cluster, unused by the command itself
 * @param context the kube context ({@code --context}); likewise for the wrapper
 * @param build build and push changed built images first ({@code --build})
 * @param source the source checkout to build from ({@code --source}, default {@code .})
 * @param imagePlatform the build platform ({@code --image-platform}); empty to use the environment,
 *     then {@code linux/amd64}
 * @param buildParallelism images built at once ({@code --build-parallelism}, default 1)
 * @param buildRetries extra attempts per failed build (default 1)
 */
public record UpdateOptions(
    String to,
    String releaseManifest,
    String crds,
    boolean dryRun,
    boolean yes,
    List<String> only,
    List<String> includeGroups,
    boolean allowDowngrade,
    boolean allowUnsafeCrdChanges,
    boolean rollbackOnFailure,
    Duration timeout,
    String output,
    String kubeconfig,
    String context,
    boolean build,
    String source,
    String imagePlatform,
    int buildParallelism,
    int buildRetries) {

  /** The text output format. */
  public static final String TEXT = "text";

  /** The JSON output format. */
  public static final String JSON = "json";

  /** Rejects nulls and copies the lists. */
  public UpdateOptions {
    requireNonNull(to, "to");
    requireNonNull(releaseManifest, "releaseManifest");
    requireNonNull(crds, "crds");
    requireNonNull(timeout, "timeout");
    requireNonNull(output, "output");
    requireNonNull(kubeconfig, "kubeconfig");
    requireNonNull(context, "context");
    requireNonNull(source, "source");
    requireNonNull(imagePlatform, "imagePlatform");
    only = List.copyOf(only);
    includeGroups = List.copyOf(includeGroups);
  }

  /**
   * Returns the defaults: no target, rollback on failure, 5 minute timeout, text output, source
   * {@code .}, build parallelism 1, one build retry.
   *
   * @return the defaults
   */
  public static UpdateOptions defaults() {
    return new UpdateOptions(
        "",
        "",
        "",
        false,
        false,
        List.of(),
        List.of(),
        false,
        false,
        true,
        ApplyOptions.DEFAULT_TIMEOUT,
        TEXT,
        "",
        "",
        false,
        ".",
        "",
        1,
        1);
  }

  /**
   * Checks the values.
   *
   * @throws TargetRequiredException when neither {@code to} nor {@code releaseManifest} is set
   * @throws InvalidOptionsException listing every other problem, each naming its flag
   */
  public void validate() {
    if (to.isBlank() && releaseManifest.isBlank()) {
      throw new TargetRequiredException(
          "update target required: pass --to <version> or --release-manifest <file>; update never"
              + " picks a release implicitly");
    }
    List<String> problems = new ArrayList<>();
    if (!to.isEmpty() && !Semver.isValid(to)) {
      problems.add("--to must be " + Semver.RULE + ": " + Escapes.quote(to));
    }
    if (!output.equals(TEXT) && !output.equals(JSON)) {
      problems.add("--output must be text or json: " + Escapes.quote(output));
    }
    if (timeout.isNegative() || timeout.isZero()) {
      problems.add("--timeout must be positive: " + Escapes.quote(GoDuration.format(timeout)));
    }
    if (build) {
      if (source.isBlank()) {
        problems.add("--source must name the source checkout: " + Escapes.quote(source));
      }
      if (buildParallelism < 1) {
        problems.add("--build-parallelism must be at least 1: " + Escapes.quote(buildParallelism));
      }
      if (buildRetries < 0) {
        problems.add("build retries must not be negative: " + Escapes.quote(buildRetries));
      }
      if (!imagePlatform.isEmpty() && !BuildSettings.isValidPlatform(imagePlatform)) {
        problems.add(
            "--image-platform must match "
                + BuildSettings.PLATFORM_RULE
                + ": "
                + Escapes.quote(imagePlatform));
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidOptionsException(problems);
    }
  }

  /**
   * Returns the component selection these options describe.
   *
   * @return {@code only}, {@code includeGroups}, {@code allowDowngrade} and {@code
   *     allowUnsafeCrdChanges}
   */
  public Selection selection() {
    return new Selection(only, Set.copyOf(includeGroups), allowDowngrade, allowUnsafeCrdChanges);
  }

  /**
   * Tells whether the output is JSON.
   *
   * @return true for {@code json}
   */
  public boolean json() {
    return output.equals(JSON);
  }

  /**
   * Returns a copy a target version.
   *
   * @param value for example {@code v0.5.0}
   * @return the copy
   */
  public UpdateOptions withTo(String value) {
    return edit(d -> d.to = value);
  }

  /**
   * Returns a copy a manifest location.
   *
   * @param value a file path or https URL
   * @return the copy
   */
  public UpdateOptions withReleaseManifest(String value) {
    return edit(d -> d.releaseManifest = value);
  }

  /**
   * Returns a copy a CRD bundle location.
   *
   * @param value a file path or https URL
   * @return the copy
   */
  public UpdateOptions withCrds(String value) {
    return edit(d -> d.crds = value);
  }

  /**
   * Returns a copy that only plans, or not.
   *
   * @param value whether to stop after the plan
   * @return the copy
   */
  public UpdateOptions withDryRun(boolean value) {
    return edit(d -> d.dryRun = value);
  }

  /**
   * Returns a copy that skips the confirmation, or not.
   *
   * @param value whether the update is confirmed in advance
   * @return the copy
   */
  public UpdateOptions withYes(boolean value) {
    return edit(d -> d.yes = value);
  }

  /**
   * Returns a copy limited to some components.
   *
   * @param names component names
   * @return the copy
   */
  public UpdateOptions withOnly(String... names) {
    return edit(d -> d.only = List.of(names));
  }

  /**
   * Returns a copy that includes opt-in groups.
   *
   * @param groups group names
   * @return the copy
   */
  public UpdateOptions withIncludeGroups(String... groups) {
    return edit(d -> d.includeGroups = List.of(groups));
  }

  /**
   * Returns a copy that allows downgrades, or not.
   *
   * @param value whether downgrades are allowed
   * @return the copy
   */
  public UpdateOptions withAllowDowngrade(boolean value) {
    return edit(d -> d.allowDowngrade = value);
  }

  /**
   * Returns a copy that applies CRD changes the safety gate blocks, or not.
   *
   * @param value whether unsafe CRD changes are applied
   * @return the copy
   */
  public UpdateOptions withAllowUnsafeCrdChanges(boolean value) {
    return edit(d -> d.allowUnsafeCrdChanges = value);
  }

  /**
   * Returns a copy that rolls back on failure, or not.
   *
   * @param value whether to roll back
   * @return the copy
   */
  public UpdateOptions withRollbackOnFailure(boolean value) {
    return edit(d -> d.rollbackOnFailure = value);
  }

  /**
   * Returns a copy with another rollout timeout.
   *
   * @param value the per-workload timeout
   * @return the copy
   */
  public UpdateOptions withTimeout(Duration value) {
    return edit(d -> d.timeout = value);
  }

  /**
   * Returns a copy with another output format.
   *
   * @param value {@code text} or {@code json}
   * @return the copy
   */
  public UpdateOptions withOutput(String value) {
    return edit(d -> d.output = value);
  }

  /**
   * Returns a copy with a kubeconfig path (for the wrapper).
   *
   * @param value the path
   * @return the copy
   */
  public UpdateOptions withKubeconfig(String value) {
    return edit(d -> d.kubeconfig = value);
  }

  /**
   * Returns a copy with a kube context (for the wrapper).
   *
   * @param value the context name
   * @return the copy
   */
  public UpdateOptions withContext(String value) {
    return edit(d -> d.context = value);
  }

  /**
   * Returns a copy that builds images, or not.
   *
   * @param value whether to build
   * @return the copy
   */
  public UpdateOptions withBuild(boolean value) {
    return edit(d -> d.build = value);
  }

  /**
   * Returns a copy with another build source.
   *
   * @param value the source checkout
   * @return the copy
   */
  public UpdateOptions withSource(String value) {
    return edit(d -> d.source = value);
  }

  /**
   * Returns a copy with an image platform.
   *
   * @param value for example {@code linux/arm64}
   * @return the copy
   */
  public UpdateOptions withImagePlatform(String value) {
    return edit(d -> d.imagePlatform = value);
  }

  /**
   * Returns a copy with another build parallelism.
   *
   * @param value images built at once
   * @return the copy
   */
  public UpdateOptions withBuildParallelism(int value) {
    return edit(d -> d.buildParallelism = value);
  }

  /**
   * Returns a copy with another number of build retries.
   *
   * @param value extra attempts per failed build
   * @return the copy
   */
  public UpdateOptions withBuildRetries(int value) {
    return edit(d -> d.buildRetries = value);
  }

  private UpdateOptions edit(Consumer<Draft> change) {
    Draft d = new Draft(this);
    change.accept(d);
    return d.build();
  }

  /** A mutable copy, so that each wither changes one field in one line. */
  private static final class Draft {
    String to;
    String releaseManifest;
    String crds;
    boolean dryRun;
    boolean yes;
    List<String> only;
    List<String> includeGroups;
    boolean allowDowngrade;
    boolean allowUnsafeCrdChanges;
    boolean rollbackOnFailure;
    Duration timeout;
    String output;
    String kubeconfig;
    String context;
    boolean build;
    String source;
    String imagePlatform;
    int buildParallelism;
    int buildRetries;

    Draft(UpdateOptions o) {
      to = o.to;
      releaseManifest = o.releaseManifest;
      crds = o.crds;
      dryRun = o.dryRun;
      yes = o.yes;
      only = o.only;
      includeGroups = o.includeGroups;
      allowDowngrade = o.allowDowngrade;
      allowUnsafeCrdChanges = o.allowUnsafeCrdChanges;
      rollbackOnFailure = o.rollbackOnFailure;
      timeout = o.timeout;
      output = o.output;
      kubeconfig = o.kubeconfig;
      context = o.context;
      build = o.build;
      source = o.source;
      imagePlatform = o.imagePlatform;
      buildParallelism = o.buildParallelism;
      buildRetries = o.buildRetries;
    }

    UpdateOptions build() {
      return new UpdateOptions(
          to,
          releaseManifest,
          crds,
          dryRun,
          yes,
          only,
          includeGroups,
          allowDowngrade,
          allowUnsafeCrdChanges,
          rollbackOnFailure,
          timeout,
          output,
          kubeconfig,
          context,
          build,
          source,
          imagePlatform,
          buildParallelism,
          buildRetries);
    }
  }
}
