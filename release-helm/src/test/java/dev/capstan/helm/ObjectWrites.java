package dev.capstan.helm;

import dev.capstan.k8s.KubeClients;
import java.util.List;

/**
 * The requests of a {@link KubeClients}' log that wrote a release's objects: every request but
 * reads, dry runs, the lease and Capstan's record Secrets.
 */
final class ObjectWrites {
  private ObjectWrites() {}

  static List<String> of(KubeClients kube) {
    return kube.requests().log().stream()
        .filter(
            l ->
                !(l.startsWith("GET ")
                    || l.startsWith("LIST ")
                    || l.startsWith("WATCH ")
                    || l.startsWith("DRYRUN-")))
        .filter(l -> !l.contains(" leases ") && !l.contains("/capstan.release.v1."))
        .filter(l -> !l.startsWith("CREATE secrets "))
        .toList();
  }
}
