package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.cluster.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One component line of a plan. Absent strings are empty.
 *
 * @param component the catalog component name
 * @param namespace the workload's namespace; empty for a component without workload
 * @param deployment the workload's Deployment; empty for a component without workload
 * @param container the container holding the image (or the env var)
 * @param envVar the env var holding the image; empty when the image is the container's own
 * @param currentImage the image running now
 * @param currentDigest the digest of the running image (from the spec, or from ready pods)
 * @param targetImage the image the release wants
 * @param currentVersion the installed version (the tag, or the platform-version annotation)
 * @param targetVersion the release's version of this component
 * @param action what the plan does
 * @param reason why the row has its action ({@link RowReason#NONE} for an update), as a code and
 *     its values
 * @param notes extra remarks shown under the row
 * @param built whether the platform builds this image (not part of the JSON report)
 */
public record PlanRow(
    String component,
    String namespace,
    String deployment,
    String container,
    String envVar,
    String currentImage,
    String currentDigest,
    String targetImage,
    String currentVersion,
    String targetVersion,
    PlanAction action,
    RowReason reason,
    List<String> notes,
    boolean built) {

  /** Validates the fields and copies the notes. */
  public PlanRow {
    requireNonNull(component, "component");
    requireNonNull(namespace, "namespace");
    requireNonNull(deployment, "deployment");
    requireNonNull(container, "container");
    requireNonNull(envVar, "envVar");
    requireNonNull(currentImage, "currentImage");
    requireNonNull(currentDigest, "currentDigest");
    requireNonNull(targetImage, "targetImage");
    requireNonNull(currentVersion, "currentVersion");
    requireNonNull(targetVersion, "targetVersion");
    requireNonNull(action, "action");
    requireNonNull(reason, "reason");
    notes = List.copyOf(notes);
    if (namespace.isEmpty() != deployment.isEmpty()) {
      throw new IllegalArgumentException(
          "row " + component + ": namespace and deployment must both be set or both be empty");
    }
  }

  /**
   * Creates a skipped row for a catalog component.
   *
   * @param component the component
   * @param reason why it is skipped
   * @return the row
   */
  public static PlanRow skip(CatalogComponent component, RowReason reason) {
    Workload w = component.workload();
    String envVar = component.envVar();
    return new PlanRow(
        component.name(),
        w == null ? "" : w.namespace(),
        w == null ? "" : w.deployment(),
        component.container(),
        envVar == null ? "" : envVar,
        "",
        "",
        "",
        "",
        "",
        PlanAction.SKIP,
        reason,
        List.of(),
        component.built());
  }

  /**
   * Returns the row's workload.
   *
   * @return the Deployment, or empty for a component without workload
   */
  public Optional<Workload> workload() {
    return namespace.isEmpty() ? Optional.empty() : Optional.of(Workload.of(namespace, deployment));
  }

  /**
   * Tells whether the image lives in an env var.
   *
   * @return true when {@code envVar} is set
   */
  public boolean usesEnvVar() {
    return !envVar.isEmpty();
  }

  /**
   * Returns a copy with another action and reason.
   *
   * @param newAction the action
   * @param newReason the reason
   * @return the copy
   */
  public PlanRow withAction(PlanAction newAction, RowReason newReason) {
    return new PlanRow(
        component,
        namespace,
        deployment,
        container,
        envVar,
        currentImage,
        currentDigest,
        targetImage,
        currentVersion,
        targetVersion,
        newAction,
        newReason,
        notes,
        built);
  }

  /**
   * Returns a copy with one more note.
   *
   * @param note the note
   * @return the copy
   */
  public PlanRow withNote(String note) {
    List<String> more = new ArrayList<>(notes);
    more.add(note);
    return new PlanRow(
        component,
        namespace,
        deployment,
        container,
        envVar,
        currentImage,
        currentDigest,
        targetImage,
        currentVersion,
        targetVersion,
        action,
        reason,
        more,
        built);
  }

  /**
   * Returns a copy with another target image.
   *
   * @param image the target image
   * @return the copy
   */
  public PlanRow withTargetImage(String image) {
    return new PlanRow(
        component,
        namespace,
        deployment,
        container,
        envVar,
        currentImage,
        currentDigest,
        image,
        currentVersion,
        targetVersion,
        action,
        reason,
        notes,
        built);
  }

  /**
   * Returns a copy with the observed state and the release's versions filled in.
   *
   * @param image the current image
   * @param digest the current digest
   * @param version the current version
   * @param release the target version
   * @return the copy
   */
  public PlanRow withVersions(String image, String digest, String version, String release) {
    return new PlanRow(
        component,
        namespace,
        deployment,
        container,
        envVar,
        image,
        digest,
        targetImage,
        version,
        release,
        action,
        reason,
        notes,
        built);
  }
}
