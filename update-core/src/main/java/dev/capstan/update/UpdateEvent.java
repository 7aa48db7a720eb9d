package dev.capstan.update;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.cluster.Workload;
import java.util.List;

/**
 * A typed progress event from the applier or the image builds. Each event also renders as one
 * human-readable line ({@link #message()}), which is what a CLI prints.
 */
public sealed interface UpdateEvent {

  /**
   * Returns the event as one human-readable line.
   *
   * @return for example {@code Rolled out mcp-platform/mcp-ui}
   */
  String message();

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
