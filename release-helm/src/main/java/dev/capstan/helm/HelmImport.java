package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.k8s.FieldManagers;
import dev.capstan.k8s.KubeClients;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.file.InvalidReleaseFileException;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.rollout.ConfigRollout;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Takes a Helm 3 or 4 release over as a Capstan release of the same namespace and name, without
 * recreating anything.
 *
 * <ol>
 *   <li>{@link #plan}: reads Helm's release records (Secrets and ConfigMaps labelled {@code
 *       owner=helm,name=RELEASE}) through the Kubernetes API, decodes them ({@link HelmRecords}),
 *       reads the deployed revision's manifest as plain manifests are read (release-file), and
 *       plans a cast that adopts every live object; shows what the manifest names but the cluster
 *       lacks and what Helm's hooks created, judging each of those objects ({@link HookMarking}:
 *       this Helm release's hook, or someone else's object at its name). Nothing is written; a
 *       corrupt, oversized or unknown record, or a release Helm is in the middle of changing, is
 *       refused here.
 *   <li>{@link #run}: records every Helm revision as a Capstan history entry (marked imported, no
 *       objects owned), casts the deployed revision's objects as the next revision (the objects'
 *       content is what Helm applied, so only Capstan's stamp is added: no pod restarts), hands
 *       every object's fields over from Helm's field manager {@code helm} to Capstan's ({@link
 *       FieldManagers}), marks the hook objects judged this release's as its hooks (each written
 *       under the precondition of the look), and, when asked, deletes Helm's records.
 * </ol>
 *
 * <p>An import interrupted after the history was recorded is resumed by planning and running it
 * again.
 */
public final class HelmImport {
  /** The field manager Helm 3 (client-side, {@code Update}) and Helm 4 (server-side) write as. */
  public static final Set<String> HELM_MANAGERS = Set.of("helm");

  /** The start of every imported history entry's description. */
  public static final String IMPORTED = "imported from Helm revision ";

  private final CoreV1Api core;
  private final FieldManagers fields;
  private final Orchestrator orchestrator;
  private final Store store;
  private final ReleaseController controller;
  private final HelmLimits limits;

  private HelmImport(
      KubeClients clients,
      Orchestrator orchestrator,
      Store store,
      ReleaseController controller,
      HelmLimits limits) {
    this.core = new CoreV1Api(clients.apiClient());
    this.fields = new FieldManagers(clients);
    this.orchestrator = orchestrator;
    this.store = store;
    this.controller = controller;
    this.limits = limits;
  }

  /**
   * An import over the given adapters: the controller must be built on {@code orchestrator} and
   * {@code store}, which work on the cluster {@code clients} reach.
   *
   * @param clients the clients to read Helm's records and hand fields over with
   * @param orchestrator the cluster
   * @param store where Capstan's records go
   * @param controller the release controller that casts
   * @return the import, with {@link HelmLimits#defaults()}
   */
  public static HelmImport of(
      KubeClients clients, Orchestrator orchestrator, Store store, ReleaseController controller) {
    return new HelmImport(
        requireNonNull(clients, "clients"),
        requireNonNull(orchestrator, "orchestrator"),
        requireNonNull(store, "store"),
        requireNonNull(controller, "controller"),
        HelmLimits.defaults());
  }

  /**
   * A copy that decodes records within other limits.
   *
   * @param limits the limits
   * @return the copy
   */
  public HelmImport withLimits(HelmLimits limits) {
    return new HelmImport(this, requireNonNull(limits, "limits"));
  }

  private HelmImport(HelmImport other, HelmLimits limits) {
    this.core = other.core;
    this.fields = other.fields;
    this.orchestrator = other.orchestrator;
    this.store = other.store;
    this.controller = other.controller;
    this.limits = limits;
  }

