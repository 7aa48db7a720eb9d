package dev.capstan.update.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.ClusterException;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.Condition;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.cluster.RolloutStatus;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.version.ImageRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@link PlatformCluster} held in memory; see the package docs. Thread-safe.
 *
 * <pre>{@code
 * InMemoryPlatformCluster cluster = InMemoryPlatformCluster.create();
 * cluster.putDeployment(DeploymentState.of(Workload.of("apps", "web"),
 *     ContainerState.of("web", "reg.example:5000/web:v1.0.0")));
 * cluster.neverReady("reg.example:5000/web:v1.1.0");      // this rollout will fail
 * cluster.faults().failNext(Operation.PATCH, "apps/web", "conflict");
 * }</pre>
 */
public final class InMemoryPlatformCluster implements PlatformCluster {

  private static final Condition ESTABLISHED = Condition.isTrue("Established");
  private static final Condition NAMES_ACCEPTED = Condition.isTrue("NamesAccepted");

  private final ClusterInfo info;
  private final Map<Workload, Sim> deployments = new LinkedHashMap<>();
  private final List<PodState> pods = new ArrayList<>();
  private final Map<String, CrdState> crds = new LinkedHashMap<>();
  private final Map<String, List<Condition>> crdConditions = new HashMap<>();
  private final Map<String, String> digests = new HashMap<>();
  private final Set<String> neverReady = new HashSet<>();
  private final List<DeploymentPatch> patches = new ArrayList<>();
  private final List<String> writes = new ArrayList<>();
  private final Faults faults = new Faults();

  private InMemoryPlatformCluster(ClusterInfo info) {
    this.info = requireNonNull(info, "info");
  }

  /**
   * Creates an empty cluster named {@code in-memory}.
   *
   * @return the cluster
   */
  public static InMemoryPlatformCluster create() {
    return create(new ClusterInfo("in-memory", "memory://", "in-memory"));
  }

  /**
   * Creates an empty cluster with a given identity.
   *
   * @param info context, server and cluster id
   * @return the cluster
   */
  public static InMemoryPlatformCluster create(ClusterInfo info) {
    return new InMemoryPlatformCluster(info);
  }

  /**
   * Adds or replaces a Deployment with one simulated ready pod.
   *
   * @param state the Deployment
   * @return this
   */
  public InMemoryPlatformCluster putDeployment(DeploymentState state) {
    return putDeployment(state, 1);
  }

  /**
   * Adds or replaces a Deployment with simulated ready pods.
   *
   * @param state the Deployment
   * @param replicas how many pods to simulate; 0 to simulate none (add pods with {@link #putPod})
   * @return this
   */
  public synchronized InMemoryPlatformCluster putDeployment(DeploymentState state, int replicas) {
    if (replicas < 0) {
      throw new IllegalArgumentException("replicas must not be negative: " + replicas);
    }
    deployments.put(state.workload(), new Sim(state, replicas));
    return this;
  }

  /**
   * Adds an explicit pod (reported by {@link #inventory} beside the simulated ones).
   *
   * @param pod the pod
   * @return this
   */
  public synchronized InMemoryPlatformCluster putPod(PodState pod) {
    pods.add(requireNonNull(pod, "pod"));
    return this;
  }

  /**
   * Adds or replaces a live CRD, established and with its names accepted.
   *
   * @param name the CRD name
   * @param spec its spec
   * @return this
   */
  public synchronized InMemoryPlatformCluster putCrd(
      String name, Map<String, @Nullable Object> spec) {
    crds.put(name, new CrdState(name, spec, List.of(ESTABLISHED, NAMES_ACCEPTED)));
    return this;
  }

  /**
   * Sets the conditions a CRD gets when it is next applied (default: {@code Established} and {@code
   * NamesAccepted} true).
   *
   * @param name the CRD name
   * @param conditions the conditions
   * @return this
   */
  public synchronized InMemoryPlatformCluster crdConditionsOnApply(
      String name, Condition... conditions) {
    crdConditions.put(name, List.of(conditions));
    return this;
  }

  /**
   * Records the digest that pulling an image yields; simulated pods running the image report it in
   * their image id.
   *
   * @param image an image reference without digest, for example {@code reg/app:v1}
   * @param digest {@code sha256:<64 hex>}
   * @return this
   */
  public synchronized InMemoryPlatformCluster publishImage(String image, String digest) {
    digests.put(image, digest);
    return this;
  }

  /**
   * Marks an image as never becoming ready: a rollout to a template naming it (as a container image
   * or an env var value) ends with {@code ProgressDeadlineExceeded}.
   *
   * @param image the image reference
   * @return this
   */
  public synchronized InMemoryPlatformCluster neverReady(String image) {
    neverReady.add(requireNonNull(image, "image"));
    return this;
  }

  /**
   * Returns the fault plan.
   *
   * @return the faults, to add rules to
   */
  public Faults faults() {
    return faults;
  }

  /**
   * Returns every patch applied, in order.
   *
   * @return the patch log
   */
  public synchronized List<DeploymentPatch> patches() {
    return List.copyOf(patches);
  }

  /**
   * Returns every write made, in order: {@code patch deployment <ns>/<name>} and {@code apply crd
   * <name>} lines.
   *
   * @return the write log
   */
  public synchronized List<String> writes() {
    return List.copyOf(writes);
  }

