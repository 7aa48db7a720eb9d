package dev.capstan.k8s;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.model.Lease;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The operation lease of a release as a {@code coordination.k8s.io/v1} Lease named {@code
 * capstan.release.v1.<name>} in the release's namespace: {@code holderIdentity}, {@code
 * acquireTime}, {@code renewTime} and {@code leaseDurationSeconds} (the duration rounded up to
 * whole seconds), and the intent the holder named when it took the Lease as the annotation {@value
 * #INTENT} (none when it named none). It expires at {@code renewTime + leaseDurationSeconds}. Every
 * change is a compare-and-set on the Lease's resourceVersion, so two holders never both win.
 *
 * <p>A free release has no Lease: taking it is one CREATE, the intent among the created Lease's
 * annotations (409 AlreadyExists when it exists: then a GET and an UPDATE take it over, if it is
 * free or expired, setting the annotation to the new intent or removing it; the intent the Lease
 * named is handed over only when it had expired, whoever held it), and giving it up is one DELETE
 * conditioned on the uid and resourceVersion of the holder's own last write (remembered here), so
 * it deletes only a Lease nobody changed since, and the intent with it; when that DELETE is refused
 * (409), the Lease is read and given up only if still held by the holder. A Lease left by an older
 * version without a holder is taken over the same way. A renewal is one UPDATE conditioned on the
 * resourceVersion of the holder's own last write, carrying that write's labels and annotations (the
 * intent) unchanged, so it goes through after the expiry if nobody took the Lease, and never after
 * anyone else wrote it.
 */
final class ReleaseLeases {
  /** The annotation that keeps the intent the holder named when it took the Lease. */
  static final String INTENT = Stamps.PREFIX + "lease-intent";

  private static final int ATTEMPTS = 3;

  private final ResourceApi<V1Lease, V1LeaseList> leases;

  /**
   * The Lease as this process last wrote it, per namespace, Lease name and holder: the
   * preconditions of the DELETE that gives it up.
   */
  private final Map<String, V1Lease> written = new ConcurrentHashMap<>();

  ReleaseLeases(ResourceApi<V1Lease, V1LeaseList> leases) {
    this.leases = leases;
  }

  static String leaseName(String release) {
    return "capstan.release.v1." + release;
  }

  LeaseGrant acquire(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    if (intent != null && intent.length() > Store.MAX_LEASE_INTENT) {
      throw new IllegalArgumentException(
          "a lease intent has at most "
              + Store.MAX_LEASE_INTENT
              + " characters; this one has "
              + intent.length());
    }
    String lease = leaseName(name);
    int seconds = seconds(ttl);
    Instant at = micros(now);
    for (int attempt = 1; ; attempt++) {
      // the common case: the release is free and has no Lease, one CREATE takes it
      Optional<V1Lease> live = attempt == 1 ? Optional.empty() : leases.get(namespace, lease);
      try {
        if (live.isEmpty()) {
          V1Lease created =
              leases.create(
                  newLease(
                      namespace,
                      lease,
                      intent == null ? null : Map.of(INTENT, intent),
                      spec(holder, at, at, seconds, 0)));
          written.put(key(namespace, lease, holder), created);
          // the Lease was created in the release's namespace: it exists
          return new LeaseGrant(
              new Lease(holder, at, at.plusSeconds(seconds)), null, true, version(created));
        }
        V1Lease current = live.get();
        Lease held = held(current);
        Lease takenOver = null;
        if (held != null && !held.holder().equals(holder) && !held.expiredAt(now)) {
          throw new ReleaseLockedException(
              namespace + "/" + name, held.holder(), renewed(current), held.expiresAt(), now);
        }
        if (held != null && (!held.holder().equals(holder) || held.expiredAt(now))) {
          // another holder's expired lease, or the holder's own left expired by an operation
          // that stopped without giving it up: its intent is handed over
          takenOver = held;
        }
        V1LeaseSpec old = current.getSpec() == null ? new V1LeaseSpec() : current.getSpec();
        int transitions =
            (old.getLeaseTransitions() == null ? 0 : old.getLeaseTransitions())
                + (held == null || !held.holder().equals(holder) ? 1 : 0);
        current.setSpec(spec(holder, at, at, seconds, transitions));
        V1ObjectMeta meta = current.getMetadata();
        Map<String, String> annotations =
            meta.getAnnotations() == null ? new HashMap<>() : new HashMap<>(meta.getAnnotations());
        // the intent of the lease taken over, handed on only from an expired lease
        String takenOverIntent = takenOver == null ? null : annotations.get(INTENT);
        if (intent == null) {
          annotations.remove(INTENT);
        } else {
          annotations.put(INTENT, intent);
        }
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        V1Lease updated = leases.update(current);
        written.put(key(namespace, lease, holder), updated);
        return new LeaseGrant(
            new Lease(holder, at, at.plusSeconds(seconds)),
            takenOver,
            true,
            version(updated),
            takenOverIntent);
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == ATTEMPTS + 1) {
          throw e;
        }
        // the Lease exists (the CREATE) or another holder wrote it between our read and write:
        // read it
      }
    }
  }

  /** A Lease to create: {@code name} in {@code namespace} with its annotations and spec. */
  static V1Lease newLease(
      String namespace, String name, @Nullable Map<String, String> annotations, V1LeaseSpec spec) {
    return new V1Lease()
        .apiVersion("coordination.k8s.io/v1")
        .kind("Lease")
        .metadata(new V1ObjectMeta().name(name).namespace(namespace).annotations(annotations))
        .spec(spec);
  }

  /**
   * One UPDATE of the Lease as the holder last wrote it, on the resourceVersion of that write (the
   * Lease is read first only when this process has not written it at {@code version}), with that
   * write's labels and annotations, so the intent stays as the holder took the Lease: the API
   * server refuses it (409) once anyone else wrote the Lease, and applies it whatever the expiry. A
   * refusal is then told apart from the holder's own write landing unheard (a retried request): the
   * Lease is read, and it is the holder's success only when it holds exactly what was sent.
   */
  String renew(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    String lease = leaseName(name);
    String release = namespace + "/" + name;
    V1Lease mine = written.get(key(namespace, lease, holder));
    V1Lease base;
    if (mine != null && version.equals(version(mine))) {
      base = mine;
    } else {
      Optional<V1Lease> live = leases.get(namespace, lease);
      if (live.isEmpty() || !version.equals(version(live.get()))) {
        throw locked(release, live, now);
      }
      base = live.get();
    }
    V1LeaseSpec old = base.getSpec() == null ? new V1LeaseSpec() : base.getSpec();
    if (!holder.equals(old.getHolderIdentity())) {
      throw locked(release, Optional.of(base), now);
    }
    OffsetDateTime renewTime = time(micros(now));
    int seconds = seconds(ttl);
    V1ObjectMeta meta = base.getMetadata();
    V1Lease renewal =
        new V1Lease()
            .apiVersion("coordination.k8s.io/v1")
            .kind("Lease")
            .metadata(
                new V1ObjectMeta()
                    .name(lease)
                    .namespace(namespace)
                    .uid(meta.getUid())
                    .resourceVersion(version)
                    // an UPDATE replaces the whole object: keep what the holder's write carried
                    .labels(meta.getLabels())
                    .annotations(meta.getAnnotations()))
            .spec(
                new V1LeaseSpec()
                    .holderIdentity(holder)
                    .acquireTime(old.getAcquireTime())
                    .renewTime(renewTime)
                    .leaseDurationSeconds(seconds)
                    .leaseTransitions(old.getLeaseTransitions()));
    V1Lease renewed;
    try {
      renewed = leases.update(renewal);
    } catch (ClusterException e) {
      if (e.status() != 409 && e.status() != 404) {
        throw e;
      }
      Optional<V1Lease> live = e.status() == 404 ? Optional.empty() : leases.get(namespace, lease);
      V1LeaseSpec after = live.map(V1Lease::getSpec).orElse(null);
      if (after == null
          || !holder.equals(after.getHolderIdentity())
          || after.getRenewTime() == null
          || !renewTime.isEqual(after.getRenewTime())
          || !Integer.valueOf(seconds).equals(after.getLeaseDurationSeconds())
          || !java.util.Objects.equals(meta.getUid(), live.get().getMetadata().getUid())) {
        throw locked(release, live, now);
      }
      renewed = live.get(); // our own renewal, answered late and retried: it landed
    }
    written.put(key(namespace, lease, holder), renewed);
    return version(renewed);
  }

  private static ReleaseLockedException locked(
      String release, Optional<V1Lease> live, Instant now) {
    Lease held = live.map(ReleaseLeases::held).orElse(null);
    return new ReleaseLockedException(
        release, held == null ? "nobody" : held.holder(), held == null ? now : held.expiresAt());
  }

  private static String version(V1Lease lease) {
    String v = lease.getMetadata() == null ? null : lease.getMetadata().getResourceVersion();
    if (v == null) {
      throw new IllegalStateException("the API server returned a Lease without resourceVersion");
    }
    return v;
  }

  void release(String namespace, String name, String holder, boolean forget) {
    String lease = leaseName(name);
    V1Lease mine = written.remove(key(namespace, lease, holder));
    if (mine != null) {
      // one request: the DELETE succeeds only if nobody wrote the Lease since our last write
      V1ObjectMeta meta = mine.getMetadata();
      try {
        leases.delete(namespace, lease, meta.getUid(), meta.getResourceVersion(), null);
        return;
      } catch (ClusterException e) {
        if (e.status() != 409) {
          throw e;
        }
        // written since (renewed elsewhere, taken over, re-created): read it and decide
      }
    }
    for (int attempt = 1; ; attempt++) {
      Optional<V1Lease> live = leases.get(namespace, lease);
      Lease held = live.map(ReleaseLeases::held).orElse(null);
      if (live.isEmpty() || held == null || !held.holder().equals(holder)) {
        if (forget && live.isPresent() && held == null) {
          deleteQuietly(namespace, live.get());
        }
        return;
      }
      V1Lease current = live.get();
      try {
        V1ObjectMeta meta = current.getMetadata();
        leases.delete(namespace, lease, meta.getUid(), meta.getResourceVersion(), null);
        return;
      } catch (ClusterException e) {
        if (e.status() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static String key(String namespace, String lease, String holder) {
    return namespace + "/" + lease + "/" + holder;
  }

  private void deleteQuietly(String namespace, V1Lease lease) {
    V1ObjectMeta meta = lease.getMetadata();
    try {
      leases.delete(namespace, meta.getName(), meta.getUid(), meta.getResourceVersion(), null);
    } catch (ClusterException e) {
      if (e.status() != 409) {
        throw e;
      }
      // taken meanwhile: it is someone's lease now
    }
  }

  /** The Lease of a release as held, with its intent: one GET; empty when nobody holds it. */
  Optional<HeldLease> held(String namespace, String name) {
    return leases
        .get(namespace, leaseName(name))
        .flatMap(
            live -> {
              Lease held = held(live);
              Map<String, String> annotations =
                  live.getMetadata() == null ? null : live.getMetadata().getAnnotations();
              return held == null
                  ? Optional.empty()
                  : Optional.of(
                      new HeldLease(held, annotations == null ? null : annotations.get(INTENT)));
            });
  }

  /** The lease as held, or {@code null} when nobody holds it. */
  static @Nullable Lease held(V1Lease lease) {
    V1LeaseSpec spec = lease.getSpec();
    if (spec == null || spec.getHolderIdentity() == null || spec.getHolderIdentity().isEmpty()) {
      return null;
    }
    OffsetDateTime renewed =
        spec.getRenewTime() != null ? spec.getRenewTime() : spec.getAcquireTime();
    if (renewed == null) {
      return null;
    }
    Instant renewedAt = renewed.toInstant();
    Instant expires =
        renewedAt.plusSeconds(
            spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds());
    Instant acquired =
        spec.getAcquireTime() == null ? renewedAt : spec.getAcquireTime().toInstant();
    return new Lease(
        spec.getHolderIdentity(), acquired.isAfter(expires) ? expires : acquired, expires);
  }

  /** When the Lease was last renewed (or taken), if it says. */
  private static @Nullable Instant renewed(V1Lease lease) {
    V1LeaseSpec spec = lease.getSpec();
    OffsetDateTime t =
        spec == null
            ? null
            : spec.getRenewTime() != null ? spec.getRenewTime() : spec.getAcquireTime();
    return t == null ? null : t.toInstant();
  }

  private static V1LeaseSpec spec(
      String holder, Instant acquired, Instant renewed, int seconds, int transitions) {
    return new V1LeaseSpec()
        .holderIdentity(holder)
        .acquireTime(time(acquired))
        .renewTime(time(renewed))
        .leaseDurationSeconds(seconds)
        .leaseTransitions(transitions);
  }

  /** The duration in whole seconds, rounded up, at least one. */
  static int seconds(Duration ttl) {
    long millis = ttl.toMillis();
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
  }

  private static Instant micros(Instant t) {
    return t.truncatedTo(ChronoUnit.MICROS);
  }

  private static OffsetDateTime time(Instant t) {
    return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
  }
}
