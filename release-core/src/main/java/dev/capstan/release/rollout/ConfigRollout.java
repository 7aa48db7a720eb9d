package dev.capstan.release.rollout;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Config changes roll out: a pure transform of a release's rendered objects. The pod template of
 * every workload that reads a ConfigMap or Secret of the same release gets the annotation {@value
 * #CONFIG_HASH}: {@code sha256:} and the hex SHA-256 of its inputs' refs and content hashes (a
 * Secret's keyed per release, never a plain hash of its values). A changed input changes the
 * annotation, so the workload's pods restart in the same cast; unchanged inputs leave the template
 * as it was.
 *
 * <p>A workload reads an input through {@code env[].valueFrom.configMapKeyRef} or {@code
 * secretKeyRef}, {@code envFrom[].configMapRef} or {@code secretRef} (containers and init
 * containers), and {@code volumes[].configMap}, {@code secret} or {@code projected.sources[]}. Only
 * objects of the same release count (an external ConfigMap's content is not known).
 *
 * <p>Workloads: Deployment, StatefulSet and DaemonSet ({@code spec.template}) and CronJob ({@code
 * spec.jobTemplate.spec.template}, for the Jobs it starts next). Not: Job and Pod (their pod
 * template is immutable, so the annotation would make the update fail) and ReplicaSet (a changed
 * template does not replace its pods). A workload annotated {@value #OPT_OUT}{@code : "false"} is
 * left alone.
 */
public final class ConfigRollout {
  /** The pod-template annotation over the inputs' content hashes. */
  public static final String CONFIG_HASH = "capstan.dev/config-hash";

  /** The workload annotation that turns config rollouts off ({@code "false"}) or on. */
  public static final String OPT_OUT = "capstan.dev/config-rollout";

  private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers");

  private ConfigRollout() {}

  /**
   * What the transform did: every object (annotated where it reads config), and for each annotated
   * workload its inputs, sorted by key.
   *
   * @param objects every object given, in the order given, readers annotated
   * @param inputs for each annotated workload, the ConfigMaps and Secrets it reads
   */
  public record Result(
      Map<ResourceRef, Manifest> objects, Map<ResourceRef, List<ResourceRef>> inputs) {
    /** Copies both maps, keeping their order. */
    public Result {
      objects = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(objects));
      Map<ResourceRef, List<ResourceRef>> copy = new LinkedHashMap<>();
      inputs.forEach((k, v) -> copy.put(k, List.copyOf(v)));
      inputs = java.util.Collections.unmodifiableMap(copy);
    }
  }

  /**
   * The objects as a tool other than Capstan rendered them, to be written as rendered: every
   * workload this transform would annotate (Deployment, StatefulSet, DaemonSet, CronJob) and that
   * does not say otherwise gets {@value #OPT_OUT}{@code : "false"} (a metadata annotation, outside
   * the pod template), so casting them adds no {@value #CONFIG_HASH} to a pod template and replaces
   * no pod. A Helm import and a chart cast write their objects so (Helm charts roll their own
   * config out, by a checksum annotation of their own), and so a chart cast after an import of the
   * same chart writes nothing.
   *
   * @param payloads the rendered objects
   * @return the same payloads when no workload was opted out, else the objects with the annotation
   */
  public static dev.capstan.release.model.Payloads optedOut(
      dev.capstan.release.model.Payloads payloads) {
    List<Manifest> objects = new ArrayList<>();
    boolean changed = false;
    for (Manifest object : payloads.objects()) {
      if (templatePath(object.kind()) != null && !object.annotations().containsKey(OPT_OUT)) {
        objects.add(object.withEntry("metadata.annotations", OPT_OUT, "false"));
        changed = true;
      } else {
        objects.add(object);
      }
    }
    return changed ? dev.capstan.release.model.Payloads.of(objects) : payloads;
  }

  /**
   * Annotates the readers among {@code objects}.
   *
   * @param objects a release's rendered objects
   * @param hashes the content hash of every object of the release (Secrets keyed); an input without
   *     one is not counted
   */
  public static Result apply(Collection<Manifest> objects, Map<ResourceRef, String> hashes) {
    requireNonNull(hashes, "hashes");
    Map<ResourceRef, Manifest> out = new LinkedHashMap<>();
    Map<ResourceRef, List<ResourceRef>> inputs = new LinkedHashMap<>();
    for (Manifest object : objects) {
      String templatePath = templatePath(object.kind());
      if (templatePath == null || !enabled(object)) {
        out.put(object.ref(), object);
        continue;
      }
      List<ResourceRef> read = new ArrayList<>();
      for (ResourceRef ref : reads(object, templatePath)) {
        if (hashes.containsKey(ref)) {
          read.add(ref);
        }
      }
      if (read.isEmpty()) {
        out.put(object.ref(), object);
        continue;
      }
      StringBuilder text = new StringBuilder();
      for (ResourceRef ref : read) {
        text.append(ref.key()).append('=').append(hashes.get(ref)).append('\n');
      }
      out.put(
          object.ref(),
          object.withEntry(
              templatePath + ".metadata.annotations",
              CONFIG_HASH,
              "sha256:" + sha256Hex(text.toString())));
      inputs.put(object.ref(), read);
    }
    return new Result(out, inputs);
  }

  /**
   * The problems of the {@value #OPT_OUT} annotations among {@code objects}: its value must be
   * {@code "true"} or {@code "false"}.
   */
  public static List<String> problems(Collection<Manifest> objects) {
    List<String> problems = new ArrayList<>();
    for (Manifest object : objects) {
      String value = object.annotations().get(OPT_OUT);
      if (value != null && !value.equals("true") && !value.equals("false")) {
        problems.add(
            "payloads["
                + object.ref().key()
                + "].metadata.annotations."
                + OPT_OUT
                + " must be \"true\" or \"false\": "
                + Escapes.quote(value));
      }
    }
    return problems;
  }

  /** The dotted path of a workload kind's pod template, or {@code null} for other kinds. */
  static @Nullable String templatePath(Kind kind) {
    if (kind.equals(Kind.DEPLOYMENT)
        || kind.equals(Kind.STATEFUL_SET)
        || kind.equals(Kind.DAEMON_SET)) {
      return "spec.template";
    }
    if (kind.equals(Kind.CRON_JOB)) {
      return "spec.jobTemplate.spec.template";
    }
    return null;
  }

  private static boolean enabled(Manifest workload) {
    return !"false".equals(workload.annotations().get(OPT_OUT));
  }

  /** The ConfigMaps and Secrets a pod template names, sorted by key. */
  static List<ResourceRef> reads(Manifest workload, String templatePath) {
    TreeSet<String> configMaps = new TreeSet<>();
    TreeSet<String> secrets = new TreeSet<>();
    String pod = templatePath + ".spec";
    for (String list : CONTAINER_LISTS) {
      for (Map<?, ?> container : maps(workload.get(pod + "." + list))) {
        for (Map<?, ?> env : maps(container.get("env"))) {
          if (env.get("valueFrom") instanceof Map<?, ?> from) {
            add(configMaps, from.get("configMapKeyRef"), "name");
            add(secrets, from.get("secretKeyRef"), "name");
          }
        }
        for (Map<?, ?> from : maps(container.get("envFrom"))) {
          add(configMaps, from.get("configMapRef"), "name");
          add(secrets, from.get("secretRef"), "name");
        }
      }
    }
    for (Map<?, ?> volume : maps(workload.get(pod + ".volumes"))) {
      add(configMaps, volume.get("configMap"), "name");
      add(secrets, volume.get("secret"), "secretName");
      if (volume.get("projected") instanceof Map<?, ?> projected) {
        for (Map<?, ?> source : maps(projected.get("sources"))) {
          add(configMaps, source.get("configMap"), "name");
          add(secrets, source.get("secret"), "name");
        }
      }
    }
    List<ResourceRef> refs = new ArrayList<>();
    for (String name : configMaps) {
      ref(Kind.CONFIG_MAP, workload.namespace(), name, refs);
    }
    for (String name : secrets) {
      ref(Kind.SECRET, workload.namespace(), name, refs);
    }
    refs.sort(null);
    return refs;
  }

  private static void ref(Kind kind, String namespace, String name, List<ResourceRef> refs) {
    try {
      refs.add(ResourceRef.of(kind, namespace, name));
    } catch (IllegalArgumentException e) {
      // not a valid object name: it names nothing of the release
    }
  }

  private static void add(Set<String> names, @Nullable Object holder, String field) {
    if (holder instanceof Map<?, ?> map
        && map.get(field) instanceof String name
        && !name.isEmpty()) {
      names.add(name);
    }
  }

  private static List<Map<?, ?>> maps(@Nullable Object list) {
    List<Map<?, ?>> out = new ArrayList<>();
    if (list instanceof List<?> items) {
      for (Object item : items) {
        if (item instanceof Map<?, ?> map) {
          out.add(map);
        }
      }
    }
    return out;
  }

  private static String sha256Hex(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