  /**
   * Reads and checks a Helm release and plans its import; writes nothing.
   *
   * @param namespace the Helm release's namespace
   * @param release the Helm release's name
   * @return the plan
   * @throws HelmRecordException when a record cannot be read
   * @throws ReleaseException when there is no such Helm release, Helm is changing it, its latest
   *     revision is not deployed, or a Capstan release of that name exists already
   */
  public HelmImportPlan plan(String namespace, String release) {
    requireNonNull(namespace, "namespace");
    requireNonNull(release, "release");
    String qualified = namespace + "/" + release;
    List<HelmRecord> records = records(namespace, release);
    if (records.isEmpty()) {
      throw new ReleaseException(
          "no Helm release "
              + qualified
              + ": no Secret or ConfigMap in "
              + namespace
              + " is labelled owner=helm,name="
              + release
              + "; nothing was written");
    }
    List<HelmRevision> revisions = HelmRecords.history(namespace, release, records, limits);
    HelmRevision latest = revisions.get(revisions.size() - 1);
    if (latest.status() != HelmStatus.DEPLOYED) {
      throw new ReleaseException(
          "Helm release "
              + qualified
              + ": the latest revision "
              + latest.revision()
              + " is "
              + latest.status().wire()
              + (latest.status().inProgress()
                  ? " (Helm is changing the release; wait for it)"
                  : "; only a release whose latest revision is deployed is imported (helm"
                      + " rollback or helm upgrade it first)")
              + "; nothing was written");
    }
    List<Release> history = new ArrayList<>();
    String id = UUID.randomUUID().toString();
    Payloads deployedPayloads = Payloads.empty();
    for (HelmRevision r : revisions) {
      Payloads payloads = payloads(r, namespace, release);
      if (r.revision() == latest.revision()) {
        deployedPayloads = payloads;
      }
      // the history keeps Helm's hooks as hooks (a rollback to a revision runs its rollback
      // hooks, an uninstall its delete hooks); the adopting cast runs none: Helm ran them
      history.add(imported(id, r, withHooks(payloads, r, namespace, release)));
    }
    boolean recorded = alreadyRecorded(namespace, release, revisions);
    ReleaseSpec spec =
        ReleaseSpec.of(namespace, release, deployedPayloads)
            .withAdopt(true)
            .withSource(source(latest))
            .withVersion(latest.appVersion() == null ? latest.chartVersion() : latest.appVersion());
    Plan plan = controller.plan(new ReleaseInput(spec, deployedPayloads));
    return new HelmImportPlan(
        revisions,
        latest,
        history,
        recorded,
        spec,
        deployedPayloads,
        plan,
        new HookMarking(orchestrator, namespace, release).look(latest));
  }

  /**
   * Runs a plan: records the history, casts (adopting), hands the fields over from Helm, marks the
   * hook objects that are this Helm release's hooks as they stand (any other object at a hook's
   * name is left as it is: {@link HelmImportResult#hooks()} says why), and removes Helm's records
   * when asked.
   *
   * @param plan the plan from {@link #plan}, shown to the user
   * @param removeHelmRecords delete Helm's release records after the cast (then {@code helm} no
   *     longer knows the release); by default they stay and a return to Helm stays possible
   * @return what was done
   * @throws ReleaseConflictException when an object belongs to another release (before any write)
   * @throws ReleaseException when Helm changed the release since the plan (before any write)
   */
  public HelmImportResult run(HelmImportPlan plan, boolean removeHelmRecords) {
    requireNonNull(plan, "plan");
    ReleaseSpec spec = plan.spec();
    if (!plan.applyable()) {
      throw new ReleaseConflictException(plan.plan());
    }
    HelmImportPlan now = plan(spec.namespace(), spec.name());
    if (now.deployed().revision() != plan.deployed().revision()
        || now.revisions().size() != plan.revisions().size()) {
      throw new ReleaseException(
          "Helm release "
              + spec.qualifiedName()
              + " changed since the plan (now revision "
              + now.deployed().revision()
              + "); plan again; nothing was written");
    }
    List<Integer> imported = new ArrayList<>();
    if (!now.historyRecorded()) {
      for (Release entry : plan.history()) {
        store.createRecord(entry);
        imported.add(entry.revision());
      }
    }
    CastResult cast = controller.cast(new ReleaseInput(spec, plan.payloads()));
    describeCast(cast.release(), plan.deployed());
    Map<ResourceRef, List<String>> handedOver = new LinkedHashMap<>();
    for (DesiredResource d : spec.resources()) {
      List<String> removed = fields.handOver(d.ref(), cast.release().identity(), HELM_MANAGERS);
      if (!removed.isEmpty()) {
        handedOver.put(d.ref(), removed);
      }
    }
    List<HelmImportPlan.HookObject> hooks =
        new HookMarking(orchestrator, spec.namespace(), spec.name())
            .mark(now.deployed(), now.hooks(), cast.release().identity());
    List<String> removedRecords = new ArrayList<>();
    if (removeHelmRecords) {
      for (HelmRevision r : now.revisions()) {
        delete(r.record());
        removedRecords.add(r.record().describe());
      }
    }
    return new HelmImportResult(cast, imported, handedOver, hooks, removedRecords);
  }

