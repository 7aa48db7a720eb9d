package dev.capstan.spring.boot;

import dev.capstan.common.CapstanException;
import dev.capstan.common.Escapes;
import dev.capstan.k8s.KubeClients;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One look at the Kubernetes connection, as both health indicators report it: the API server's
 * version ({@code GET /version}, which any authenticated client may read, asked once and not
 * retried), or why it could not be read.
 *
 * @param up whether the API server answered
 * @param details what a health endpoint shows: the context, the server, and its version or the
 *     error (never a credential)
 */
record KubernetesCheck(boolean up, Map<String, Object> details) {
  KubernetesCheck {
    details = Map.copyOf(details);
  }

  /** Asks the API server of {@code kube} for its version. */
  static KubernetesCheck of(KubeClients kube) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("context", kube.context());
    details.put("server", kube.server());
    try {
      details.put("version", kube.serverVersion());
      return new KubernetesCheck(true, details);
    } catch (CapstanException e) {
      details.put("error", Escapes.escape(String.valueOf(e.getMessage())));
      return new KubernetesCheck(false, details);
    }
  }
}
