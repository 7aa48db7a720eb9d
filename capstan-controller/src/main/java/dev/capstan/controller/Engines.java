package dev.capstan.controller;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.plan.Plan;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the reconciler does a Release's work with, all with the rights of the account the Release is
 * cast as ({@link Tenancy}): the release engine, the reader of its ConfigMap and Secret sources,
 * the review of the requests a cast of a plan would send, and the renderer of its charts.
 */
interface Engines {
  /**
   * The engines of {@code account}, keeping {@code maxHistory} revisions.
   *
   * @param account the service account, or null for the controller's own rights
   */
  Engine of(Tenancy.@Nullable Account account, int maxHistory);

  /**
   * One account's engines.
   *
   * @param releases the release engine (observe, plan, records, lease, writes, health waits)
   * @param sources where its ConfigMaps and Secrets are read
   * @param denied the requests a cast of a plan would send that the account may not send, one line
   *     each ({@code create clusterrolebindings.rbac.authorization.k8s.io cluster-wide (for
   *     ClusterRoleBinding/pwn)}); empty when it may send them all
   * @param charts renders a Release's chart for the account's cluster: its capabilities, and its
   *     templates' {@code lookup} reading as the account
   */
  record Engine(
      ReleaseController releases,
      ManifestSources sources,
      Function<Plan, List<String>> denied,
      ChartRenderer charts) {
    public Engine {
      java.util.Objects.requireNonNull(releases, "releases");
      java.util.Objects.requireNonNull(sources, "sources");
      java.util.Objects.requireNonNull(denied, "denied");
      java.util.Objects.requireNonNull(charts, "charts");
    }

    /** An account's engines that render no chart (each chart is refused, saying so). */
    Engine(
        ReleaseController releases, ManifestSources sources, Function<Plan, List<String>> denied) {
      this(
          releases,
          sources,
          denied,
          (request, limits) -> {
            throw new ChartException("this controller renders no chart");
          });
    }
  }
}
