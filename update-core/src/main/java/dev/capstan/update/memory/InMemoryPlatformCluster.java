package dev.capstan.update.memory;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.ClusterException;
import dev.capstan.common.FaultPlan;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.health.Condition;
import dev.capstan.update.cluster.ClusterInfo;
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
import dev.capstan.update.cluster.RolloutStatus;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.version.ImageRef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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

  private static final String STATE_FORMAT = "capstan.dev/in-memory-platform.v1";
  private static final ObjectMapper STATE_JSON = JsonMappers.trees();

  private final ClusterInfo info;
  private final Map<Workload, Sim> deployments = new LinkedHashMap<>();
  private final List<PodState> pods = new ArrayList<>();
  private final Map<String, CrdState> crds = new LinkedHashMap<>();
  private final Map<String, List<Condition>> crdConditions = new HashMap<>();
  private final Map<String, String> digests = new HashMap<>();
  private final Set<String> neverReady = new HashSet<>();
  private final List<DeploymentPatch> patches = new ArrayList<>();
  private final List<String> writes = new ArrayList<>();
  private final FaultPlan<Operation> faults = FaultPlan.create();

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
   * Adds or replaces a live CRD, established and with its names accepted; its spec is stored with
   * the API server's defaults ({@link CrdDefaults}) and its stored versions are its storage
   * version.
   *
   * @param name the CRD name
   * @param spec its spec
   * @return this
   */
  public synchronized InMemoryPlatformCluster putCrd(
      String name, Map<String, @Nullable Object> spec) {
    crds.put(
        name, new CrdState(name, CrdDefaults.apply(spec), List.of(ESTABLISHED, NAMES_ACCEPTED)));
    return this;
  }

  /**
   * Adds or replaces a live CRD with explicit {@code status.storedVersions} (for example a CRD
   * whose objects were stored at an older version too), established and with its names accepted.
   *
   * @param name the CRD name
   * @param spec its spec (stored with the API server's defaults)
   * @param storedVersions its stored versions
   * @return this
   */
  public synchronized InMemoryPlatformCluster putCrd(
      String name, Map<String, @Nullable Object> spec, List<String> storedVersions) {
    crds.put(
        name,
        new CrdState(
            name,
            CrdDefaults.apply(spec),
            List.of(ESTABLISHED, NAMES_ACCEPTED),
            storedVersions,
            Map.of()));
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
  public FaultPlan<Operation> faults() {
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

  /**
   * Returns the cluster's state as JSON: Deployments (with their simulated replica counts), extra
   * pods, CRDs, CRD conditions on apply, published digests and never-ready images. Faults and the
   * patch and write logs are not included. A rollout in progress is saved as finished.
   *
   * @return the state, for {@link #importState}
   */
  public synchronized byte[] exportState() {
    ObjectNode root = STATE_JSON.createObjectNode();
    root.put("format", STATE_FORMAT);
    root.set("info", STATE_JSON.valueToTree(info));
    ArrayNode deps = root.putArray("deployments");
    deployments
        .values()
        .forEach(
            sim -> {
              ObjectNode d = deps.addObject();
              d.set("state", STATE_JSON.valueToTree(sim.state));
              d.put("replicas", sim.replicas);
            });
    root.set("pods", STATE_JSON.valueToTree(pods));
    root.set("crds", STATE_JSON.valueToTree(crds.values()));
    root.set("crdConditions", STATE_JSON.valueToTree(new TreeMap<>(crdConditions)));
    root.set("digests", STATE_JSON.valueToTree(new TreeMap<>(digests)));
    root.set("neverReady", STATE_JSON.valueToTree(new TreeSet<>(neverReady)));
    try {
      return STATE_JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the in-memory platform state", e);
    }
  }

  /**
   * Returns a cluster holding a state made by {@link #exportState()}.
   *
   * @param state the state
   * @return the cluster
   * @throws IllegalArgumentException if the bytes are not such a state
   */
  public static InMemoryPlatformCluster importState(byte[] state) {
    try {
      JsonNode root = STATE_JSON.readTree(state);
      if (root == null || !STATE_FORMAT.equals(root.path("format").asText())) {
        throw new IllegalArgumentException(
            "in-memory platform state must have format " + STATE_FORMAT);
      }
      InMemoryPlatformCluster c =
          new InMemoryPlatformCluster(STATE_JSON.treeToValue(root.get("info"), ClusterInfo.class));
      for (JsonNode d : root.path("deployments")) {
        c.putDeployment(
            STATE_JSON.treeToValue(d.get("state"), DeploymentState.class),
            d.path("replicas").asInt(1));
      }
      for (JsonNode p : root.path("pods")) {
        c.putPod(STATE_JSON.treeToValue(p, PodState.class));
      }
      for (JsonNode crd : root.path("crds")) {
        ObjectNode node = crd.deepCopy();
        boolean noStoredVersions = !node.has("storedVersions");
        if (noStoredVersions) { // a state written before stored versions were kept
          node.putArray("storedVersions");
        }
        node.putObject("dryRunSpec");
        CrdState s = STATE_JSON.treeToValue(node, CrdState.class);
        c.crds.put(
            s.name(), noStoredVersions ? new CrdState(s.name(), s.spec(), s.conditions()) : s);
      }
      for (Map.Entry<String, JsonNode> e : root.path("crdConditions").properties()) {
        c.crdConditions.put(
            e.getKey(), List.of(STATE_JSON.treeToValue(e.getValue(), Condition[].class)));
      }
      for (Map.Entry<String, JsonNode> e : root.path("digests").properties()) {
        c.digests.put(e.getKey(), e.getValue().asText());
      }
      root.path("neverReady").forEach(n -> c.neverReady.add(n.asText()));
      return c;
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not an in-memory platform state: " + e.getMessage(), e);
    }
  }

  @Override
  public ClusterInfo info() {
    return info;
  }

  @Override
  public synchronized InventorySnapshot inventory(InventoryQuery query) {
    faults.before(Operation.INVENTORY, "*");
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
      Map<String, @Nullable Object> doc = query.crdDocuments().get(name);
      if (crd != null && doc != null && doc.get("spec") instanceof Map<?, ?> spec) {
        @SuppressWarnings("unchecked")
        Map<String, @Nullable Object> typed = (Map<String, @Nullable Object>) spec;
        foundCrds.add(crd.withDryRunSpec(CrdDefaults.apply(typed)));
      } else if (crd != null) {
        foundCrds.add(crd);
      }
    }
    return new InventorySnapshot(found, foundPods, foundCrds);
  }

  @Override
  public synchronized Optional<DeploymentState> deployment(Workload workload) {
    faults.before(Operation.GET_DEPLOYMENT, workload.key());
    return Optional.ofNullable(deployments.get(workload)).map(sim -> sim.state);
  }

  @Override
  public synchronized void patch(DeploymentPatch patch) {
    faults.before(Operation.PATCH, patch.workload().key());
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
    faults.before(Operation.ROLLOUT_STATUS, workload.key());
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
    faults.before(Operation.GET_CRD, name);
    return Optional.ofNullable(crds.get(name));
  }

  @Override
  public synchronized String applyCrd(String name, Map<String, @Nullable Object> document) {
    faults.before(Operation.APPLY_CRD, name);
    Object spec = document.get("spec");
    if (!(spec instanceof Map<?, ?> specMap)) {
      throw new ClusterException("apply crd " + name + ": spec is missing");
    }
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> typed = (Map<String, @Nullable Object>) specMap;
    CrdState old = crds.get(name);
    String action = old != null ? "configured" : "created";
    List<Condition> conditions =
        crdConditions.getOrDefault(name, List.of(ESTABLISHED, NAMES_ACCEPTED));
    Map<String, @Nullable Object> stored = CrdDefaults.apply(typed);
    // As the Kubernetes adapter does: stored versions the new spec drops are forgotten (the plan's
    // CRD gate let that through only with allowUnsafeCrdChanges); the storage version is added.
    Set<String> declared = new HashSet<>();
    CrdState.versions(stored).forEach(v -> declared.add(v.name()));
    Set<String> storedVersions = new LinkedHashSet<>();
    if (old != null) {
      old.storedVersions().stream().filter(declared::contains).forEach(storedVersions::add);
    }
    CrdState.versions(stored).stream()
        .filter(CrdVersion::storage)
        .forEach(v -> storedVersions.add(v.name()));
    crds.put(name, new CrdState(name, stored, conditions, List.copyOf(storedVersions), Map.of()));
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
