package dev.capstan.k8s;

import dev.capstan.release.chart.Capabilities;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.VersionInfo;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A cluster's capabilities as a chart's templates see them ({@code .Capabilities}), read as Helm
 * reads them on an install: the version {@code GET /version} reports, and every group-version the
 * discovery documents serve with each kind at it ({@code apps/v1}, {@code apps/v1/Deployment}).
 * Three requests ({@code /version}, {@code /api}, {@code /apis}, aggregated discovery), with the
 * caller's own clients.
 */
public final class KubeCapabilities {
  private KubeCapabilities() {}

  /**
   * Reads the capabilities of the cluster {@code clients} reach.
   *
   * @param clients the caller's clients
   * @return the version and API versions
   * @throws dev.capstan.common.ClusterException when the API server does not answer
   */
  public static Capabilities read(KubeClients clients) {
    VersionInfo info;
    try {
      info = new VersionApi(clients.apiClient()).getCode().execute();
    } catch (ApiException e) {
      throw KubeFailure.of(e).toException("discover", "/version", null, null);
    }
    Map<String, List<Discovery.Resource>> served = new Discovery(clients.apiClient()).refresh();
    TreeSet<String> versions = new TreeSet<>();
    for (List<Discovery.Resource> resources : served.values()) {
      for (Discovery.Resource r : resources) {
        String gv = r.group().isEmpty() ? r.version() : r.group() + "/" + r.version();
        versions.add(gv);
        versions.add(gv + "/" + r.kind());
      }
    }
    return new Capabilities(info.getGitVersion(), List.copyOf(versions));
  }
}
