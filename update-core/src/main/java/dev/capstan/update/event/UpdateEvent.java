package dev.capstan.update.event;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadStatus;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * A typed progress event from the update command, the applier or the image builds. Each event also
 * renders as one human-readable line ({@link #message()}), which is what a CLI prints. An apply is
 * bracketed: {@link UpdateStarted} first, {@link UpdateFinished} last.
 */
public sealed interface UpdateEvent {

  /**
   * Returns the event as one human-readable line.
   *
   * @return for example {@code Rolled out mcp-platform/mcp-ui}
   */
  String message();

  /**
   * The update command planned: read the manifest and the cluster's inventory and diffed them.
   *
   * @param targetVersion the release version
   * @param installedVersion the installed version, as the plan reports it
   * @param changed how many components change
   * @param blocked how many components and CRDs the plan blocks (the update is then refused)
   * @param duration from the command's start to the plan
   */
  record Planned(
      String targetVersion, String installedVersion, int changed, int blocked, Duration duration)
      implements UpdateEvent {
    /** Validates the fields. */
    public Planned {
      requireNonNull(targetVersion, "targetVersion");
      requireNonNull(installedVersion, "installedVersion");
      requireNonNull(duration, "duration");
    }

    @Override
    public String message() {
      return "Planned update to "
          + targetVersion
          + " in "
          + Durations.format(duration)
          + ": "
          + changed
          + " component(s) to change"
          + (blocked > 0 ? ", " + blocked + " blocked" : "");
    }
  }

  /**
   * An apply began, before its first write; {@link UpdateFinished} follows last.
   *
   * @param targetVersion the release version
   * @param workloads how many Deployments the plan patches
   * @param crds how many CustomResourceDefinitions it applies
   */
  record UpdateStarted(String targetVersion, int workloads, int crds) implements UpdateEvent {
    /** Validates the fields. */
    public UpdateStarted {
      requireNonNull(targetVersion, "targetVersion");
    }

    @Override
    public String message() {
      return "Updating to "
          + targetVersion
          + ": "
          + workloads
          + " workload(s)"
          + (crds > 0 ? ", " + crds + " CustomResourceDefinition(s) first" : "");
    }
  }

  /** How an apply ended. */
  enum Outcome {
    /** Every workload was updated or already on its target images. */
    COMPLETED("completed"),
    /** A CRD or a workload failed and nothing was rolled back. */
    FAILED("failed"),
    /** A workload failed and every workload touched was restored. */
    ROLLED_BACK("rolled back"),
    /** A workload failed and restoring one failed too: the recovery commands are the way out. */
    ROLLBACK_FAILED("rollback failed"),
    /** The apply stopped with an exception. */
    ERROR("stopped by an error");

    private final String label;

    Outcome(String label) {
      this.label = label;
    }

    /** The lower-case name, as metrics tag it: {@code completed}, {@code rolled_back}, ... */
    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The outcome of a result.
     *
     * @param result what the apply returned
     * @return its outcome
     */
    public static Outcome of(UpdateResult result) {
      if (!result.failed()) {
        return COMPLETED;
      }
      if (!result.withStatus(WorkloadStatus.ROLLBACK_FAILED).isEmpty()) {
        return ROLLBACK_FAILED;
      }
      return result.withStatus(WorkloadStatus.ROLLED_BACK).isEmpty() ? FAILED : ROLLED_BACK;
    }
  }

  /**
   * An apply ended, however it ended: the last event after its {@link UpdateStarted}.
   *
   * @param targetVersion the release version
   * @param outcome how it ended
   * @param result what happened to each CRD and workload; {@code null} when the apply threw
   * @param duration from its start, by the apply's clock
   * @param error the exception's message when it threw, else {@code null}
   */
  record UpdateFinished(
      String targetVersion,
      Outcome outcome,
      @Nullable UpdateResult result,
      Duration duration,
      @Nullable String error)
      implements UpdateEvent {
    /** Validates the fields. */
    public UpdateFinished {
      requireNonNull(targetVersion, "targetVersion");
      requireNonNull(outcome, "outcome");
      requireNonNull(duration, "duration");
    }

    /**
     * How many workloads ended with {@code status}.
     *
     * @param status the status
     * @return the count; 0 when the apply threw
     */
    public int workloads(WorkloadStatus status) {
      return result == null ? 0 : result.withStatus(status).size();
    }

    /**
     * Returns how many CRDs were applied (neither skipped nor failed).
     *
     * @return the count
     */
    public int crdsApplied() {
      return result == null
          ? 0
          : (int)
              result.crds().stream()
                  .filter(c -> c.error().isEmpty() && !c.action().equals(CrdResult.SKIPPED))
                  .count();
    }

    @Override
    public String message() {
      StringBuilder line =
          new StringBuilder("Update to ")
              .append(targetVersion)
              .append(' ')
              .append(outcome.label)
              .append(" in ")
              .append(Durations.format(duration));
      if (result != null) {
        StringJoiner counts = new StringJoiner(", ", ": ", "").setEmptyValue(": nothing to do");
        for (WorkloadStatus status : WorkloadStatus.values()) {
          int n = workloads(status);
          if (n > 0) {
            counts.add(n + " " + status.label());
          }
        }
        if (crdsApplied() > 0) {
          counts.add(crdsApplied() + " CustomResourceDefinition(s) applied");
        }
        line.append(counts);
      }
      if (error != null) {
        line.append(": ").append(error);
      }
      return line.toString();
    }
  }

  /**
   * A CustomResourceDefinition was applied.
   *
   * @param name the CRD's {@code metadata.name}
   * @param action what the cluster did: {@code created}, {@code configured}, ...
   */
  record CrdApplied(String name, String action) implements UpdateEvent {
    /** Validates the fields. */
    public CrdApplied {
      requireNonNull(name, "name");
      requireNonNull(action, "action");
    }

    @Override
    public String message() {
      return "Applied CustomResourceDefinition " + name + " (" + action + ")";
    }
  }

  /**
   * A CustomResourceDefinition reports {@code Established} and {@code NamesAccepted}.
   *
   * @param name the CRD's {@code metadata.name}
   */
  record CrdEstablished(String name) implements UpdateEvent {
    /** Validates the fields. */
    public CrdEstablished {
      requireNonNull(name, "name");
    }

    @Override
    public String message() {
      return "CustomResourceDefinition " + name + " is established";
    }
  }

  /**
   * A workload already runs every target image, so it was not patched.
   *
   * @param workload the deployment
   */
  record WorkloadSkipped(Workload workload) implements UpdateEvent {
    /** Validates the fields. */
    public WorkloadSkipped {
      requireNonNull(workload, "workload");
    }

    @Override
    public String message() {
      return "Skipping " + workload.key() + " (already on target images)";
    }
  }

  /**
   * A workload was patched; its rollout is being awaited.
   *
   * @param workload the deployment
   * @param components the catalog components the patch changed
   */
  record WorkloadPatched(Workload workload, List<String> components) implements UpdateEvent {
    /** Validates the fields. */
    public WorkloadPatched {
      requireNonNull(workload, "workload");
      components = List.copyOf(components);
    }

    @Override
    public String message() {
      return "Patched "
          + workload.key()
          + " ("
          + String.join(", ", components)
          + "); waiting for rollout";
    }
  }

  /**
   * A workload's rollout completed.
   *
   * @param workload the deployment
   */
  record WorkloadRolledOut(Workload workload) implements UpdateEvent {
    /** Validates the fields. */
    public WorkloadRolledOut {
      requireNonNull(workload, "workload");
    }

    @Override
    public String message() {
      return "Rolled out " + workload.key();
    }
  }

  /**
   * A workload's get, patch or rollout failed; the update stops here.
   *
   * @param workload the deployment
   * @param error what failed
   */
  record WorkloadFailed(Workload workload, String error) implements UpdateEvent {
    /** Validates the fields. */
    public WorkloadFailed {
      requireNonNull(workload, "workload");
      requireNonNull(error, "error");
    }

    @Override
    public String message() {
      return "Failed " + workload.key() + ": " + error;
    }
  }

  /**
   * A touched workload was restored to its previous images.
   *
   * @param workload the deployment
   */
  record WorkloadRolledBack(Workload workload) implements UpdateEvent {
    /** Validates the fields. */
    public WorkloadRolledBack {
      requireNonNull(workload, "workload");
    }

    @Override
    public String message() {
      return "Rolled back " + workload.key();
    }
  }

  /**
   * Restoring a workload's previous images failed; the recovery commands are the way out.
   *
   * @param workload the deployment
   * @param error what failed
   */
  record RollbackFailed(Workload workload, String error) implements UpdateEvent {
    /** Validates the fields. */
    public RollbackFailed {
      requireNonNull(workload, "workload");
      requireNonNull(error, "error");
    }

    @Override
    public String message() {
      return "Rollback of " + workload.key() + " failed: " + error;
    }
  }

  /**
   * An image is already in the registry and is reused instead of built.
   *
   * @param image the image reference
   */
  record ImageReused(String image) implements UpdateEvent {
    /** Validates the fields. */
    public ImageReused {
      requireNonNull(image, "image");
    }

    @Override
    public String message() {
      return "Reusing " + image + " (already in registry)";
    }
  }

  /**
   * An image build attempt started.
   *
   * @param image the image reference
   * @param attempt 1 for the first attempt
   */
  record ImageBuildStarted(String image, int attempt) implements UpdateEvent {
    /** Validates the fields. */
    public ImageBuildStarted {
      requireNonNull(image, "image");
    }

    @Override
    public String message() {
      return "Building " + image + (attempt > 1 ? " (attempt " + attempt + ")" : "");
    }
  }

  /**
   * An image build attempt failed and will be retried.
   *
   * @param image the image reference
   * @param attempt the attempt that failed
   * @param error why it failed
   */
  record ImageBuildRetrying(String image, int attempt, String error) implements UpdateEvent {
    /** Validates the fields. */
    public ImageBuildRetrying {
      requireNonNull(image, "image");
      requireNonNull(error, "error");
    }

    @Override
    public String message() {
      return "Build of " + image + " failed (attempt " + attempt + "), retrying: " + error;
    }
  }

  /**
   * An image was built and pushed.
   *
   * @param image the image reference
   */
  record ImagePushed(String image) implements UpdateEvent {
    /** Validates the fields. */
    public ImagePushed {
      requireNonNull(image, "image");
    }

    @Override
    public String message() {
      return "Pushed " + image;
    }
  }
}
