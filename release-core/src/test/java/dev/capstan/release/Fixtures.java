package dev.capstan.release;

import dev.capstan.common.ManualClock;
import dev.capstan.release.engine.EffectiveRelease;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared test data: a small web release and a controller over an in-memory cluster. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final String NS = "default";
  static final String SECRET_VALUE = "hunter2-S3CR3T";

  static final ResourceRef WEB = ResourceRef.of(Kind.DEPLOYMENT, NS, "web");
  static final ResourceRef WEB_SERVICE = ResourceRef.of(Kind.SERVICE, NS, "web");
  static final ResourceRef CREDS = ResourceRef.of(Kind.SECRET, NS, "creds");
  static final ResourceRef SETTINGS = ResourceRef.of(Kind.CONFIG_MAP, NS, "settings");
  static final ResourceRef DATA = ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, NS, "data");

  private Fixtures() {}

  static ServiceSpec web(String image) {
    return ServiceSpec.builder(NS, "web")
        .image(image)
        .replicas(2)
        .port("http", 8080)
        .envFromSecret("creds")
        .build();
  }

  static SecretSpec creds(String password) {
    return SecretSpec.of(NS, "creds", Map.of("password", password));
  }

  static ConfigMapSpec configMap(String name, String value) {
    return ConfigMapSpec.of(NS, name, Map.of("value", value));
  }

  static VolumeSpec volume(String name, VolumeSpec.ReclaimPolicy policy) {
    return VolumeSpec.of(NS, name, "1Gi").withReclaimPolicy(policy);
  }

  /** A manifest from YAML (one document), in namespace {@link #NS} unless it names another. */
  static Manifest yaml(String yaml) {
    @SuppressWarnings("unchecked")
    Map<String, Object> tree =
        (Map<String, Object>)
            new org.snakeyaml.engine.v2.api.Load(
                    org.snakeyaml.engine.v2.api.LoadSettings.builder().build())
                .loadFromString(yaml);
    return Manifest.of(tree, NS);
  }

  /** The object an item renders to (its first, for a service: the Deployment). */
  static Manifest obj(ResourceSpec spec) {
    return spec.render().get(0);
  }

  static Payloads payloads(dev.capstan.release.model.ResourceSpec... specs) {
    return Payloads.of(specs);
  }

  static ReleaseSpec spec(String name, Payloads payloads) {
    return ReleaseSpec.of(NS, name, payloads);
  }

  /**
   * What a cast of {@code payloads} by {@code release} writes: Secrets' hashes keyed with the
   * release's key, config readers annotated ({@link EffectiveRelease}).
   */
  static EffectiveRelease effective(Release release, Payloads payloads) {
    return EffectiveRelease.of(
        ReleaseSpec.of(release.namespace(), release.name(), payloads),
        payloads,
        java.util.Objects.requireNonNull(release.secretHashKey(), "secretHashKey"),
        null);
  }

  /** The owned set of a cast of {@code payloads} by {@code release}, with the hashes it stamps. */
  static List<dev.capstan.release.model.OwnedResource> owns(Release release, Payloads payloads) {
    return effective(release, payloads).spec.resources().stream()
        .map(d -> new dev.capstan.release.model.OwnedResource(d.ref(), d.contentHash()))
        .toList();
  }

  /** The object a cast of {@code payloads} by {@code release} writes at {@code ref}. */
  static Manifest written(Release release, Payloads payloads, ResourceRef ref) {
    return effective(release, payloads).objects.get(ref).orElseThrow();
  }

  /** A controller, its cluster, clock and the events it emitted. */
  static final class Harness {
    final InMemoryCluster cluster = InMemoryCluster.create();
    final ManualClock clock = ManualClock.at(T0);
    final List<ReleaseEvent> events = new CopyOnWriteArrayList<>();
    final ReleaseController controller;

    Harness() {
      this("me");
    }

    Harness(String holder) {
      this(holder, 1);
    }

    Harness(String holder, int parallelism) {
      this(holder, parallelism, true);
    }

    /**
     * A harness whose controller records a cast's intent as a {@code PENDING} revision, as over a
     * store that keeps no lease intents ({@link Store#keepsLeaseIntents()}).
     */
    static Harness withoutLeaseIntents(String holder) {
      return new Harness(holder, 1, false);
    }

    private final Store store;

    private Harness(String holder, int parallelism, boolean leaseIntents) {
      AtomicInteger ids = new AtomicInteger();
      store = leaseIntents ? cluster : new ForwardingStore(cluster);
      controller =
          ReleaseController.builder(cluster, store)
              .clock(clock)
              .holder(holder)
              .parallelism(parallelism)
              .leaseDuration(Duration.ofMinutes(2))
              .ids(() -> "id-" + ids.incrementAndGet())
              .listener((ReleaseListener) events::add)
              .build();
    }

    /** Another controller on the same cluster and clock, with its own holder name. */
    ReleaseController other(String holder) {
      return ReleaseController.builder(cluster, store)
          .clock(clock)
          .holder(holder)
          .parallelism(1)
          .ids(() -> "other-id")
          .build();
    }

    CastResult cast(String name, Payloads payloads) {
      return controller.cast(spec(name, payloads), payloads);
    }
  }
}
