package dev.capstan.release.file;

import dev.capstan.common.SecretNames;
import dev.capstan.common.StrictMap;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ServiceSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** A service of {@code spec.services}, bound from the file before it is a {@link ServiceSpec}. */
record ServiceDoc(
    @Nullable String name,
    @Nullable String namespace,
    @Nullable String image,
    @Nullable Integer replicas,
    @Nullable List<String> command,
    @Nullable List<String> args,
    List<PortDoc> ports,
    Map<String, String> env,
    List<EnvFromDoc> envFrom,
    List<MountDoc> volumeMounts,
    @Nullable ResourcesDoc resources,
    @Nullable ProbeDoc readinessProbe,
    Map<String, String> labels,
    Map<String, String> annotations) {

  static ServiceDoc read(StrictMap m) {
    return new ServiceDoc(
        m.optionalString("name"),
        m.optionalString("namespace"),
        m.optionalString("image"),
        m.integer("replicas", false),
        m.has("command") ? m.strings("command") : null,
        m.has("args") ? m.strings("args") : null,
        m.objects("ports", PORT).stream().map(e -> PortDoc.read(e.map())).toList(),
        m.stringMap("env", SecretNames::isSecret),
        m.objects("envFrom", ENV_FROM).stream().map(e -> EnvFromDoc.read(e.map())).toList(),
        m.objects("volumeMounts", MOUNT).stream().map(e -> MountDoc.read(e.map())).toList(),
        readIf(m.object("resources", RESOURCES), ResourcesDoc::read),
        readIf(m.object("readinessProbe", PROBE), ProbeDoc::read),
        m.stringMap("labels"),
        m.stringMap("annotations"));
  }

  ServiceSpec toSpec(String defaultNamespace) {
    String ns = namespace == null ? defaultNamespace : namespace;
    ServiceSpec.Builder b =
        ServiceSpec.builder(
                namespace == null ? defaultNamespace : namespace, DocValues.required(name, "name"))
            .image(DocValues.required(image, "image"))
            .replicas(replicas == null ? 1 : replicas);
    if (command != null) {
      b.command(command.toArray(String[]::new));
    }
    if (args != null) {
      b.args(args.toArray(String[]::new));
    }
    for (PortDoc p : ports) {
      b.port(
          new ServiceSpec.Port(
              DocValues.required(p.name(), "ports[].name"),
              p.port(),
              p.protocol() == null
                  ? ServiceSpec.Protocol.TCP
                  : DocValues.enumValue(
                      ServiceSpec.Protocol.class, p.protocol(), "ports[].protocol", true)));
    }
    env.forEach(b::env);
    for (EnvFromDoc e : envFrom) {
      if ((e.secret() == null) == (e.configMap() == null)) {
        throw new IllegalArgumentException(
            "envFrom entries must name exactly one of secret, configMap");
      }
      if (e.secret() != null) {
        ResourceRef.of(Kind.SECRET, ns, e.secret());
        b.envFromSecret(e.secret());
      } else {
        String configMap = DocValues.required(e.configMap(), "envFrom[].configMap");
        ResourceRef.of(Kind.CONFIG_MAP, ns, configMap);
        b.envFromConfigMap(configMap);
      }
    }
    for (MountDoc m : volumeMounts) {
      ResourceRef.of(
          Kind.PERSISTENT_VOLUME_CLAIM,
          ns,
          DocValues.required(m.volume(), "volumeMounts[].volume"));
      b.mount(
          new ServiceSpec.VolumeMount(
              DocValues.required(m.volume(), "volumeMounts[].volume"),
              DocValues.required(m.mountPath(), "volumeMounts[].mountPath"),
              m.readOnly()));
    }
    if (resources != null) {
      b.resources(
          new ServiceSpec.Resources(
              resources.cpuRequest(),
              resources.memoryRequest(),
              resources.cpuLimit(),
              resources.memoryLimit()));
    }
    if (readinessProbe != null) {
      b.readinessProbe(
          new ServiceSpec.Probe(
              readinessProbe.path(),
              readinessProbe.port(),
              readinessProbe.initialDelaySeconds() == null
                  ? 0
                  : readinessProbe.initialDelaySeconds(),
              readinessProbe.periodSeconds() == null ? 10 : readinessProbe.periodSeconds()));
    }
    labels.forEach(b::label);
    annotations.forEach(b::annotation);
    return b.build();
  }

  /** The fields of a service. */
  static final Set<String> FIELDS =
      StrictMap.fields(
          "name",
          "namespace",
          "image",
          "replicas",
          "command",
          "args",
          "ports",
          "env",
          "envFrom",
          "volumeMounts",
          "resources",
          "readinessProbe",
          "labels",
          "annotations");

  private static final Set<String> PORT = StrictMap.fields("name", "port", "protocol");
  private static final Set<String> ENV_FROM = StrictMap.fields("secret", "configMap");
  private static final Set<String> MOUNT = StrictMap.fields("volume", "mountPath", "readOnly");
  private static final Set<String> RESOURCES =
      StrictMap.fields("cpuRequest", "memoryRequest", "cpuLimit", "memoryLimit");
  private static final Set<String> PROBE =
      StrictMap.fields("path", "port", "initialDelaySeconds", "periodSeconds");

  private static <T> @Nullable T readIf(@Nullable StrictMap m, Function<StrictMap, T> read) {
    return m == null ? null : read.apply(m);
  }

  record PortDoc(@Nullable String name, int port, @Nullable String protocol) {
    static PortDoc read(StrictMap m) {
      String name = m.optionalString("name");
      String protocol = m.optionalString("protocol");
      Integer port = m.integer("port", true);
      return new PortDoc(name, port == null ? 0 : port, protocol);
    }
  }

  record EnvFromDoc(@Nullable String secret, @Nullable String configMap) {
    static EnvFromDoc read(StrictMap m) {
      return new EnvFromDoc(m.optionalString("secret"), m.optionalString("configMap"));
    }
  }

  record MountDoc(@Nullable String volume, @Nullable String mountPath, boolean readOnly) {
    static MountDoc read(StrictMap m) {
      return new MountDoc(
          m.optionalString("volume"), m.optionalString("mountPath"), m.bool("readOnly"));
    }
  }

  record ResourcesDoc(
      @Nullable String cpuRequest,
      @Nullable String memoryRequest,
      @Nullable String cpuLimit,
      @Nullable String memoryLimit) {
    static ResourcesDoc read(StrictMap m) {
      return new ResourcesDoc(
          m.optionalString("cpuRequest"),
          m.optionalString("memoryRequest"),
          m.optionalString("cpuLimit"),
          m.optionalString("memoryLimit"));
    }
  }

  record ProbeDoc(
      @Nullable String path,
      int port,
      @Nullable Integer initialDelaySeconds,
      @Nullable Integer periodSeconds) {
    static ProbeDoc read(StrictMap m) {
      String path = m.optionalString("path");
      Integer initialDelaySeconds = m.integer("initialDelaySeconds", false);
      Integer periodSeconds = m.integer("periodSeconds", false);
      Integer port = m.integer("port", true);
      return new ProbeDoc(path, port == null ? 0 : port, initialDelaySeconds, periodSeconds);
    }
  }
}
