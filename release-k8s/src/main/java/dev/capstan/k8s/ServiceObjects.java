package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.gson.JsonObject;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.LiveObject;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ConfigMapEnvSource;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvFromSource;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1HTTPGetAction;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimVolumeSource;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SecretEnvSource;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1TCPSocketAction;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A service as an {@code apps/v1} Deployment (one container named after the service, selected by
 * the label {@value #SELECTOR}) plus a {@code v1} Service when ports are declared, and the spec
 * read back from them.
 */
final class ServiceObjects {
  /** The label that selects a service's pods; the Deployment's immutable selector. */
  static final String SELECTOR = Stamps.PREFIX + "service";

  /** The spec's requests and limits as spelled ({@code cpuRequest=250m,...}; empty: none set). */
  static final String RESOURCES = Stamps.PREFIX + "resources";

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private ServiceObjects() {}

  static V1Deployment deployment(ServiceSpec spec, @Nullable OwnershipStamp stamp) {
    Map<String, String> representation = new LinkedHashMap<>();
    if (spec.resources() != null) {
      representation.put(RESOURCES, spelling(spec.resources()));
    }
    Map<String, String> podLabels = new LinkedHashMap<>(spec.labels());
    podLabels.put(SELECTOR, spec.name());
    V1Container container =
        new V1Container()
            .name(spec.name())
            .image(spec.image())
            .command(spec.command().isEmpty() ? null : spec.command())
            .args(spec.args().isEmpty() ? null : spec.args())
            .ports(
                spec.ports().isEmpty()
                    ? null
                    : spec.ports().stream()
                        .map(
                            p ->
                                new V1ContainerPort()
                                    .name(p.name())
                                    .containerPort(p.port())
                                    .protocol(p.protocol().name()))
                        .toList())
            .env(
                spec.env().isEmpty()
                    ? null
                    : spec.env().entrySet().stream()
                        .map(e -> new V1EnvVar().name(e.getKey()).value(e.getValue()))
                        .toList())
            .envFrom(
                spec.envFrom().isEmpty()
                    ? null
                    : spec.envFrom().stream().map(ServiceObjects::envFrom).toList())
            .volumeMounts(
                spec.volumeMounts().isEmpty()
                    ? null
                    : spec.volumeMounts().stream()
                        .map(
                            m ->
                                new V1VolumeMount()
                                    .name(podVolumeName(m.volume()))
                                    .mountPath(m.mountPath())
                                    .readOnly(m.readOnly() ? Boolean.TRUE : null))
                        .toList())
            .resources(resources(spec.resources()))
            .readinessProbe(probe(spec.readinessProbe()));
    List<V1Volume> volumes = new ArrayList<>();
    for (ServiceSpec.VolumeMount m : spec.volumeMounts()) {
      String podName = podVolumeName(m.volume());
      if (volumes.stream().noneMatch(v -> v.getName().equals(podName))) {
        volumes.add(
            new V1Volume()
                .name(podName)
                .persistentVolumeClaim(
                    new V1PersistentVolumeClaimVolumeSource().claimName(m.volume())));
      }
    }
    return new V1Deployment()
        .apiVersion("apps/v1")
        .kind("Deployment")
        .metadata(Live.metadata(spec, stamp, representation))
        .spec(
            new V1DeploymentSpec()
                .replicas(spec.replicas())
                .selector(new V1LabelSelector().matchLabels(Map.of(SELECTOR, spec.name())))
                .template(
                    new V1PodTemplateSpec()
                        .metadata(new V1ObjectMeta().labels(podLabels))
                        .spec(
                            new V1PodSpec()
                                .containers(List.of(container))
                                .volumes(volumes.isEmpty() ? null : volumes))));
  }

  static V1Service service(ServiceSpec spec, @Nullable OwnershipStamp stamp) {
    return new V1Service()
        .apiVersion("v1")
        .kind("Service")
        .metadata(Live.metadata(spec, stamp, Map.of()))
        .spec(
            new V1ServiceSpec()
                .selector(Map.of(SELECTOR, spec.name()))
                .ports(
                    spec.ports().stream()
                        .map(
                            p ->
                                new V1ServicePort()
                                    .name(p.name())
                                    .port(p.port())
                                    .targetPort(new IntOrString(p.port()))
                                    .protocol(p.protocol().name()))
                        .toList()));
  }

  /**
   * The live service: read from its Deployment and, for the ports, its Service. A port counts as
   * declared only when the Service serves it; a Service without its Deployment is reported with the
   * Service's stamp and no spec.
   *
   * @param deploymentRaw the Deployment as raw JSON, or {@code null} when absent
   * @param deployment the Deployment, or {@code null}
   * @param serviceRaw the Service as raw JSON, or {@code null} when absent
   * @param service the Service, or {@code null}
   */
  static LiveObject live(
      ResourceRef ref,
      @Nullable JsonObject deploymentRaw,
      @Nullable V1Deployment deployment,
      @Nullable JsonObject serviceRaw,
      @Nullable V1Service service) {
    OwnershipStamp serviceStamp = service == null ? null : Stamps.read(service.getMetadata());
    if (deployment == null || deploymentRaw == null) {
      return new LiveObject(
          ref, null, serviceStamp, Live.rawHash(Objects.requireNonNull(serviceRaw, "serviceRaw")));
    }
    OwnershipStamp stamp = Stamps.read(deployment.getMetadata());
    if (service != null && !sameOwner(stamp, serviceStamp)) {
      // A Service that is not the Deployment's decides: a mixed pair is never written unplanned.
      stamp = stamp == null || serviceStamp == null ? null : serviceStamp;
    }
    return Live.object(ref, stamp, deploymentRaw, () -> read(deploymentRaw, deployment, service));
  }

  private static boolean sameOwner(@Nullable OwnershipStamp a, @Nullable OwnershipStamp b) {
    return a == null ? b == null : b != null && a.owner().equals(b.owner());
  }

  private static ServiceSpec read(JsonObject raw, V1Deployment d, @Nullable V1Service service) {
    V1ObjectMeta meta = Objects.requireNonNull(d.getMetadata(), "metadata");
    String name = meta.getName();
    OwnedFields owned = OwnedFields.of(raw, Stamps.MANAGER_NAME);
    V1DeploymentSpec spec = Objects.requireNonNull(d.getSpec(), "spec");
    V1PodSpec pod = Objects.requireNonNull(spec.getTemplate().getSpec(), "template spec");
    V1Container c =
        pod.getContainers().stream()
            .filter(x -> name.equals(x.getName()))
            .findFirst()
            .orElseGet(() -> pod.getContainers().get(0));
    OwnedFields ownedContainer =
        owned.at("f:spec", "f:template", "f:spec", "f:containers").item("name", c.getName());
    ServiceSpec.Builder b =
        ServiceSpec.builder(meta.getNamespace(), name)
            .image(Objects.requireNonNull(c.getImage(), "image"))
            .replicas(spec.getReplicas() == null ? 1 : spec.getReplicas());
    if (c.getCommand() != null) {
      b.command(c.getCommand().toArray(String[]::new));
    }
    if (c.getArgs() != null) {
      b.args(c.getArgs().toArray(String[]::new));
    }
    readPorts(c, service, name).forEach(b::port);
    OwnedFields ownedEnv = ownedContainer.at("f:env");
    for (V1EnvVar e : c.getEnv() == null ? List.<V1EnvVar>of() : c.getEnv()) {
      if (e.getValueFrom() == null && ownedEnv.ownsItem("name", e.getName())) {
        b.env(e.getName(), e.getValue() == null ? "" : e.getValue());
      }
    }
    for (V1EnvFromSource s : c.getEnvFrom() == null ? List.<V1EnvFromSource>of() : c.getEnvFrom()) {
      if (s.getSecretRef() != null) {
        b.envFromSecret(s.getSecretRef().getName());
      } else if (s.getConfigMapRef() != null) {
        b.envFromConfigMap(s.getConfigMapRef().getName());
      } else {
        throw new IllegalArgumentException("envFrom without a secret or configmap");
      }
    }
    Map<String, String> claims = new LinkedHashMap<>();
    for (V1Volume v : pod.getVolumes() == null ? List.<V1Volume>of() : pod.getVolumes()) {
      if (v.getPersistentVolumeClaim() != null) {
        claims.put(v.getName(), v.getPersistentVolumeClaim().getClaimName());
      }
    }
    for (V1VolumeMount m :
        c.getVolumeMounts() == null ? List.<V1VolumeMount>of() : c.getVolumeMounts()) {
      String claim = claims.get(m.getName());
      if (claim == null) {
        throw new IllegalArgumentException("mount of a volume that is no claim: " + m.getName());
      }
      b.mount(
          new ServiceSpec.VolumeMount(
              claim, m.getMountPath(), Boolean.TRUE.equals(m.getReadOnly())));
    }
    b.resources(readResources(c.getResources(), Live.annotation(meta, RESOURCES)));
    b.readinessProbe(readProbe(c.getReadinessProbe()));
    Stamps.userLabels(meta.getLabels(), owned).forEach(b::label);
    Stamps.userAnnotations(meta.getAnnotations(), owned).forEach(b::annotation);
    return b.build();
  }

  /**
   * The ports the live objects serve: the container's, when the Service serves exactly those;
   * otherwise what the Service serves; none without a Service (or with one selecting other pods).
   */
  private static List<ServiceSpec.Port> readPorts(
      V1Container c, @Nullable V1Service service, String name) {
    if (service == null
        || service.getSpec() == null
        || !Map.of(SELECTOR, name).equals(service.getSpec().getSelector())) {
      return List.of();
    }
    List<V1ServicePort> ports =
        service.getSpec().getPorts() == null ? List.of() : service.getSpec().getPorts();
    List<ServiceSpec.Port> served = new ArrayList<>();
    boolean targetsSamePort = true;
    for (V1ServicePort p : ports) {
      IntOrString target = p.getTargetPort();
      int port = target == null ? p.getPort() : target.isInteger() ? target.getIntValue() : -1;
      targetsSamePort &= port == p.getPort();
      served.add(
          new ServiceSpec.Port(String.valueOf(p.getName()), port, protocol(p.getProtocol())));
    }
    List<ServiceSpec.Port> declared = new ArrayList<>();
    List<V1ContainerPort> containerPorts = c.getPorts() == null ? List.of() : c.getPorts();
    for (V1ContainerPort p : containerPorts) {
      declared.add(
          new ServiceSpec.Port(
              String.valueOf(p.getName()), p.getContainerPort(), protocol(p.getProtocol())));
    }
    boolean exposedAsDeclared =
        targetsSamePort && served.size() == declared.size() && declared.containsAll(served);
    return exposedAsDeclared ? declared : served;
  }

  private static ServiceSpec.Protocol protocol(@Nullable String protocol) {
    return protocol == null ? ServiceSpec.Protocol.TCP : ServiceSpec.Protocol.valueOf(protocol);
  }

  private static V1EnvFromSource envFrom(ServiceSpec.EnvFrom e) {
    return e.type() == ResourceType.SECRET
        ? new V1EnvFromSource().secretRef(new V1SecretEnvSource().name(e.name()))
        : new V1EnvFromSource().configMapRef(new V1ConfigMapEnvSource().name(e.name()));
  }

  /** The pod volume name of a claim: the claim's own name when it is a DNS label, else a digest. */
  static String podVolumeName(String claim) {
    if (claim.length() <= 63 && DNS_LABEL.matcher(claim).matches()) {
      return claim;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(claim.getBytes(UTF_8));
      return "vol-" + HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static @Nullable V1ResourceRequirements resources(ServiceSpec.@Nullable Resources r) {
    if (r == null) {
      return null;
    }
    Map<String, Quantity> requests = new LinkedHashMap<>();
    Map<String, Quantity> limits = new LinkedHashMap<>();
    putQuantity(requests, "cpu", r.cpuRequest());
    putQuantity(requests, "memory", r.memoryRequest());
    putQuantity(limits, "cpu", r.cpuLimit());
    putQuantity(limits, "memory", r.memoryLimit());
    if (requests.isEmpty() && limits.isEmpty()) {
      return null;
    }
    return new V1ResourceRequirements()
        .requests(requests.isEmpty() ? null : requests)
        .limits(limits.isEmpty() ? null : limits);
  }

  private static void putQuantity(Map<String, Quantity> map, String key, @Nullable String value) {
    if (value != null) {
      map.put(key, new Quantity(value));
    }
  }

  /** {@code cpuRequest=250m,memoryLimit=512Mi}: the fields that are set, as spelled. */
  static String spelling(ServiceSpec.Resources r) {
    Map<String, @Nullable String> fields = new LinkedHashMap<>();
    fields.put("cpuRequest", r.cpuRequest());
    fields.put("memoryRequest", r.memoryRequest());
    fields.put("cpuLimit", r.cpuLimit());
    fields.put("memoryLimit", r.memoryLimit());
    StringBuilder sb = new StringBuilder();
    fields.forEach(
        (k, v) -> {
          if (v != null) {
            sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v);
          }
        });
    return sb.toString();
  }

  private static ServiceSpec.@Nullable Resources readResources(
      @Nullable V1ResourceRequirements live, @Nullable String spelled) {
    Map<String, String> spelling = new TreeMap<>();
    if (spelled != null) {
      for (String part : spelled.split(",", -1)) {
        int eq = part.indexOf('=');
        if (eq > 0) {
          spelling.put(part.substring(0, eq), part.substring(eq + 1));
        }
      }
    }
    Map<String, Quantity> requests =
        live == null || live.getRequests() == null ? Map.of() : live.getRequests();
    Map<String, Quantity> limits =
        live == null || live.getLimits() == null ? Map.of() : live.getLimits();
    String cpuRequest = Live.quantity(requests.get("cpu"), spelling.get("cpuRequest"));
    String memoryRequest = Live.quantity(requests.get("memory"), spelling.get("memoryRequest"));
    String cpuLimit = Live.quantity(limits.get("cpu"), spelling.get("cpuLimit"));
    String memoryLimit = Live.quantity(limits.get("memory"), spelling.get("memoryLimit"));
    if (cpuRequest == null && memoryRequest == null && cpuLimit == null && memoryLimit == null) {
      // "none set" and "no resources" look the same live; the annotation tells them apart.
      return spelled != null && spelled.isEmpty()
          ? new ServiceSpec.Resources(null, null, null, null)
          : null;
    }
    return new ServiceSpec.Resources(cpuRequest, memoryRequest, cpuLimit, memoryLimit);
  }

  private static @Nullable V1Probe probe(ServiceSpec.@Nullable Probe p) {
    if (p == null) {
      return null;
    }
    V1Probe probe =
        new V1Probe().initialDelaySeconds(p.initialDelaySeconds()).periodSeconds(p.periodSeconds());
    return p.path() != null
        ? probe.httpGet(new V1HTTPGetAction().path(p.path()).port(new IntOrString(p.port())))
        : probe.tcpSocket(new V1TCPSocketAction().port(new IntOrString(p.port())));
  }

  private static ServiceSpec.@Nullable Probe readProbe(@Nullable V1Probe p) {
    if (p == null) {
      return null;
    }
    int delay = p.getInitialDelaySeconds() == null ? 0 : p.getInitialDelaySeconds();
    int period = p.getPeriodSeconds() == null ? 10 : p.getPeriodSeconds();
    if (p.getHttpGet() != null) {
      return new ServiceSpec.Probe(
          p.getHttpGet().getPath(), intPort(p.getHttpGet().getPort()), delay, period);
    }
    if (p.getTcpSocket() != null) {
      return new ServiceSpec.Probe(null, intPort(p.getTcpSocket().getPort()), delay, period);
    }
    throw new IllegalArgumentException("a readiness probe Capstan does not write");
  }

  private static int intPort(@Nullable IntOrString port) {
    if (port == null || !port.isInteger()) {
      throw new IllegalArgumentException("a named probe port");
    }
    return port.getIntValue();
  }
}