  // ------------------------------------------------------------------ history

  private static String source(HelmRevision r) {
    return "helm chart " + r.chart();
  }

  /** The Capstan history entry of one Helm revision: marked imported, owning nothing. */
  static Release imported(String id, HelmRevision r, Payloads payloads) {
    ReleaseStatus status =
        switch (r.status()) {
          case DEPLOYED -> ReleaseStatus.DEPLOYED;
          case FAILED -> ReleaseStatus.FAILED;
          default -> ReleaseStatus.SUPERSEDED;
        };
    StringBuilder description =
        new StringBuilder(IMPORTED)
            .append(r.revision())
            .append(" (")
            .append(r.status().wire())
            .append(")");
    if (!r.description().isEmpty()) {
      description.append(": ").append(r.description());
    }
    description.append(" (chart ").append(r.chart());
    if (r.appVersion() != null) {
      description.append(", app ").append(r.appVersion());
    }
    description.append(')');
    Instant at =
        r.lastDeployed() != null
            ? r.lastDeployed()
            : r.firstDeployed() != null ? r.firstDeployed() : Instant.EPOCH;
    return new Release(
        id,
        r.namespace(),
        r.release(),
        r.revision(),
        status,
        List.of(),
        List.of(),
        List.of(),
        source(r),
        r.appVersion() == null ? r.chartVersion() : r.appVersion(),
        description.toString(),
        payloads,
        status == ReleaseStatus.FAILED ? r.description() : null,
        at,
        at,
        null);
  }

  /**
   * Whether an earlier import recorded exactly these revisions and was interrupted before its cast.
   *
   * @throws ReleaseException when a Capstan release of this name exists otherwise
   */
  private boolean alreadyRecorded(String namespace, String release, List<HelmRevision> revisions) {
    Optional<StoredRelease> latest = store.latestRecord(namespace, release);
    if (latest.isEmpty()) {
      return false;
    }
    Release r = latest.get().release();
    boolean interruptedImport =
        r.description() != null
            && r.description().startsWith(IMPORTED)
            && r.revision() == revisions.get(revisions.size() - 1).revision()
            && r.lease() == null;
    if (!interruptedImport) {
      throw new ReleaseException(
          "a Capstan release "
              + namespace
              + "/"
              + release
              + " exists already (revision "
              + r.revision()
              + ", "
              + r.status().name().toLowerCase(java.util.Locale.ROOT)
              + "); only a release Capstan does not know yet is imported; nothing was written");
    }
    return true;
  }

  /** Marks the adopting revision's record: which Helm revision it came from. */
  private void describeCast(Release cast, HelmRevision from) {
    Optional<StoredRelease> saved = store.latestRecord(cast.namespace(), cast.name());
    if (saved.isEmpty() || saved.get().release().revision() != cast.revision()) {
      return;
    }
    Release r = saved.get().release();
    // the record's Secret-hash key and withheld Secrets stay as the cast saved them
    store.updateRecord(
        r.withDescription("adopted from Helm release " + r.name() + " revision " + from.revision()),
        saved.get().version());
  }

