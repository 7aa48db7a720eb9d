package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.PrivateFolder;
import dev.capstan.k8s.AccessReviews;
import dev.capstan.k8s.KubeCapabilities;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.codec.RecordLimits;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The engines of each account on Kubernetes: for a service account, clients that impersonate it
 * ({@link KubeClients#asServiceAccount}), sharing the controller's connections and request counter;
 * for none, the controller's own clients. Built on first use and kept, one per account and number
 * of revisions kept. An account's charts are rendered for the cluster as the account reads it (its
 * discovery), and their templates' {@code lookup} reads through the {@link LookupProxy} with the
 * account's client: Helm gets no credential of the controller. Without an account, {@code lookup}
 * reads nothing: the proxy never reads with the controller's own client.
 */
final class KubernetesEngines implements Engines, AutoCloseable {
  private final KubeClients clients;
  private final String holder;
  private final Consumer<ReleaseControllerBuilder> customizer;
  private final ChartRenderer renderer;
  private final RecordLimits records;
  private volatile @Nullable LookupProxy proxy;
  private final Map<Key, Engine> engines = new ConcurrentHashMap<>();
  private final Map<Optional<Tenancy.Account>, Account> accounts = new ConcurrentHashMap<>();

  private record Key(Tenancy.@Nullable Account account, int maxHistory) {}

  /** What one account's engines share, whatever the number of revisions kept. */
  private record Account(
      KubernetesOrchestrator orchestrator,
      KubernetesStore store,
      AccountSources sources,
      AccessReviews reviews,
      ChartRenderer charts) {}

  /**
   * The engines on {@code clients}.
   *
   * @param renderer renders charts (Helm), given the account's capabilities and lookup access
   * @param records what the stores may hold of one record while they decode it
   */
  KubernetesEngines(
      KubeClients clients,
      String holder,
      Consumer<ReleaseControllerBuilder> customizer,
      ChartRenderer renderer,
      RecordLimits records) {
    this.records = requireNonNull(records, "records");
    this.clients = requireNonNull(clients, "clients");
    this.holder = requireNonNull(holder, "holder");
    this.customizer = requireNonNull(customizer, "customizer");
    this.renderer = requireNonNull(renderer, "renderer");
  }

  @Override
  public Engine of(Tenancy.@Nullable Account account, int maxHistory) {
    return engines.computeIfAbsent(
        new Key(account, maxHistory),
        k -> {
          Account a = accounts.computeIfAbsent(Optional.ofNullable(k.account()), this::account);
          ReleaseControllerBuilder b =
              ReleaseController.builder(a.orchestrator(), a.store())
                  .holder(holder)
                  .maxHistory(maxHistory);
          customizer.accept(b);
          return new Engine(
              b.build(),
              a.sources(),
              plan ->
                  a.reviews().reviewCast(plan).stream()
                      .map(AccessReviews.Denial::describe)
                      .toList(),
              a.charts());
        });
  }

  private Account account(Optional<Tenancy.Account> account) {
    KubeClients as =
        account.map(a -> clients.asServiceAccount(a.namespace(), a.name())).orElse(clients);
    return new Account(
        new KubernetesOrchestrator(as),
        new KubernetesStore(as, records),
        new AccountSources(as.apiClient()),
        new AccessReviews(as),
        account.isPresent() ? charts(as) : chartsWithoutLookup());
  }

  /** The account's renderer: its cluster's capabilities, and lookup through the proxy as it. */
  private ChartRenderer charts(KubeClients as) {
    return (request, limits) -> {
      var capabilities = KubeCapabilities.read(as);
      try (PrivateFolder folder = PrivateFolder.create(null, "capstan-chart-");
          LookupProxy.Grant grant = proxy().grant(as.apiClient())) {
        ClusterAccess lookup =
            ClusterAccess.of(
                List.of(grant.kubeconfig(folder, request.namespace()).toString()), null, Map.of());
        try {
          return renderer.render(
              request.withCapabilities(capabilities).withCluster(lookup), limits);
        } catch (ChartException e) {
          String message = String.valueOf(e.getMessage());
          if (!message.contains(grant.token())) {
            throw e;
          }
          throw new ChartException(message.replace(grant.token(), "TOKEN"), e);
        }
      }
    };
  }

  /**
   * The renderer of a Release cast with the controller's own rights: the cluster's capabilities,
   * and no cluster access at all, so its templates' {@code lookup} finds nothing (as {@code helm
   * template} without a cluster). The controller's own client may read every Secret (its watch of
   * sources lists them), which a chart's {@code fail} would print into the Release's status.
   */
  private ChartRenderer chartsWithoutLookup() {
    return (request, limits) ->
        renderer.render(request.withCapabilities(KubeCapabilities.read(clients)), limits);
  }

  private synchronized LookupProxy proxy() {
    LookupProxy p = proxy;
    if (p == null) {
      p = LookupProxy.start();
      proxy = p;
    }
    return p;
  }

  /** Stops the lookup proxy, when one was started. */
  @Override
  public synchronized void close() {
    LookupProxy p = proxy;
    if (p != null) {
      p.close();
      proxy = null;
    }
  }
}
