package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.SecretNames;
import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A service: a long-running workload the orchestrator runs (a Deployment on Kubernetes, plus a
 * Service object when ports are declared). Build one with {@link #builder(String, String)}.
 *
 * @param namespace the namespace
 * @param name the service name (DNS-1035 label)
 * @param image the container image, e.g. {@code ghcr.io/acme/web:1.4.2}
 * @param replicas the number of replicas, at least 0
 * @param command the entrypoint override (empty: the image's)
 * @param args the arguments override (empty: the image's)
 * @param ports the ports the service listens on, with unique names and numbers
 * @param env plain environment variables; the value of one named as a secret ({@link SecretNames}:
 *     {@code DB_PASSWORD}) never prints, nor shows in a plan's diff
 * @param envFrom secrets and configmaps whose keys become environment variables
 * @param volumeMounts volumes of this release mounted into the container
 * @param resources requests and limits, or {@code null} for none
 * @param readinessProbe how to tell the service is ready, or {@code null} to rely on the process
 * @param labels user labels
 * @param annotations user annotations
 */
public record ServiceSpec(
    String namespace,
    String name,
    String image,
    int replicas,
    List<String> command,
    List<String> args,
    List<Port> ports,
    SortedMap<String, String> env,
    List<EnvFrom> envFrom,
    List<VolumeMount> volumeMounts,
    @Nullable Resources resources,
    @Nullable Probe readinessProbe,
    SortedMap<String, String> labels,
    SortedMap<String, String> annotations)
    implements ResourceSpec {

  private static final Pattern ENV_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");
  private static final Pattern QUANTITY =
      Pattern.compile("[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?");

  /** Validates every field; messages name the service, the field, the rule and the value. */
  public ServiceSpec {
    ResourceRef.of(Kind.DEPLOYMENT, namespace, name);
    ResourceRef.of(Kind.SERVICE, namespace, name);
    String at = "service " + namespace + "/" + name + ": ";
    requireNonNull(image, at + "image");
    if (image.isBlank() || image.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          at + "image must be a non-empty reference without whitespace: " + Names.quote(image));
    }
    if (replicas < 0) {
      throw new IllegalArgumentException(at + "replicas must be at least 0: " + replicas);
    }
    command = Copies.list(command, at + "command");
    args = Copies.list(args, at + "args");
    ports = Copies.list(ports, at + "ports");
    Set<String> portNames = new HashSet<>();
    Set<Integer> portNumbers = new HashSet<>();
    for (Port p : ports) {
      if (!portNames.add(p.name()) || !portNumbers.add(p.port())) {
        throw new IllegalArgumentException(
            at + "ports must have unique names and numbers: " + p.name() + "=" + p.port());
      }
    }
    env = Copies.sortedMap(env, at + "env");
    for (String key : env.keySet()) {
      if (!ENV_NAME.matcher(key).matches()) {
        throw new IllegalArgumentException(
            at + "env name must match [-._a-zA-Z][-._a-zA-Z0-9]*: " + Names.quote(key));
      }
    }
    envFrom = Copies.list(envFrom, at + "envFrom");
    volumeMounts = Copies.list(volumeMounts, at + "volumeMounts");
    Set<String> mountPaths = new HashSet<>();
    for (VolumeMount m : volumeMounts) {
      if (!mountPaths.add(m.mountPath())) {
        throw new IllegalArgumentException(
            at + "volumeMounts must have unique mount paths: " + Names.quote(m.mountPath()));
      }
    }
    labels = Copies.metadata(labels, at + "labels", true);
    annotations = Copies.metadata(annotations, at + "annotations", false);
  }

  /** Its Deployment. */
  @Override
  public ResourceRef ref() {
    return ResourceRef.of(Kind.DEPLOYMENT, namespace, name);
  }

  /** Its Deployment, and its Service when it declares ports. */
  @Override
  public List<Manifest> render() {
    return TypedRendering.service(this);
  }

  /**
   * Every field, as a record shows it, but the value of an environment variable named as a secret
   * ({@link SecretNames}: {@code DB_PASSWORD}), which reads {@link Escapes#NOT_SHOWN}.
   */
  @Override
  public String toString() {
    Map<String, String> shownEnv = new LinkedHashMap<>();
    env.forEach((k, v) -> shownEnv.put(k, SecretNames.isSecret(k) ? Escapes.NOT_SHOWN : v));
    return "ServiceSpec[namespace="
        + namespace
        + ", name="
        + name
        + ", image="
        + image
        + ", replicas="
        + replicas
        + ", command="
        + command
        + ", args="
        + args
        + ", ports="
        + ports
        + ", env="
        + shownEnv
        + ", envFrom="
        + envFrom
        + ", volumeMounts="
        + volumeMounts
        + ", resources="
        + resources
        + ", readinessProbe="
        + readinessProbe
        + ", labels="
        + labels
        + ", annotations="
        + annotations
        + "]";
  }

  /** A builder for a service in {@code namespace} named {@code name}. */
  public static Builder builder(String namespace, String name) {
    return new Builder(namespace, name);
  }

  /** A builder holding this spec's values, to derive a changed copy. */
  public Builder toBuilder() {
    Builder b = new Builder(namespace, name).image(image).replicas(replicas);
    b.command.addAll(command);
    b.args.addAll(args);
    b.ports.addAll(ports);
    b.env.putAll(env);
    b.envFrom.addAll(envFrom);
    b.volumeMounts.addAll(volumeMounts);
    b.resources = resources;
    b.readinessProbe = readinessProbe;
    b.labels.putAll(labels);
    b.annotations.putAll(annotations);
    return b;
  }

  /** A copy running {@code image}. */
  public ServiceSpec withImage(String image) {
    return toBuilder().image(image).build();
  }

  /** A copy with {@code replicas} replicas. */
  public ServiceSpec withReplicas(int replicas) {
    return toBuilder().replicas(replicas).build();
  }

  /**
   * A port the service listens on.
   *
   * @param name a DNS-1123 label of at most 15 characters
   * @param port 1 to 65535
   * @param protocol TCP or UDP
   */
  public record Port(String name, int port, Protocol protocol) {
    /** Validates the name and number. */
    public Port {
      requireNonNull(name, "port name");
      requireNonNull(protocol, "port protocol");
      if (!Names.isLabel(name, 15)) {
        throw new IllegalArgumentException(
            "port name must be a DNS-1123 label of at most 15 characters: " + Names.quote(name));
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(
            "port " + Names.quote(name) + " must be between 1 and 65535: " + port);
      }
    }

    /** A TCP port. */
    public static Port tcp(String name, int port) {
      return new Port(name, port, Protocol.TCP);
    }
  }

  /** A transport protocol. */
  public enum Protocol {
    /** TCP. */
    TCP,
    /** UDP. */
    UDP
  }

  /**
   * A secret or configmap, in the service's namespace, whose keys become environment variables.
   *
   * @param kind {@link Kind#SECRET} or {@link Kind#CONFIG_MAP}
   * @param name the object's name
   */
  public record EnvFrom(Kind kind, String name) {
    /** Validates the kind. */
    public EnvFrom {
      requireNonNull(kind, "envFrom kind");
      requireNonNull(name, "envFrom name");
      if (!kind.equals(Kind.SECRET) && !kind.equals(Kind.CONFIG_MAP)) {
        throw new IllegalArgumentException(
            "envFrom kind must be Secret or ConfigMap: " + Names.quote(kind));
      }
    }

    /** Environment from a secret. */
    public static EnvFrom secret(String name) {
      return new EnvFrom(Kind.SECRET, name);
    }

    /** Environment from a configmap. */
    public static EnvFrom configMap(String name) {
      return new EnvFrom(Kind.CONFIG_MAP, name);
    }
  }

  /**
   * A volume mounted into the service's container.
   *
   * @param volume the volume's name, in the service's namespace
   * @param mountPath an absolute path
   * @param readOnly whether the mount is read-only
   */
  public record VolumeMount(String volume, String mountPath, boolean readOnly) {
    /** Validates the path. */
    public VolumeMount {
      requireNonNull(volume, "volume");
      requireNonNull(mountPath, "mountPath");
      if (!mountPath.startsWith("/") || mountPath.contains(":")) {
        throw new IllegalArgumentException(
            "mountPath must be an absolute path without ':': " + Names.quote(mountPath));
      }
    }
  }

  /**
   * Resource requests and limits as Kubernetes quantities ({@code 250m}, {@code 512Mi}); each may
   * be {@code null}.
   *
   * @param cpuRequest CPU request
   * @param memoryRequest memory request
   * @param cpuLimit CPU limit
   * @param memoryLimit memory limit
   */
  public record Resources(
      @Nullable String cpuRequest,
      @Nullable String memoryRequest,
      @Nullable String cpuLimit,
      @Nullable String memoryLimit) {
    /** Validates each quantity. */
    public Resources {
      Map<String, @Nullable String> all = new LinkedHashMap<>();
      all.put("cpuRequest", cpuRequest);
      all.put("memoryRequest", memoryRequest);
      all.put("cpuLimit", cpuLimit);
      all.put("memoryLimit", memoryLimit);
      all.forEach(
          (field, value) -> {
            if (value != null && !QUANTITY.matcher(value).matches()) {
              throw new IllegalArgumentException(
                  "resources."
                      + field
                      + " must be a quantity such as 250m or 512Mi: "
                      + Names.quote(value));
            }
          });
    }
  }

  /**
   * A readiness probe: an HTTP GET on {@code path} when it is set, else a TCP connect.
   *
   * @param path the HTTP path, or {@code null} for a TCP probe
   * @param port the port number probed
   * @param initialDelaySeconds seconds before the first probe
   * @param periodSeconds seconds between probes, at least 1
   */
  public record Probe(@Nullable String path, int port, int initialDelaySeconds, int periodSeconds) {
    /** Validates the numbers. */
    public Probe {
      if (path != null && !path.startsWith("/")) {
        throw new IllegalArgumentException("probe path must start with '/': " + Names.quote(path));
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("probe port must be between 1 and 65535: " + port);
      }
      if (initialDelaySeconds < 0 || periodSeconds < 1) {
        throw new IllegalArgumentException(
            "probe initialDelaySeconds must be >= 0 and periodSeconds >= 1: "
                + initialDelaySeconds
                + ", "
                + periodSeconds);
      }
    }

    /** An HTTP GET probe. */
    public static Probe http(String path, int port) {
      return new Probe(path, port, 0, 10);
    }

    /** A TCP connect probe. */
    public static Probe tcp(int port) {
      return new Probe(null, port, 0, 10);
    }
  }

  /** Builds a {@link ServiceSpec}; not thread-safe. */
  public static final class Builder {
    private final String namespace;
    private final String name;
    private String image = "";
    private int replicas = 1;
    private final List<String> command = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final List<Port> ports = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<EnvFrom> envFrom = new ArrayList<>();
    private final List<VolumeMount> volumeMounts = new ArrayList<>();
    private @Nullable Resources resources;
    private @Nullable Probe readinessProbe;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();

    private Builder(String namespace, String name) {
      this.namespace = requireNonNull(namespace, "namespace");
      this.name = requireNonNull(name, "name");
    }

    /** Sets the image. */
    public Builder image(String image) {
      this.image = requireNonNull(image, "image");
      return this;
    }

    /** Sets the replica count (default 1). */
    public Builder replicas(int replicas) {
      this.replicas = replicas;
      return this;
    }

    /** Sets the entrypoint. */
    public Builder command(String... command) {
      this.command.clear();
      this.command.addAll(List.of(command));
      return this;
    }

    /** Sets the arguments. */
    public Builder args(String... args) {
      this.args.clear();
      this.args.addAll(List.of(args));
      return this;
    }

    /** Adds a TCP port. */
    public Builder port(String name, int port) {
      ports.add(Port.tcp(name, port));
      return this;
    }

    /** Adds a port. */
    public Builder port(Port port) {
      ports.add(requireNonNull(port, "port"));
      return this;
    }

    /** Sets an environment variable. */
    public Builder env(String key, String value) {
      env.put(requireNonNull(key, "env key"), requireNonNull(value, "env value"));
      return this;
    }

    /** Imports every key of a secret as environment variables. */
    public Builder envFromSecret(String secret) {
      envFrom.add(EnvFrom.secret(secret));
      return this;
    }

    /** Imports every key of a configmap as environment variables. */
    public Builder envFromConfigMap(String configMap) {
      envFrom.add(EnvFrom.configMap(configMap));
      return this;
    }

    /** Mounts a volume of this release read-write. */
    public Builder mount(String volume, String mountPath) {
      volumeMounts.add(new VolumeMount(volume, mountPath, false));
      return this;
    }

    /** Mounts a volume. */
    public Builder mount(VolumeMount mount) {
      volumeMounts.add(requireNonNull(mount, "mount"));
      return this;
    }

    /** Sets requests and limits. */
    public Builder resources(@Nullable Resources resources) {
      this.resources = resources;
      return this;
    }

    /** Sets the readiness probe. */
    public Builder readinessProbe(@Nullable Probe probe) {
      this.readinessProbe = probe;
      return this;
    }

    /** Adds a label. */
    public Builder label(String key, String value) {
      labels.put(requireNonNull(key, "label key"), requireNonNull(value, "label value"));
      return this;
    }

    /** Adds an annotation. */
    public Builder annotation(String key, String value) {
      annotations.put(requireNonNull(key, "annotation key"), requireNonNull(value, "value"));
      return this;
    }

    /** Builds and validates the spec. */
    public ServiceSpec build() {
      return new ServiceSpec(
          namespace,
          name,
          image,
          replicas,
          command,
          args,
          ports,
          Copies.sortedMap(env, "env"),
          envFrom,
          volumeMounts,
          resources,
          readinessProbe,
          Copies.sortedMap(labels, "labels"),
          Copies.sortedMap(annotations, "annotations"));
    }
  }
}
