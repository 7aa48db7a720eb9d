package dev.capstan.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.CrdDefaults;
import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.CrdVersion;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.cluster.RolloutProgress;
import dev.capstan.update.cluster.RolloutStatus;
import dev.capstan.update.cluster.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of update-core's {@link PlatformCluster}: the cluster's identity, the inventory,
 * reading and patching a Deployment and its rollout, and reading and applying a
 * CustomResourceDefinition. Extend it, implement {@link #newCluster(DeploymentState)}, which
 * returns a cluster with the given Deployment installed, and run it as a test class.
 *
 * <p>Every test works in a namespace of its own ({@link #namespace()}) with one installed
 * Deployment ({@link #installed()}: two containers, env vars, labels, an annotation, one replica),
 * and CRDs of a group of its own ({@link #crdName(String)}). Not found is an empty result, never an
 * exception; what the implementation's messages say is its own.
 */
public abstract class PlatformClusterContract {
  /** How long a rollout may take on a real cluster. */
  protected static final Duration ROLLOUT = Duration.ofSeconds(90);

  /** The installed Deployment's name. */
  protected static final String DEPLOYMENT = "web";

  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private @Nullable PlatformCluster cluster;
  private @Nullable String namespace;

  /** For subclasses. */
  protected PlatformClusterContract() {}

  /**
   * A cluster to test, called before each test after {@link #newNamespace()}, on which {@code
   * installed} exists as a Deployment of one replica whose rollout is complete: its labels and
   * annotations as metadata, its selector as {@code spec.selector.matchLabels} and the pod
   * template's labels, its containers (images and env vars) in order.
   */
  protected abstract PlatformCluster newCluster(DeploymentState installed);

  /**
   * The test's namespace, called before each test: one no other test uses. Override to create it
   * where the cluster needs it to exist.
   */
  protected String newNamespace() {
    return "tck-" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet();
  }

  /**
   * The name of the test CRD of the test in {@code namespace}: {@code widgets.NAMESPACE.tck.capstan
   * .dev}, a group no other test uses (so a subclass can delete it after the test).
   */
  protected static String crdName(String namespace) {
    return "widgets." + crdGroup(namespace);
  }

  private static String crdGroup(String namespace) {
    return namespace + ".tck.capstan.dev";
  }

  /** Creates the namespace and the cluster with the Deployment installed. */
  @BeforeEach
  public final void createCluster() {
    namespace = newNamespace();
    cluster = newCluster(installed());
  }

  /** The cluster under test. */
  protected final PlatformCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the cluster is created before each test");
    }
    return cluster;
  }

  /** The test's namespace. */
  protected final String namespace() {
    if (namespace == null) {
      throw new IllegalStateException("the namespace is chosen before each test");
    }
    return namespace;
  }

  /** The installed Deployment. */
  protected final Workload workload() {
    return Workload.of(namespace(), DEPLOYMENT);
  }

  /**
   * The Deployment installed before each test: container {@code web} (with env vars {@code LOG} and
   * {@code SIDECAR_IMAGE}) and container {@code proxy}, labelled, annotated, selected by {@code
   * app=web}.
   */
  protected final DeploymentState installed() {
    return new DeploymentState(
        workload(),
        Map.of("app.kubernetes.io/part-of", "tck"),
        Map.of("tck.capstan.dev/installed-by", "tck"),
        Map.of("app", DEPLOYMENT),
        List.of(
            new ContainerState(
                "web",
                "registry.example/tck/web:v1.0.0",
                List.of(
                    EnvVar.of("LOG", "debug"),
                    EnvVar.of("SIDECAR_IMAGE", "registry.example/tck/sidecar:v1.0.0"))),
            ContainerState.of("proxy", "registry.example/tck/proxy:v1.0.0")));
  }

  /** The test CRD's document: {@code Widget} of the test's group, with {@code versions}. */
  protected final Map<String, @Nullable Object> crdDocument(List<CrdVersion> versions) {
    List<Object> entries =
        versions.stream()
            .<Object>map(
                v ->
                    Map.of(
                        "name",
                        v.name(),
                        "served",
                        v.served(),
                        "storage",
                        v.storage(),
                        "schema",
                        Map.of(
                            "openAPIV3Schema",
                            Map.of(
                                "type", "object", "x-kubernetes-preserve-unknown-fields", true))))
            .toList();
    Map<String, @Nullable Object> spec = new LinkedHashMap<>();
    spec.put("group", crdGroup(namespace()));
    spec.put(
        "names",
        Map.of(
            "kind", "Widget", "plural", "widgets", "singular", "widget", "listKind", "WidgetList"));
    spec.put("scope", "Namespaced");
    spec.put("versions", entries);
    Map<String, @Nullable Object> document = new LinkedHashMap<>();
    document.put("apiVersion", "apiextensions.k8s.io/v1");
    document.put("kind", "CustomResourceDefinition");
    document.put("metadata", Map.of("name", crdName(namespace())));
    document.put("spec", spec);
    return document;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> specOf(Map<String, @Nullable Object> document) {
    return (Map<String, @Nullable Object>) java.util.Objects.requireNonNull(document.get("spec"));
  }

  /** Reads the rollout status until {@code done} holds, or fails after {@link #ROLLOUT}. */
  protected final RolloutStatus awaitRollout(java.util.function.Predicate<RolloutStatus> done) {
    Instant deadline = Instant.now().plus(ROLLOUT);
    RolloutStatus last = null;
    while (Instant.now().isBefore(deadline)) {
      last = cluster().rolloutStatus(workload()).orElseThrow();
      if (done.test(last)) {
        return last;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for the rollout", e);
      }
    }
    throw new AssertionError("the rollout did not finish in " + ROLLOUT + "; last status " + last);
  }

  private static final RolloutProgress DONE =
      new RolloutProgress.Done("deployment \"" + DEPLOYMENT + "\" successfully rolled out");

  // ---------------------------------------------------------------------------- identity

  /** The cluster names its API server and a cluster id, the same on every call. */
  @Test
  public void infoNamesTheServerAndTheClusterIdTheSameEveryTime() {
    ClusterInfo info = cluster().info();

    assertThat(info.server()).isNotBlank();
    assertThat(info.clusterId()).isNotBlank();
    assertThat(cluster().info()).isEqualTo(info);
  }

  // -------------------------------------------------------------------------- Deployments

  /**
   * The installed Deployment reads back as installed: workload, labels, selector, containers and
   * env vars in order, and its annotations (among those a controller adds).
   */
  @Test
  public void deploymentReadsBackAsInstalled() {
    DeploymentState live = cluster().deployment(workload()).orElseThrow();

    assertThat(live.workload()).isEqualTo(workload());
    assertThat(live.labels()).isEqualTo(installed().labels());
    assertThat(live.annotations()).containsAllEntriesOf(installed().annotations());
    assertThat(live.selector()).isEqualTo(installed().selector());
    assertThat(live.containers()).isEqualTo(installed().containers());
  }

  /** A Deployment that does not exist, in the namespace or in one that does not, is empty. */
  @Test
  public void absentDeploymentIsEmpty() {
    assertThat(cluster().deployment(Workload.of(namespace(), "ghost"))).isEmpty();
    assertThat(cluster().rolloutStatus(Workload.of(namespace(), "ghost"))).isEmpty();
    assertThat(cluster().deployment(Workload.of(namespace() + "-none", DEPLOYMENT))).isEmpty();
  }

  /**
   * The inventory holds the Deployments asked for that exist, as {@link PlatformCluster#deployment}
   * reads them, and their pods: one ready pod of the one replica, selected by the Deployment, with
   * a status per container; absent ones are left out.
   */
  @Test
  public void inventoryHoldsTheInstalledDeploymentAndItsPod() {
    InventorySnapshot snapshot =
        cluster()
            .inventory(
                new InventoryQuery(
                    List.of(workload(), Workload.of(namespace(), "ghost")),
                    List.of(crdName(namespace()))));

    assertThat(snapshot.deployments()).containsExactly(cluster().deployment(workload()).get());
    assertThat(snapshot.pods()).hasSize(1);
    PodState pod = snapshot.pods().get(0);
    assertThat(pod.namespace()).isEqualTo(namespace());
    assertThat(pod.matches(installed().selector())).isTrue();
    assertThat(pod.containers())
        .extracting(ContainerStatus::name, ContainerStatus::ready)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("web", true),
            org.assertj.core.groups.Tuple.tuple("proxy", true));
    assertThat(snapshot.crds()).isEmpty();
  }

  /** An inventory of nothing that exists is empty. */
  @Test
  public void inventoryOfAbsentObjectsIsEmpty() {
    InventorySnapshot snapshot =
        cluster()
            .inventory(
                new InventoryQuery(
                    List.of(Workload.of(namespace(), "ghost")), List.of(crdName(namespace()))));

    assertThat(snapshot).isEqualTo(InventorySnapshot.empty());
  }

  /** The installed Deployment's rollout is complete: generation observed, one replica available. */
  @Test
  public void rolloutOfTheInstalledDeploymentIsComplete() {
    RolloutStatus status = cluster().rolloutStatus(workload()).orElseThrow();

    assertThat(status.observedGeneration()).isEqualTo(status.generation());
    assertThat(status.desiredReplicas()).isEqualTo(1);
    assertThat(status.replicas()).isEqualTo(1);
    assertThat(status.updatedReplicas()).isEqualTo(1);
    assertThat(status.availableReplicas()).isEqualTo(1);
    assertThat(status.progress(DEPLOYMENT)).isEqualTo(DONE);
  }

  /**
   * A patch sets one container's image and one env var's value, merged by name: the other
   * container, the other env var (in place, in order), labels and annotations stay; the patch's
   * labels and annotations are added.
   */
  @Test
  public void patchChangesOnlyWhatItNames() {
    DeploymentPatch patch =
        new DeploymentPatch(
            workload(),
            List.of(
                new ContainerPatch.SetImage("web", "registry.example/tck/web:v1.1.0"),
                new ContainerPatch.SetEnv(
                    "web", "SIDECAR_IMAGE", "registry.example/tck/sidecar:v1.1.0")),
            Map.of("tck.capstan.dev/version", "v1.1.0"),
            Map.of("tck.capstan.dev/updated-by", "tck"));

    cluster().patch(patch);

    DeploymentState live = cluster().deployment(workload()).orElseThrow();
    assertThat(live.containers())
        .containsExactly(
            new ContainerState(
                "web",
                "registry.example/tck/web:v1.1.0",
                List.of(
                    EnvVar.of("LOG", "debug"),
                    EnvVar.of("SIDECAR_IMAGE", "registry.example/tck/sidecar:v1.1.0"))),
            ContainerState.of("proxy", "registry.example/tck/proxy:v1.0.0"));
    assertThat(live.labels())
        .isEqualTo(Map.of("app.kubernetes.io/part-of", "tck", "tck.capstan.dev/version", "v1.1.0"));
    assertThat(live.annotations())
        .containsAllEntriesOf(installed().annotations())
        .containsEntry("tck.capstan.dev/updated-by", "tck");
    assertThat(live.selector()).isEqualTo(installed().selector());
    assertThat(patch.satisfiedBy(live)).isTrue();
  }

  /**
   * An image patch starts a new rollout: the generation goes up by one, and the rollout completes
   * on it; a patch of labels only changes no generation.
   */
  @Test
  public void anImagePatchStartsARolloutThatCompletes() {
    long before = cluster().rolloutStatus(workload()).orElseThrow().generation();

    cluster()
        .patch(
            new DeploymentPatch(
                workload(), List.of(), Map.of("tck.capstan.dev/version", "v1.0.1"), Map.of()));
    assertThat(cluster().rolloutStatus(workload()).orElseThrow().generation()).isEqualTo(before);

    cluster()
        .patch(
            new DeploymentPatch(
                workload(),
                List.of(new ContainerPatch.SetImage("proxy", "registry.example/tck/proxy:v1.1.0")),
                Map.of(),
                Map.of()));

    assertThat(cluster().rolloutStatus(workload()).orElseThrow().generation())
        .isEqualTo(before + 1);
    RolloutStatus done = awaitRollout(s -> s.progress(DEPLOYMENT) instanceof RolloutProgress.Done);
    assertThat(done.generation()).isEqualTo(before + 1);
    assertThat(done.observedGeneration()).isEqualTo(before + 1);
    assertThat(done.availableReplicas()).isEqualTo(1);
  }

  /** Patching a Deployment that does not exist fails (it is a write, not a read). */
  @Test
  public void patchOfAnAbsentDeploymentFails() {
    Workload ghost = Workload.of(namespace(), "ghost");

    assertThatThrownBy(
            () ->
                cluster()
                    .patch(
                        new DeploymentPatch(
                            ghost,
                            List.of(new ContainerPatch.SetImage("web", "registry.example/x:1")),
                            Map.of(),
                            Map.of())))
        .isInstanceOf(ClusterException.class);
    assertThat(cluster().deployment(ghost)).isEmpty();
  }

  // --------------------------------------------------------------------------------- CRDs

  /** A CRD nobody applied is empty. */
  @Test
  public void absentCrdIsEmpty() {
    assertThat(cluster().crd(crdName(namespace()))).isEmpty();
  }

  /**
   * Applying a new CRD creates it ({@code created}): it reads back established with its names
   * accepted, its spec as applied with the API server's defaults ({@link CrdDefaults}), and its
   * storage version stored; applied again, unchanged, it is {@code configured}.
   */
  @Test
  public void applyCrdCreatesAnEstablishedCrdThenConfiguresIt() {
    String name = crdName(namespace());
    Map<String, @Nullable Object> document = crdDocument(List.of(new CrdVersion("v1", true, true)));

    assertThat(cluster().applyCrd(name, document)).isEqualTo("created");

    CrdState live = cluster().crd(name).orElseThrow();
    assertThat(live.name()).isEqualTo(name);
    assertThat(live.condition("Established"))
        .hasValueSatisfying(c -> assertThat(c.holds()).isTrue());
    assertThat(live.condition("NamesAccepted"))
        .hasValueSatisfying(c -> assertThat(c.holds()).isTrue());
    assertThat(live.spec()).isEqualTo(CrdDefaults.apply(specOf(document)));
    assertThat(live.versions()).containsExactly(new CrdVersion("v1", true, true));
    assertThat(live.storedVersions()).containsExactly("v1");
    assertThat(live.dryRunSpec()).isEmpty();

    assertThat(cluster().applyCrd(name, document)).isEqualTo("configured");
    assertThat(cluster().crd(name).orElseThrow().spec()).isEqualTo(live.spec());
  }

  /**
   * A CRD document that no longer declares a stored version is applied, and the version is dropped
   * from the stored versions; the new storage version is stored.
   */
  @Test
  public void applyCrdDropsStoredVersionsTheDocumentNoLongerDeclares() {
    String name = crdName(namespace());
    cluster().applyCrd(name, crdDocument(List.of(new CrdVersion("v1", true, true))));

    String action =
        cluster().applyCrd(name, crdDocument(List.of(new CrdVersion("v2", true, true))));

    assertThat(action).isEqualTo("configured");
    CrdState live = cluster().crd(name).orElseThrow();
    assertThat(live.versions()).containsExactly(new CrdVersion("v2", true, true));
    assertThat(live.storedVersions()).containsExactly("v2");
  }

  /**
   * The inventory reports an existing CRD with its stored versions, and, for a document it is
   * given, the spec applying it would give, writing nothing: the live spec for the document as
   * applied, the changed spec for a changed one, while the CRD stays as it was.
   */
  @Test
  public void inventoryDryRunsCrdDocumentsWithoutWriting() {
    String name = crdName(namespace());
    Map<String, @Nullable Object> v1 = crdDocument(List.of(new CrdVersion("v1", true, true)));
    cluster().applyCrd(name, v1);
    CrdState before = cluster().crd(name).orElseThrow();
    Map<String, @Nullable Object> v1AndV2 =
        crdDocument(List.of(new CrdVersion("v1", true, true), new CrdVersion("v2", true, false)));

    Optional<CrdState> same =
        cluster()
            .inventory(new InventoryQuery(List.of(), List.of(name), Map.of(name, v1)))
            .crds()
            .stream()
            .findFirst();
    Optional<CrdState> changed =
        cluster()
            .inventory(new InventoryQuery(List.of(), List.of(name), Map.of(name, v1AndV2)))
            .crds()
            .stream()
            .findFirst();
    Optional<CrdState> plain =
        cluster().inventory(new InventoryQuery(List.of(), List.of(name))).crds().stream()
            .findFirst();

    assertThat(same).hasValueSatisfying(c -> assertThat(c.dryRunSpec()).isEqualTo(before.spec()));
    assertThat(changed)
        .hasValueSatisfying(
            c -> {
              assertThat(c.spec()).isEqualTo(before.spec());
              assertThat(c.storedVersions()).containsExactly("v1");
              assertThat(CrdState.versions(c.dryRunSpec()))
                  .containsExactly(
                      new CrdVersion("v1", true, true), new CrdVersion("v2", true, false));
            });
    assertThat(plain)
        .hasValueSatisfying(
            c -> {
              assertThat(c.spec()).isEqualTo(before.spec());
              assertThat(c.dryRunSpec()).isEmpty();
            });
    assertThat(cluster().crd(name).orElseThrow().spec()).isEqualTo(before.spec());
  }
}
