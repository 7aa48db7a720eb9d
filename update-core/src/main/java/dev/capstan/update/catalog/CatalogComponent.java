package dev.capstan.update.catalog;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.InvalidCatalogException;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.version.ImageRef;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One component of the platform: where its image lives and how it may change. Create one with
 * {@link #container}, {@link #envVar} or {@link #onDemand}, then refine it with the withers.
 *
 * @param name the component name (a DNS-1123 label), as release manifests name it
 * @param workload the Deployment holding the image; null for an on-demand image with no workload
 * @param container the container holding the image (or the env var); empty when there is no
 *     workload
 * @param envVar the env var of {@code container} whose value is the image; null when the image is
 *     the container's own
 * @param defaultRepository the repository release manifests are generated with; null when the
 *     platform does not publish this image
 * @param built whether the platform builds this image (its tag is the platform version)
 * @param optInGroup the opt-in group; null when the component is updated by default
 * @param note a warning shown whenever this component changes; null for none
 * @param versionPolicy which version changes are allowed
 */
public record CatalogComponent(
    String name,
    @Nullable Workload workload,
    String container,
    @Nullable String envVar,
    @Nullable String defaultRepository,
    boolean built,
    @Nullable String optInGroup,
    @Nullable String note,
    VersionPolicy versionPolicy) {

  /** The rule for env var names (Kubernetes' C-identifier-ish rule). */
  public static final String ENV_VAR_RULE = "[-._a-zA-Z][-._a-zA-Z0-9]*";

  private static final Pattern ENV_VAR = Pattern.compile(ENV_VAR_RULE);

  /** Validates every field; all problems are reported together. */
  public CatalogComponent {
    requireNonNull(name, "name");
    requireNonNull(container, "container");
    requireNonNull(versionPolicy, "versionPolicy");
    List<String> problems =
        problems(
            "", name, workload != null, container, envVar, defaultRepository, optInGroup, note);
    if (!problems.isEmpty()) {
      throw new InvalidCatalogException("component " + Escapes.quote(name), problems);
    }
  }

  /**
   * Creates a component whose image is a container's image.
   *
   * @param name the component name
   * @param namespace the Deployment's namespace
   * @param deployment the Deployment's name
   * @param container the container name
   * @return the component (not built, not opt-in, any version policy)
   */
  public static CatalogComponent container(
      String name, String namespace, String deployment, String container) {
    return new CatalogComponent(
        name,
        Workload.of(namespace, deployment),
        container,
        null,
        null,
        false,
        null,
        null,
        VersionPolicy.any());
  }

  /**
   * Creates a component whose image is the value of an env var of a container (for example an
   * operator that deploys a sidecar image it reads from its environment).
   *
   * @param name the component name
   * @param namespace the Deployment's namespace
   * @param deployment the Deployment's name
   * @param container the container name
   * @param envVar the env var holding the image
   * @return the component
   */
  public static CatalogComponent envVar(
      String name, String namespace, String deployment, String container, String envVar) {
    return new CatalogComponent(
        name,
        Workload.of(namespace, deployment),
        container,
        envVar,
        null,
        false,
        null,
        null,
        VersionPolicy.any());
  }

  /**
   * Creates a component with no workload: an image the platform publishes but runs on demand.
   *
   * @param name the component name
   * @return the component
   */
  public static CatalogComponent onDemand(String name) {
    return new CatalogComponent(name, null, "", null, null, false, null, null, VersionPolicy.any());
  }

  /**
   * Returns a copy with a default repository.
   *
   * @param repository an image repository without tag or digest, for example {@code mcp-ui}
   * @return the copy
   */
  public CatalogComponent withDefaultRepository(String repository) {
    return new CatalogComponent(
        name, workload, container, envVar, repository, built, optInGroup, note, versionPolicy);
  }

  /**
   * Returns a copy with the built flag.
   *
   * @param isBuilt whether the platform builds this image
   * @return the copy
   */
  public CatalogComponent withBuilt(boolean isBuilt) {
    return new CatalogComponent(
        name,
        workload,
        container,
        envVar,
        defaultRepository,
        isBuilt,
        optInGroup,
        note,
        versionPolicy);
  }

  /**
   * Returns a copy in an opt-in group.
   *
   * @param group the group name (a DNS-1123 label), for example {@code cert-manager}
   * @return the copy
   */
  public CatalogComponent withOptInGroup(String group) {
    return new CatalogComponent(
        name, workload, container, envVar, defaultRepository, built, group, note, versionPolicy);
  }

  /**
   * Returns a copy with a note.
   *
   * @param text the warning shown whenever this component changes
   * @return the copy
   */
  public CatalogComponent withNote(String text) {
    return new CatalogComponent(
        name,
        workload,
        container,
        envVar,
        defaultRepository,
        built,
        optInGroup,
        text,
        versionPolicy);
  }

  /**
   * Returns a copy with a version policy.
   *
   * @param policy the policy
   * @return the copy
   */
  public CatalogComponent withVersionPolicy(VersionPolicy policy) {
    return new CatalogComponent(
        name, workload, container, envVar, defaultRepository, built, optInGroup, note, policy);
  }

  static List<String> problems(
      String path,
      String name,
      boolean hasWorkload,
      String container,
      @Nullable String envVar,
      @Nullable String defaultRepository,
      @Nullable String optInGroup,
      @Nullable String note) {
    List<String> out = new ArrayList<>();
    if (!Workload.isLabel(name)) {
      out.add(
          path
              + "name must match "
              + Workload.LABEL_RULE
              + " (at most 63): "
              + Escapes.quote(name));
    }
    if (hasWorkload) {
      if (!Workload.isLabel(container)) {
        out.add(
            path
                + "container must match "
                + Workload.LABEL_RULE
                + " (at most 63): "
                + Escapes.quote(container));
      }
    } else {
      if (!container.isEmpty()) {
        out.add(
            path
                + "container needs a workload (namespace and deployment): "
                + Escapes.quote(container));
      }
      if (envVar != null) {
        out.add(
            path + "envVar needs a workload (namespace and deployment): " + Escapes.quote(envVar));
      }
    }
    if (envVar != null && !ENV_VAR.matcher(envVar).matches()) {
      out.add(path + "envVar must match " + ENV_VAR_RULE + ": " + Escapes.quote(envVar));
    }
    if (defaultRepository != null) {
      ImageRef.repositoryProblem(defaultRepository)
          .ifPresent(
              why -> out.add(path + "repository " + why + ": " + Escapes.quote(defaultRepository)));
    }
    if (optInGroup != null && !Workload.isLabel(optInGroup)) {
      out.add(path + "optIn must match " + Workload.LABEL_RULE + ": " + Escapes.quote(optInGroup));
    }
    if (note != null && note.isBlank()) {
      out.add(path + "note must not be blank when present: " + Escapes.quote(note));
    }
    return out;
  }

  /**
   * Tells whether the image lives in an env var rather than in the container's image field.
   *
   * @return true for an env-var component
   */
  public boolean usesEnvVar() {
    return envVar != null;
  }
}
