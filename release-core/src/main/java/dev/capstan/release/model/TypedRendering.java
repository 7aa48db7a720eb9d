package dev.capstan.release.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How the typed convenience specs become ordinary Kubernetes manifests: a service is an {@code
 * apps/v1} Deployment (one container named after the service, pods selected by the label {@value
 * #SELECTOR}) plus a {@code v1} Service when it declares ports; a secret a Secret; a configmap a
 * ConfigMap; a volume a PersistentVolumeClaim annotated with its reclaim policy ({@value
 * #RECLAIM_POLICY}). Everything after rendering (plan, records, ports) sees only manifests.
 */
final class TypedRendering {
  /** The label that selects a service's pods; the Deployment's immutable selector. */
  static final String SELECTOR = "capstan.dev/service";

  /** A volume claim's reclaim policy, {@code Retain} or {@code Delete}. */
  static final String RECLAIM_POLICY = "capstan.dev/reclaim-policy";

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private TypedRendering() {}

  static List<Manifest> service(ServiceSpec spec) {
    Map<String, Object> container = new LinkedHashMap<>();
    container.put("name", spec.name());
    container.put("image", spec.image());
    putList(container, "command", spec.command());
    putList(container, "args", spec.args());
    List<Object> ports = new ArrayList<>();
    for (ServiceSpec.Port p : spec.ports()) {
      ports.add(map("name", p.name(), "containerPort", p.port(), "protocol", p.protocol().name()));
    }
    putList(container, "ports", ports);
    List<Object> env = new ArrayList<>();
    spec.env().forEach((k, v) -> env.add(map("name", k, "value", v)));
    putList(container, "env", env);
    List<Object> envFrom = new ArrayList<>();
    for (ServiceSpec.EnvFrom e : spec.envFrom()) {
      envFrom.add(
          e.kind().equals(Kind.SECRET)
              ? map("secretRef", map("name", e.name()))
              : map("configMapRef", map("name", e.name())));
    }
    putList(container, "envFrom", envFrom);
    List<Object> mounts = new ArrayList<>();
    List<Object> volumes = new ArrayList<>();
    List<String> volumeNames = new ArrayList<>();
    for (ServiceSpec.VolumeMount m : spec.volumeMounts()) {
      Map<String, Object> mount =
          map("name", podVolumeName(m.volume()), "mountPath", m.mountPath());
      if (m.readOnly()) {
        mount.put("readOnly", true);
      }
      mounts.add(mount);
      String podName = podVolumeName(m.volume());
      if (!volumeNames.contains(podName)) {
        volumeNames.add(podName);
        volumes.add(map("name", podName, "persistentVolumeClaim", map("claimName", m.volume())));
      }
    }
    putList(container, "volumeMounts", mounts);
    Map<String, Object> resources = resources(spec.resources());
    if (resources != null) {
      container.put("resources", resources);
    }
    Map<String, Object> probe = probe(spec.readinessProbe());
    if (probe != null) {
      container.put("readinessProbe", probe);
    }
    Map<String, Object> podLabels = new LinkedHashMap<>(spec.labels());
    podLabels.put(SELECTOR, spec.name());
    Map<String, Object> podSpec = new LinkedHashMap<>();
    podSpec.put("containers", List.of(container));
    putList(podSpec, "volumes", volumes);
    Map<String, Object> deployment = new LinkedHashMap<>();
    deployment.put("apiVersion", "apps/v1");
    deployment.put("kind", "Deployment");
    deployment.put("metadata", metadata(spec, Map.of()));
    deployment.put(
        "spec",
        map(
            "replicas",
            spec.replicas(),
            "selector",
            map("matchLabels", map(SELECTOR, spec.name())),
            "template",
            map("metadata", map("labels", podLabels), "spec", podSpec)));
    List<Manifest> out = new ArrayList<>();
    out.add(Manifest.of(deployment));
    if (!spec.ports().isEmpty()) {
      List<Object> servicePorts = new ArrayList<>();
      for (ServiceSpec.Port p : spec.ports()) {
        servicePorts.add(
            map(
                "name",
                p.name(),
                "port",
                p.port(),
                "targetPort",
                p.port(),
                "protocol",
                p.protocol().name()));
      }
      Map<String, Object> service = new LinkedHashMap<>();
      service.put("apiVersion", "v1");
      service.put("kind", "Service");
      service.put("metadata", metadata(spec, Map.of()));
      service.put("spec", map("selector", map(SELECTOR, spec.name()), "ports", servicePorts));
      out.add(Manifest.of(service));
    }
    return List.copyOf(out);
  }

  static Manifest secret(SecretSpec spec) {
    Map<String, Object> data = new LinkedHashMap<>();
    spec.data().forEach((k, v) -> data.put(k, Base64.getEncoder().encodeToString(v.bytes())));
    Map<String, Object> secret = new LinkedHashMap<>();
    secret.put("apiVersion", "v1");
    secret.put("kind", "Secret");
    secret.put("metadata", metadata(spec, Map.of()));
    secret.put("type", spec.secretType());
    if (!data.isEmpty()) {
      secret.put("data", data);
    }
    return Manifest.of(secret);
  }

  static Manifest configMap(ConfigMapSpec spec) {
    Map<String, Object> configMap = new LinkedHashMap<>();
    configMap.put("apiVersion", "v1");
    configMap.put("kind", "ConfigMap");
    configMap.put("metadata", metadata(spec, Map.of()));
    if (!spec.data().isEmpty()) {
      configMap.put("data", new LinkedHashMap<String, Object>(spec.data()));
    }
    return Manifest.of(configMap);
  }

  static Manifest volume(VolumeSpec spec) {
    Map<String, Object> pvcSpec = new LinkedHashMap<>();
    pvcSpec.put(
        "accessModes",
        spec.accessModes().stream().map(VolumeSpec.AccessMode::kubernetesName).toList());
    pvcSpec.put("resources", map("requests", map("storage", spec.size())));
    if (spec.storageClass() != null) {
      pvcSpec.put("storageClassName", spec.storageClass());
    }
    Map<String, Object> pvc = new LinkedHashMap<>();
    pvc.put("apiVersion", "v1");
    pvc.put("kind", "PersistentVolumeClaim");
    pvc.put(
        "metadata",
        metadata(
            spec,
            Map.of(
                RECLAIM_POLICY,
                spec.reclaimPolicy() == VolumeSpec.ReclaimPolicy.RETAIN ? "Retain" : "Delete")));
    pvc.put("spec", pvcSpec);
    return Manifest.of(pvc);
  }

  private static Map<String, Object> metadata(ResourceSpec spec, Map<String, String> extra) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", spec.name());
    metadata.put("namespace", spec.namespace());
    SortedMap<String, String> labels = spec.labels();
    if (!labels.isEmpty()) {
      metadata.put("labels", new LinkedHashMap<String, Object>(labels));
    }
    Map<String, Object> annotations = new LinkedHashMap<>(spec.annotations());
    annotations.putAll(extra);
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    return metadata;
  }

  private static @Nullable Map<String, Object> resources(ServiceSpec.@Nullable Resources r) {
    if (r == null) {
      return null;
    }
    Map<String, Object> requests = new LinkedHashMap<>();
    Map<String, Object> limits = new LinkedHashMap<>();
    putIfSet(requests, "cpu", r.cpuRequest());
    putIfSet(requests, "memory", r.memoryRequest());
    putIfSet(limits, "cpu", r.cpuLimit());
    putIfSet(limits, "memory", r.memoryLimit());
    Map<String, Object> out = new LinkedHashMap<>();
    if (!requests.isEmpty()) {
      out.put("requests", requests);
    }
    if (!limits.isEmpty()) {
      out.put("limits", limits);
    }
    return out.isEmpty() ? null : out;
  }

  private static @Nullable Map<String, Object> probe(ServiceSpec.@Nullable Probe p) {
    if (p == null) {
      return null;
    }
    Map<String, Object> probe = new LinkedHashMap<>();
    if (p.path() != null) {
      probe.put("httpGet", map("path", p.path(), "port", p.port()));
    } else {
      probe.put("tcpSocket", map("port", p.port()));
    }
    probe.put("initialDelaySeconds", p.initialDelaySeconds());
    probe.put("periodSeconds", p.periodSeconds());
    return probe;
  }

  /** The pod volume name of a claim: the claim's own name when it is a DNS label, else a digest. */
  static String podVolumeName(String claim) {
    if (claim.length() <= 63 && DNS_LABEL.matcher(claim).matches()) {
      return claim;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(claim.getBytes(StandardCharsets.UTF_8));
      return "vol-" + HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static void putIfSet(Map<String, Object> map, String key, @Nullable String value) {
    if (value != null) {
      map.put(key, value);
    }
  }

  private static void putList(Map<String, Object> map, String key, List<?> list) {
    if (!list.isEmpty()) {
      map.put(key, List.copyOf(list));
    }
  }

  private static Map<String, Object> map(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}
