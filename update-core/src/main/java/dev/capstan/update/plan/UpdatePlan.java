package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.catalog.MetadataKeys;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.manifest.CrdDocument;
import dev.capstan.update.version.ImageRef;
import java.util.ArrayList;
import java.util.List;

/**
 * The full update plan. Its fields in the CLI's JSON report are named after the components, except
 * {@code "applyCRDs"} for {@code applyCrds}, {@code "components"} for {@code rows} and {@code
 * "preservedResources"} for {@code preserved}.
 *
 * @param cluster the target cluster
 * @param manifestSource where the manifest came from
 * @param targetVersion the release version
 * @param installedVersion the installed version: one version, {@code mixed (a, b)}, or empty
 * @param applyCrds whether CRDs are applied before the image rollouts
 * @param crdNames the CRDs that will be applied (those whose live spec differs or is absent)
 * @param crdPreview every CRD of the release with its intent: create, update, skipped or blocked
 *     (the safety gate's findings in its reason)
 * @param crds the CRD documents to apply, in order (not part of the JSON report)
 * @param imageBuilds the images built or reused; empty unless builds are enabled
 * @param rows one row per catalog component, in rollout order
 * @param preserved what an update never modifies
 * @param warnings remarks the operator should read before confirming, as codes with their values
 * @param metadata the label and annotation keys the applier writes (not part of the JSON report)
 */
public record UpdatePlan(
    ClusterInfo cluster,
    String manifestSource,
    String targetVersion,
    String installedVersion,
    boolean applyCrds,
    List<String> crdNames,
    List<CrdResult> crdPreview,
    List<CrdDocument> crds,
    List<ImageBuildAction> imageBuilds,
    List<PlanRow> rows,
    List<String> preserved,
    List<PlanWarning> warnings,
    MetadataKeys metadata) {

  /** Validates the fields and copies the lists. */
  public UpdatePlan {
    requireNonNull(cluster, "cluster");
    requireNonNull(manifestSource, "manifestSource");
    requireNonNull(targetVersion, "targetVersion");
    requireNonNull(installedVersion, "installedVersion");
    requireNonNull(metadata, "metadata");
    crdNames = List.copyOf(crdNames);
    crdPreview = List.copyOf(crdPreview);
    crds = List.copyOf(crds);
    imageBuilds = List.copyOf(imageBuilds);
    rows = List.copyOf(rows);
    preserved = List.copyOf(preserved);
    warnings = List.copyOf(warnings);
    if (applyCrds != !crds.isEmpty()) {
      throw new IllegalArgumentException(
          "applyCrds must be true exactly when there are CRDs to apply: " + crdNames);
    }
  }

  /**
   * Returns the rows whose image changes.
   *
   * @return the {@code update} rows, in rollout order
   */
  public List<PlanRow> changed() {
    return rows.stream().filter(r -> r.action() == PlanAction.UPDATE).toList();
  }

  /**
   * Returns the refused rows.
   *
   * @return the {@code blocked} rows; the plan cannot be applied when there are any
   */
  public List<PlanRow> blocked() {
    return rows.stream().filter(r -> r.action() == PlanAction.BLOCKED).toList();
  }

  /**
   * Returns the CRD changes the safety gate refuses.
   *
   * @return the {@code blocked} entries of the CRD preview; the plan cannot be applied when there
   *     are any
   */
  public List<CrdResult> blockedCrds() {
    return crdPreview.stream().filter(CrdResult::isBlocked).toList();
  }

  /**
   * Tells whether anything in the plan is refused.
   *
   * @return true when a row or a CRD is blocked
   */
  public boolean isBlocked() {
    return !blocked().isEmpty() || !blockedCrds().isEmpty();
  }

  /**
   * Tells whether applying would change the cluster.
   *
   * @return true when CRDs are applied or at least one image changes
   */
  public boolean needsApply() {
    return applyCrds || !changed().isEmpty();
  }

  /**
   * Returns a copy attached to a cluster.
   *
   * @param info the cluster's identity
   * @return the copy
   */
  public UpdatePlan withCluster(ClusterInfo info) {
    return new UpdatePlan(
        info,
        manifestSource,
        targetVersion,
        installedVersion,
        applyCrds,
        crdNames,
        crdPreview,
        crds,
        imageBuilds,
        rows,
        preserved,
        warnings,
        metadata);
  }

  /**
   * Returns a copy naming where the manifest came from.
   *
   * @param source a path or URL
   * @return the copy
   */
  public UpdatePlan withManifestSource(String source) {
    return new UpdatePlan(
        cluster,
        source,
        targetVersion,
        installedVersion,
        applyCrds,
        crdNames,
        crdPreview,
        crds,
        imageBuilds,
        rows,
        preserved,
        warnings,
        metadata);
  }

  /**
   * Returns a copy with image build actions.
   *
   * @param builds the builds and reuses
   * @return the copy
   */
  public UpdatePlan withImageBuilds(List<ImageBuildAction> builds) {
    return new UpdatePlan(
        cluster,
        manifestSource,
        targetVersion,
        installedVersion,
        applyCrds,
        crdNames,
        crdPreview,
        crds,
        builds,
        rows,
        preserved,
        warnings,
        metadata);
  }

  /**
   * Returns a copy in which every built component's target image is {@code repository:tag}, its
   * digest dropped: a local build cannot produce the release's digest, so the apply must not pin
   * it.
   *
   * @return the copy
   */
  public UpdatePlan withBuiltTargetsAsTags() {
    List<PlanRow> out = new ArrayList<>(rows.size());
    for (PlanRow row : rows) {
      if (row.built() && row.action() == PlanAction.UPDATE) {
        out.add(row.withTargetImage(ImageRef.parse(row.targetImage()).withDigest("").toString()));
      } else {
        out.add(row);
      }
    }
    return new UpdatePlan(
        cluster,
        manifestSource,
        targetVersion,
        installedVersion,
        applyCrds,
        crdNames,
        crdPreview,
        crds,
        imageBuilds,
        out,
        preserved,
        warnings,
        metadata);
  }
}