  @Override
  public ClusterInfo info() {
    return info;
  }

  @Override
  public synchronized InventorySnapshot inventory(InventoryQuery query) {
    faults.check(Operation.INVENTORY, "*");
    List<DeploymentState> found = new ArrayList<>();
    List<PodState> foundPods = new ArrayList<>();
    Set<String> namespaces = new HashSet<>();
    for (Workload w : query.workloads()) {
      Sim sim = deployments.get(w);
      if (sim != null) {
        found.add(sim.state);
        foundPods.addAll(sim.pods());
        namespaces.add(w.namespace());
      }
    }
    for (PodState pod : pods) {
      if (namespaces.contains(pod.namespace())) {
        foundPods.add(pod);
      }
    }
    List<CrdState> foundCrds = new ArrayList<>();
    for (String name : query.crdNames()) {
      CrdState crd = crds.get(name);
      if (crd != null) {
        foundCrds.add(crd);
      }
    }
    return new InventorySnapshot(found, foundPods, foundCrds);
  }

  @Override
  public synchronized Optional<DeploymentState> deployment(Workload workload) {
    faults.check(Operation.GET_DEPLOYMENT, workload.key());
    return Optional.ofNullable(deployments.get(workload)).map(sim -> sim.state);
  }

  @Override
  public synchronized void patch(DeploymentPatch patch) {
    faults.check(Operation.PATCH, patch.workload().key());
    Sim sim = deployments.get(patch.workload());
    if (sim == null) {
      throw new ClusterException("patch " + patch.workload().key() + ": deployment not found");
    }
    DeploymentState next;
    try {
      next = patch.applyTo(sim.state);
    } catch (IllegalArgumentException e) {
      throw new ClusterException("patch " + patch.workload().key() + ": " + e.getMessage(), e);
    }
    if (!next.containers().equals(sim.state.containers())) {
      sim.generation++;
    }
    sim.state = next;
    patches.add(patch);
    writes.add("patch deployment " + patch.workload().key());
  }

  @Override
  public synchronized Optional<RolloutStatus> rolloutStatus(Workload workload) {
    faults.check(Operation.ROLLOUT_STATUS, workload.key());
    Sim sim = deployments.get(workload);
    if (sim == null) {
      return Optional.empty();
    }
    int n = sim.replicas;
    if (sim.stuck()) {
      return Optional.of(
          new RolloutStatus(
              sim.generation,
              sim.generation,
              n,
              n,
              n,
              0,
              List.of(
                  Condition.isFalse(
                      "Progressing",
                      "ProgressDeadlineExceeded",
                      "ReplicaSet has timed out progressing."))));
    }
    return Optional.of(
        new RolloutStatus(
            sim.generation,
            sim.generation,
            n,
            n,
            n,
            n,
            List.of(
                new Condition("Progressing", "True", "NewReplicaSetAvailable", ""),
                Condition.isTrue("Available"))));
  }

  @Override
  public synchronized Optional<CrdState> crd(String name) {
    faults.check(Operation.GET_CRD, name);
    return Optional.ofNullable(crds.get(name));
  }

  @Override
  public synchronized String applyCrd(String name, Map<String, @Nullable Object> document) {
    faults.check(Operation.APPLY_CRD, name);
    Object spec = document.get("spec");
    if (!(spec instanceof Map<?, ?> specMap)) {
      throw new ClusterException("apply crd " + name + ": spec is missing");
    }
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> typed = (Map<String, @Nullable Object>) specMap;
    String action = crds.containsKey(name) ? "configured" : "created";
    List<Condition> conditions =
        crdConditions.getOrDefault(name, List.of(ESTABLISHED, NAMES_ACCEPTED));
    crds.put(name, new CrdState(name, typed, conditions));
    writes.add("apply crd " + name);
    return action;
  }

  private String imageId(String image) {
    Optional<ImageRef> ref = ImageRef.tryParse(image);
    if (ref.isEmpty()) {
      return "";
    }
    String digest =
        ref.get().digest().isEmpty()
            ? digests.getOrDefault(ref.get().withDigest("").toString(), "")
            : ref.get().digest();
    return digest.isEmpty() ? "" : "docker-pullable://" + ref.get().name() + "@" + digest;
  }

  /** One simulated Deployment. */
  private final class Sim {
    DeploymentState state;
    final int replicas;
    long generation = 1;

    Sim(DeploymentState state, int replicas) {
      this.state = state;
      this.replicas = replicas;
    }

    boolean stuck() {
      for (ContainerState c : state.containers()) {
        if (neverReady.contains(c.image())) {
          return true;
        }
        for (EnvVar e : c.env()) {
          if (neverReady.contains(e.value())) {
            return true;
          }
        }
      }
      return false;
    }

    List<PodState> pods() {
      List<PodState> out = new ArrayList<>();
      boolean ready = !stuck();
      for (int i = 0; i < replicas; i++) {
        List<ContainerStatus> statuses = new ArrayList<>();
        for (ContainerState c : state.containers()) {
          statuses.add(new ContainerStatus(c.name(), ready, imageId(c.image())));
        }
        out.add(
            new PodState(
                state.workload().namespace(),
                state.workload().deployment() + "-" + generation + "-" + i,
                state.selector(),
                statuses));
      }
      return out;
    }
  }
}
