package dev.capstan.examples;

// testkit:start
import static dev.capstan.test.CapstanAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.test.CapstanTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@CapstanTest // each test: a fresh InMemoryCluster, and a ReleaseController on it
class WebReleaseTest {
  private static Payloads web(String image, boolean withService) {
    ServiceSpec.Builder web = ServiceSpec.builder("shop", "web").image(image).envFromSecret("db");
    return Payloads.of(
        (withService ? web.port("http", 8080) : web).build(),
        SecretSpec.of("shop", "db", Map.of("password", "s3cret")));
  }

  private static void cast(ReleaseController releases, Payloads payloads) {
    releases.cast(ReleaseInput.of("shop", "web", payloads));
  }

  @BeforeEach
  void shop(InMemoryCluster cluster) {
    cluster.addNamespace("shop");
  }

  @Test
  void installsInDependencyOrder(ReleaseController releases, InMemoryCluster cluster) {
    cast(releases, web("acme/web:1.0", true));

    assertThat(cluster)
        .appliedExactly("Secret/shop/db", "apps/Deployment/shop/web", "Service/shop/web");
    assertThat(releases.get("shop", "web").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void anUpgradeWritesOnlyWhatChanged(ReleaseController releases, InMemoryCluster cluster) {
    cast(releases, web("acme/web:1.0", true));
    cluster.clearOperations();

    cast(releases, web("acme/web:1.1", true));

    assertThat(cluster)
        .appliedExactly("apps/Deployment/shop/web")
        .neverTouched("Secret/shop/db", "Service/shop/web");
  }

  @Test
  void anUnchangedReleaseWritesNothing(ReleaseController releases, InMemoryCluster cluster) {
    cast(releases, web("acme/web:1.0", true));
    cluster.clearOperations();

    cast(releases, web("acme/web:1.0", true));

    assertThat(cluster).wroteNothing();
  }

  @Test
  void whatTheReleaseNoLongerHasIsPrunedLast(ReleaseController releases, InMemoryCluster cluster) {
    cast(releases, web("acme/web:1.0", true));
    cluster.clearOperations();

    cast(releases, web("acme/web:1.0", false));

    assertThat(cluster)
        .appliedExactly("apps/Deployment/shop/web")
        .prunedExactly("Service/shop/web")
        .prunedLast();
  }
}
// testkit:end
