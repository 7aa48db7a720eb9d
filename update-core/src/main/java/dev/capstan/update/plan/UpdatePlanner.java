package dev.capstan.update.plan;

import dev.capstan.common.CrdGate;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.NotInstalledException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.catalog.InstalledCheck;
import dev.capstan.update.catalog.VersionPolicy;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.CrdDefaults;
import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.manifest.CrdBundle;
import dev.capstan.update.manifest.CrdDocument;
import dev.capstan.update.manifest.ManifestComponent;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.version.ImageRef;
import dev.capstan.update.version.Semver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Diffs a cluster inventory with a release manifest, per the host's catalog. Pure: no I/O, no
 * clock; the same inputs give the same plan.
 *
 * <p>Reasons ({@link RowReason} codes), in the order the checks run for each component (rollout
 * order):
 *
 * <ul>
 *   <li>{@code skip}: {@code NOT_SELECTED}; {@code OPT_IN} (the group); {@code NOT_IN_MANIFEST};
 *       {@code ON_DEMAND}; {@code NOT_INSTALLED}; {@code CONTAINER_NOT_FOUND}; {@code
 *       ENV_VAR_NOT_SET}; {@code UNPARSABLE_IMAGE};
 *   <li>{@code unchanged}: {@code IMAGE_MATCHES};
 *   <li>{@code update} ({@code NONE}), possibly with the note {@code running digest already
 *       matches; pinning spec to digest} or {@code version "a" or "b" is not semver; downgrade
 *       check skipped};
 *   <li>{@code blocked}: {@code DOWNGRADE} (unless {@link Selection#allowDowngrade()}), or {@code
 *       NOT_A_PATCH_UPDATE} under the same-minor policy.
 * </ul>
 *
 * <p>The planner knows no command-line flags: reasons are codes with their values, and messages
 * name the options by their {@link Selection} names; a command line words them in its flags.
 *
 * <p>CRDs: absent → {@code create}; equal to the live spec once both have the API server's defaults
 * ({@link CrdDefaults}; the inventory's dry-run spec stands for the release's when there is one) →
 * {@code skipped}; otherwise {@code update}, unless the safety gate ({@link CrdGate}) finds a
 * change that breaks stored objects: then {@code blocked} with the findings, or, with {@link
 * Selection#allowUnsafeCrdChanges()}, {@code update} with the findings and a warning.
 */
public final class UpdatePlanner {

  static final String PINNING = "running digest already matches; pinning spec to digest";

  private UpdatePlanner() {}

  /**
   * Returns what to read from the cluster for a plan: every catalog workload (the installed-check
   * one first) and the release's CRDs, with their documents (for the dry-run spec).
   *
   * @param catalog the host's catalog
   * @param release the manifest
   * @return the inventory query
   */
  public static InventoryQuery query(Catalog catalog, PlatformRelease release) {
    Map<String, Map<String, @Nullable Object>> crds = new LinkedHashMap<>();
    if (release.crdChange() && !release.crds().isBlank()) {
      for (CrdDocument doc : release.crdBundle().crds()) {
        crds.put(doc.name(), doc.document());
      }
    }
    return new InventoryQuery(catalog.workloads(), List.copyOf(crds.keySet()), crds);
  }

  /**
   * Plans an update.
   *
   * @param inventory the live state
   * @param release the manifest
   * @param catalog the host's catalog
   * @param selection which components to consider
   * @return the plan, with an unknown cluster and no manifest source (attach them with the withers)
   * @throws InvalidOptionsException when the selection names unknown components or groups
   * @throws InvalidManifestException when the manifest does not fit the catalog, or changes CRDs
   *     without carrying them
   * @throws NotInstalledException when the catalog's installed-check Deployment is missing
   */
  public static UpdatePlan plan(
      InventorySnapshot inventory, PlatformRelease release, Catalog catalog, Selection selection) {
    checkSelection(selection, catalog);
    String source = "for version " + release.version();
    PlatformReleases.check(release, source, catalog);
    Index index = new Index(inventory);
    checkInstalled(catalog, index);

    List<PlanWarning> warnings = new ArrayList<>();
    List<CrdResult> preview = new ArrayList<>();
    List<CrdDocument> toApply = new ArrayList<>();
    planCrds(release, selection, index, warnings, preview, toApply, source);

    Map<String, ManifestComponent> entries = new HashMap<>();
    for (ManifestComponent entry : release.components()) {
      entries.put(entry.name(), entry);
    }
    List<PlanRow> rows = new ArrayList<>();
    TreeSet<String> installed = new TreeSet<>(UpdatePlanner::compareVersions);
    for (CatalogComponent c : catalog.components()) {
      PlanRow row =
          guard(
              planComponent(
                  c,
                  Optional.ofNullable(entries.get(c.name())),
                  release,
                  catalog,
                  selection,
                  index),
              c,
              selection);
      if (c.built() && row.action() != PlanAction.SKIP && !row.currentVersion().isEmpty()) {
        installed.add(row.currentVersion());
      }
      String note = c.note();
      if (row.action() == PlanAction.UPDATE && note != null) {
        warnings.add(PlanWarning.of(PlanWarning.Code.COMPONENT_NOTE, c.name(), note));
      }
      rows.add(row);
    }
    String installedVersion =
        installed.size() <= 1
            ? String.join("", installed)
            : "mixed (" + String.join(", ", installed) + ")";
    return new UpdatePlan(
        ClusterInfo.unknown(),
        "",
        release.version(),
        installedVersion,
        !toApply.isEmpty(),
        toApply.stream().map(CrdDocument::name).toList(),
        preview,
        toApply,
        List.of(),
        rows,
        catalog.preserved(),
        warnings,
        catalog.metadata());
  }

  private static void checkSelection(Selection selection, Catalog catalog) {
    List<String> problems =
        selection.problems(catalog, "Selection.only", "Selection.includeGroups");
    if (!problems.isEmpty()) {
      throw new InvalidOptionsException(problems);
    }
  }

  private static void checkInstalled(Catalog catalog, Index index) {
    InstalledCheck check = catalog.installedCheck();
    if (check != null && index.deployment(check.workload()).isEmpty()) {
      throw new NotInstalledException(
          "deployment "
              + check.workload().key()
              + " not found: the cluster does not look like an install of "
              + catalog.platformName()
              + " ("
              + check.hint()
              + ")");
    }
  }

  private static void planCrds(
      PlatformRelease release,
      Selection selection,
      Index index,
      List<PlanWarning> warnings,
      List<CrdResult> preview,
      List<CrdDocument> toApply,
      String source) {
    if (!release.crdChange()) {
      return;
    }
    if (!selection.only().isEmpty()) {
      warnings.add(PlanWarning.of(PlanWarning.Code.CRDS_SKIPPED_BY_ONLY, release.version()));
      return;
    }
    if (release.crds().isBlank()) {
      throw new InvalidManifestException(
          source,
          List.of(
              "crdChange is set but the release has no embedded crds; attach the release's CRD"
                  + " bundle (PlatformRelease.withCrds)"));
    }
    CrdBundle bundle = release.crdBundle();
    for (CrdDocument doc : bundle.crds()) {
      Optional<CrdState> live = index.crd(doc.name());
      if (live.isEmpty()) {
        preview.add(CrdResult.of(doc.name(), "create"));
        toApply.add(doc);
        continue;
      }
      Map<String, @Nullable Object> desired =
          CrdDefaults.apply(
              live.get().dryRunSpec().isEmpty() ? doc.spec() : live.get().dryRunSpec());
      if (desired.equals(CrdDefaults.apply(live.get().spec()))) {
        preview.add(CrdResult.of(doc.name(), CrdResult.SKIPPED));
        continue;
      }
      List<String> unsafe =
          CrdGate.problems(live.get().spec(), live.get().storedVersions(), desired);
      if (unsafe.isEmpty()) {
        preview.add(CrdResult.of(doc.name(), "update"));
        toApply.add(doc);
      } else if (selection.allowUnsafeCrdChanges()) {
        String reason = String.join("; ", unsafe);
        preview.add(CrdResult.withReason(doc.name(), "update", reason));
        toApply.add(doc);
        warnings.add(
            PlanWarning.of(PlanWarning.Code.UNSAFE_CRD_CHANGE_APPLIED, doc.name(), reason));
      } else {
        preview.add(CrdResult.withReason(doc.name(), CrdResult.BLOCKED, String.join("; ", unsafe)));
      }
    }
    if (toApply.isEmpty() && preview.stream().noneMatch(CrdResult::isBlocked)) {
      warnings.add(PlanWarning.of(PlanWarning.Code.CRDS_MATCH));
    } else if (!toApply.isEmpty()) {
      warnings.add(
          PlanWarning.of(
              PlanWarning.Code.CRDS_APPLIED_FIRST,
              release.version(),
              String.join(", ", toApply.stream().map(CrdDocument::name).toList())));
    }
  }

  private static PlanRow planComponent(
      CatalogComponent c,
      Optional<ManifestComponent> entry,
      PlatformRelease release,
      Catalog catalog,
      Selection selection,
      Index index) {
    String group = c.optInGroup();
    if (!selection.only().isEmpty() && !selection.only().contains(c.name())) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.NOT_SELECTED));
    }
    if (selection.only().isEmpty() && group != null && !selection.includeGroups().contains(group)) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.OPT_IN, group));
    }
    if (entry.isEmpty()) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.NOT_IN_MANIFEST));
    }
    String targetVersion =
        c.built() ? ImageRef.releaseVersion(entry.get().tag()) : entry.get().tag();
    Workload workload = c.workload();
    if (workload == null) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.ON_DEMAND))
          .withVersions("", "", "", targetVersion);
    }
    Optional<DeploymentState> deployment = index.deployment(workload);
    if (deployment.isEmpty()) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.NOT_INSTALLED))
          .withVersions("", "", "", targetVersion);
    }
    Optional<ContainerState> container = deployment.get().container(c.container());
    if (container.isEmpty()) {
      return PlanRow.skip(c, RowReason.of(RowReason.Code.CONTAINER_NOT_FOUND, c.container()))
          .withVersions("", "", "", targetVersion);
    }
    String envVar = c.envVar();
    String currentImage =
        envVar == null ? container.get().image() : container.get().envValue(envVar).orElse("");
    if (envVar != null && currentImage.isEmpty()) {
      return PlanRow.skip(
              c, RowReason.of(RowReason.Code.ENV_VAR_NOT_SET, envVar, workload.deployment()))
          .withVersions("", "", "", targetVersion);
    }
    ImageRef current;
    try {
      current = ImageRef.parse(currentImage);
    } catch (IllegalArgumentException e) {
      return PlanRow.skip(
              c, RowReason.of(RowReason.Code.UNPARSABLE_IMAGE, String.valueOf(e.getMessage())))
          .withVersions(currentImage, "", "", targetVersion);
    }
    String currentVersion = c.built() ? ImageRef.releaseVersion(current.tag()) : current.tag();
    if (!Semver.isValid(currentVersion) && c.built() && envVar == null) {
      String stamped = deployment.get().annotations().get(catalog.metadata().versionAnnotation());
      if (stamped != null && !stamped.isEmpty()) {
        currentVersion = stamped;
      }
    }
    String runningDigest =
        envVar == null ? index.runningDigest(deployment.get(), c.container()) : "";
    String currentDigest = current.digest().isEmpty() ? runningDigest : current.digest();
    ImageRef target = entry.get().targetRef(release.registry(), current.registry());
    PlanRow row =
        PlanRow.skip(c, RowReason.NONE)
            .withVersions(currentImage, currentDigest, currentVersion, targetVersion)
            .withTargetImage(target.toString());
    boolean sameName = target.name().equals(current.name()) && target.tag().equals(current.tag());
    if (!sameName) {
      return row.withAction(PlanAction.UPDATE, RowReason.NONE);
    }
    if (target.digest().isEmpty()) {
      return row.withTargetImage(current.digest().isEmpty() ? target.toString() : currentImage)
          .withAction(PlanAction.UNCHANGED, RowReason.of(RowReason.Code.IMAGE_MATCHES));
    }
    if (current.digest().equals(target.digest())) {
      return row.withAction(PlanAction.UNCHANGED, RowReason.of(RowReason.Code.IMAGE_MATCHES));
    }
    if (current.digest().isEmpty() && runningDigest.equals(target.digest())) {
      return row.withAction(PlanAction.UPDATE, RowReason.NONE).withNote(PINNING);
    }
    return row.withAction(PlanAction.UPDATE, RowReason.NONE);
  }

  private static PlanRow guard(PlanRow row, CatalogComponent c, Selection selection) {
    if (row.action() != PlanAction.UPDATE) {
      return row;
    }
    String from = row.currentVersion();
    String to = row.targetVersion();
    Optional<Semver> current = Semver.tryParse(from);
    Optional<Semver> target = Semver.tryParse(to);
    if (c.versionPolicy() instanceof VersionPolicy.SameMinor policy) {
      if (current.isEmpty() || target.isEmpty() || !current.get().sameMinor(target.get())) {
        return row.withAction(
            PlanAction.BLOCKED,
            RowReason.of(RowReason.Code.NOT_A_PATCH_UPDATE, c.name(), from, to, policy.hint()));
      }
    }
    if (current.isEmpty() || target.isEmpty()) {
      return row.withNote(
          "version \"" + from + "\" or \"" + to + "\" is not semver; downgrade check skipped");
    }
    if (target.get().compareTo(current.get()) < 0 && !selection.allowDowngrade()) {
      return row.withAction(PlanAction.BLOCKED, RowReason.of(RowReason.Code.DOWNGRADE, from, to));
    }
    return row;
  }

  /** Orders versions by semver precedence; non-semver strings after, lexically. */
  private static int compareVersions(String a, String b) {
    Optional<Semver> sa = Semver.tryParse(a);
    Optional<Semver> sb = Semver.tryParse(b);
    if (sa.isPresent() && sb.isPresent()) {
      int c = sa.get().compareTo(sb.get());
      return c != 0 ? c : a.compareTo(b);
    }
    if (sa.isPresent() != sb.isPresent()) {
      return sa.isPresent() ? -1 : 1;
    }
    return a.compareTo(b);
  }

  /** The snapshot, indexed once so planning stays linear in its size. */
  private static final class Index {
    private final Map<Workload, DeploymentState> deployments = new HashMap<>();

    /** Pods by namespace and one of their labels, so a selector's candidates are one lookup. */
    private final Map<String, List<PodState>> podsByLabel = new HashMap<>();

    private final Map<String, CrdState> crds = new HashMap<>();

    Index(InventorySnapshot inventory) {
      for (DeploymentState d : inventory.deployments()) {
        deployments.put(d.workload(), d);
      }
      for (PodState p : inventory.pods()) {
        for (Map.Entry<String, String> label : p.labels().entrySet()) {
          podsByLabel
              .computeIfAbsent(labelKey(p.namespace(), label), k -> new ArrayList<>())
              .add(p);
        }
      }
      for (CrdState c : inventory.crds()) {
        crds.put(c.name(), c);
      }
    }

    Optional<DeploymentState> deployment(Workload w) {
      return Optional.ofNullable(deployments.get(w));
    }

    Optional<CrdState> crd(String name) {
      return Optional.ofNullable(crds.get(name));
    }

    /**
     * The digest every ready container of this name in the Deployment's pods runs, or empty when
     * there is none or they disagree.
     */
    String runningDigest(DeploymentState d, String container) {
      String digest = "";
      if (d.selector().isEmpty()) {
        return "";
      }
      Map.Entry<String, String> first = d.selector().entrySet().iterator().next();
      for (PodState pod :
          podsByLabel.getOrDefault(labelKey(d.workload().namespace(), first), List.of())) {
        if (!pod.matches(d.selector())) {
          continue;
        }
        for (ContainerStatus status : pod.containers()) {
          if (!status.name().equals(container) || !status.ready()) {
            continue;
          }
          Optional<String> running = ImageRef.digestFromImageId(status.imageId());
          if (running.isEmpty() || (!digest.isEmpty() && !digest.equals(running.get()))) {
            return "";
          }
          digest = running.get();
        }
      }
      return digest;
    }

    private static String labelKey(String namespace, Map.Entry<String, String> label) {
      return namespace + '\0' + label.getKey() + '=' + label.getValue();
    }
  }
}
