package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The caller's own access to the target cluster, through which a chart's {@code lookup} reads it:
 * the renderer gives the chart these credentials and no others, never those of the process it runs
 * in, so a template reads exactly what the caller may read. Under a controller that casts as a
 * service account, the access names the controller's kubeconfig and that account to impersonate
 * ({@code asUser}): lookups then read as the account.
 *
 * @param kubeconfigs the kubeconfig files, merged as kubectl merges a {@code $KUBECONFIG} list
 * @param context the kubeconfig context, or {@code null} for its current one
 * @param asUser the user to impersonate, or {@code null}
 * @param asGroups the groups to impersonate (with {@code asUser})
 * @param environment the only environment the renderer's process gets from the caller: what the
 *     kubeconfig's credential plugins need ({@code PATH}, {@code HOME}, a cloud CLI's own
 *     variables); never printed
 */
public record ClusterAccess(
    List<String> kubeconfigs,
    @Nullable String context,
    @Nullable String asUser,
    List<String> asGroups,
    Map<String, String> environment) {

  /** Requires at least one kubeconfig; copies the lists and the environment. */
  public ClusterAccess {
    kubeconfigs = List.copyOf(kubeconfigs);
    if (kubeconfigs.isEmpty()) {
      throw new IllegalArgumentException("cluster access needs a kubeconfig");
    }
    asGroups = List.copyOf(asGroups);
    if (asUser == null && !asGroups.isEmpty()) {
      throw new IllegalArgumentException("cluster access: groups are impersonated with a user");
    }
    environment = java.util.Collections.unmodifiableMap(new TreeMap<>(requireNonNull(environment)));
  }

  /**
   * The access a command line has: its kubeconfig files and context, its user's environment.
   *
   * @param kubeconfigs the kubeconfig files
   * @param context the context, or {@code null}
   * @param environment the environment credential plugins need
   */
  public static ClusterAccess of(
      List<String> kubeconfigs, @Nullable String context, Map<String, String> environment) {
    return new ClusterAccess(kubeconfigs, context, null, List.of(), environment);
  }

  /** A copy that impersonates {@code user} (and {@code groups}). */
  public ClusterAccess impersonating(String user, List<String> groups) {
    return new ClusterAccess(
        kubeconfigs, context, requireNonNull(user, "user"), groups, environment);
  }

  /** The files, context and impersonation; never the environment's values. */
  @Override
  public String toString() {
    return "ClusterAccess["
        + Escapes.escape(String.join(":", kubeconfigs))
        + (context == null ? "" : " context " + Escapes.escape(context))
        + (asUser == null ? "" : " as " + Escapes.escape(asUser))
        + ", "
        + environment.size()
        + " environment variable(s)]";
  }
}
