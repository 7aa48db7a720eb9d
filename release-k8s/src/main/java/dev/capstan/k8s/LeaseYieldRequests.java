package dev.capstan.k8s;

import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;

/**
 * Requests to yield a release's operation lease ({@link
 * dev.capstan.release.port.Store#requestYield}) as a {@code coordination.k8s.io/v1} Lease of their
 * own named {@code capstan.yield.v1.<name>} in the release's namespace, beside the release's Lease
 * ({@link ReleaseLeases}), which they never write: its {@code holderIdentity} is the requester, the
 * annotation {@value #ASKED} the holder it asks. A request is one CREATE (an UPDATE over the
 * previous request when one exists); reading one is one GET; withdrawing one is one DELETE
 * conditioned on the uid and resourceVersion read.
 */
final class LeaseYieldRequests {
  /** The annotation that names the holder a request asks to yield. */
  static final String ASKED = Stamps.PREFIX + "yield-asked-of";

  private static final int ATTEMPTS = 3;

  private final ResourceApi<V1Lease, V1LeaseList> leases;

  LeaseYieldRequests(ResourceApi<V1Lease, V1LeaseList> leases) {
    this.leases = leases;
  }

  /** The name of the request Lease of {@code release}; no release's own Lease has it. */
  static String requestName(String release) {
    return "capstan.yield.v1." + release;
  }

  void request(String namespace, String name, String holder, String requester, Instant at) {
    String lease = requestName(name);
    for (int attempt = 1; ; attempt++) {
      Optional<V1Lease> live = attempt == 1 ? Optional.empty() : leases.get(namespace, lease);
      try {
        if (live.isEmpty()) {
          leases.create(
              ReleaseLeases.newLease(namespace, lease, Map.of(ASKED, holder), spec(requester, at)));
        } else {
          V1Lease current = live.get();
          current.getMetadata().setAnnotations(Map.of(ASKED, holder));
          current.setSpec(spec(requester, at));
          leases.update(current);
        }
        return;
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
        // one exists (the CREATE), or it was written between our read and write: read it again
      }
    }
  }

  Optional<String> requested(String namespace, String name, String holder) {
    return leases
        .get(namespace, requestName(name))
        .filter(l -> l.getMetadata().getAnnotations() != null)
        .filter(l -> holder.equals(l.getMetadata().getAnnotations().get(ASKED)))
        .map(l -> l.getSpec() == null ? null : l.getSpec().getHolderIdentity());
  }

  void withdraw(String namespace, String name, String requester) {
    Optional<V1Lease> live = leases.get(namespace, requestName(name));
    if (live.isEmpty()
        || live.get().getSpec() == null
        || !requester.equals(live.get().getSpec().getHolderIdentity())) {
      return;
    }
    V1ObjectMeta meta = live.get().getMetadata();
    try {
      leases.delete(namespace, meta.getName(), meta.getUid(), meta.getResourceVersion(), null);
    } catch (ClusterException e) {
      if (e.status() != 409) {
        throw e;
      }
      // replaced meanwhile by another requester's: it is theirs now
    }
  }

  private static V1LeaseSpec spec(String requester, Instant at) {
    return new V1LeaseSpec()
        .holderIdentity(requester)
        .acquireTime(OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
  }
}
