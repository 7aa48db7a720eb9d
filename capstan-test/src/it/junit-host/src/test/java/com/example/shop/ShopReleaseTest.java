package com.example.shop;

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
import dev.capstan.test.InMemory;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@CapstanTest // each test: a fresh InMemoryCluster, and a ReleaseController on it
class ShopReleaseTest {
  @InMemory InMemoryCluster cluster;

  private static ReleaseInput shop(String image) {
    return ReleaseInput.of(
        "shop",
        "web",
        Payloads.of(
            ServiceSpec.builder("shop", "web").image(image).port("http", 8080).envFromSecret("db").build(),
            SecretSpec.of("shop", "db", Map.of("password", "s3cret"))));
  }

  @BeforeEach
  void shop() {
    cluster.addNamespace("shop");
  }

  @Test
  void runsOnTheJUnitThisBuildAskedFor() {
    assertThat(Test.class.getPackage().getImplementationVersion())
        .isEqualTo(System.getProperty("junit.version"));
  }

  @Test
  void installsInDependencyOrder(ReleaseController releases) {
    releases.cast(shop("acme/web:1.0"));

    assertThat(cluster)
        .appliedExactly("Secret/shop/db", "apps/Deployment/shop/web", "Service/shop/web");
    assertThat(releases.get("shop", "web").orElseThrow().status()).isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Nested
  class AfterTheFirstCast {
    @BeforeEach
    void castOnce(ReleaseController releases) {
      releases.cast(shop("acme/web:1.0"));
      cluster.clearOperations();
    }

    @Test
    void anUpgradeWritesOnlyWhatChanged(ReleaseController releases) {
      releases.cast(shop("acme/web:1.1"));

      assertThat(cluster).appliedExactly("apps/Deployment/shop/web").neverTouched("Secret/shop/db");
    }
  }
}