  // ------------------------------------------------------------------ manifests and hooks

  private static Payloads payloads(HelmRevision r, String namespace, String release) {
    String source = "Helm release " + release + " revision " + r.revision() + " manifest";
    try {
      // opted out of config rollouts: taking them over replaces no pod (ConfigRollout.optedOut)
      return ConfigRollout.optedOut(
          ReleaseFiles.manifestText(r.manifest(), source, new Overrides(namespace, release))
              .payloads());
    } catch (InvalidReleaseFileException e) {
      throw new ReleaseException(e.getMessage() + "\nnothing was written", e);
    }
  }

  /** {@code payloads} with the revision's hooks added, as Capstan hooks (their annotations). */
  private static Payloads withHooks(
      Payloads payloads, HelmRevision r, String namespace, String release) {
    if (r.hooks().isEmpty()) {
      return payloads;
    }
    List<dev.capstan.release.model.ResourceSpec> items = new ArrayList<>(payloads.specs());
    for (HelmHook hook : r.hooks()) {
      for (Hook h : HookMarking.payloads(hook, r, namespace, release).hooks()) {
        items.add(h.object());
      }
    }
    try {
      return Payloads.of(items);
    } catch (IllegalArgumentException e) {
      throw new ReleaseException(
          "Helm release "
              + release
              + " revision "
              + r.revision()
              + ": "
              + e.getMessage()
              + "\nnothing was written",
          e);
    }
  }

  // ------------------------------------------------------------------ records in the cluster

  private List<HelmRecord> records(String namespace, String release) {
    String selector = HelmRecords.OWNER_LABEL + "=helm,name=" + release;
    List<HelmRecord> out = new ArrayList<>();
    try {
      for (V1Secret s :
          core.listNamespacedSecret(namespace).labelSelector(selector).execute().getItems()) {
        V1ObjectMeta m = requireNonNull(s.getMetadata(), "metadata");
        byte[] data = s.getData() == null ? null : s.getData().get("release");
        out.add(
            new HelmRecord(
                HelmRecord.Driver.SECRET,
                namespace,
                String.valueOf(m.getName()),
                s.getType(),
                labels(m),
                data == null ? null : new String(data, StandardCharsets.ISO_8859_1)));
      }
    } catch (ApiException e) {
      throw failure("list", "Secret", namespace, e);
    }
    try {
      for (V1ConfigMap c :
          core.listNamespacedConfigMap(namespace).labelSelector(selector).execute().getItems()) {
        V1ObjectMeta m = requireNonNull(c.getMetadata(), "metadata");
        out.add(
            new HelmRecord(
                HelmRecord.Driver.CONFIGMAP,
                namespace,
                String.valueOf(m.getName()),
                null,
                labels(m),
                c.getData() == null ? null : c.getData().get("release")));
      }
    } catch (ApiException e) {
      throw failure("list", "ConfigMap", namespace, e);
    }
    return out;
  }

  private static Map<String, String> labels(V1ObjectMeta m) {
    return m.getLabels() == null ? Map.of() : m.getLabels();
  }

  private void delete(HelmRecord record) {
    try {
      if (record.driver() == HelmRecord.Driver.SECRET) {
        core.deleteNamespacedSecret(record.name(), record.namespace()).execute();
      } else {
        core.deleteNamespacedConfigMap(record.name(), record.namespace()).execute();
      }
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        throw failure("delete", record.driver().kind(), record.namespace(), e);
      }
    }
  }

  private static ClusterException failure(
      String operation, String kind, String namespace, ApiException e) {
    return new ClusterException(
        operation + " Helm records", kind, namespace, null, e.getCode(), "HTTP " + e.getCode(), e);
  }
}
