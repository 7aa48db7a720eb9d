package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The example application in {@code examples/src/main/resources/apps/shop/} — plain Kubernetes
 * manifests of sixteen kinds, a CRD and two of its custom resources — cast on the in-memory cluster
 * as the CLI's {@code release cast shop -n shop -f examples/src/main/resources/apps/shop/
 * --create-namespace} does ({@code AnyKindReleaseIT} casts it on a real control plane).
 */
class ShopAppTest {
  private static final Path SHOP = Path.of("src/main/resources/apps/shop");

  /**
   * Wave -1 first (the migration Job, which must complete), then the rank table; the CRD is awaited
   * (Established) before anything after it, and its custom resources come last.
   */
  static final String[] APPLY_ORDER = {
    "namespace:shop",
    "apply:batch/Job/shop/migrate",
    "verify",
    "apply:apiextensions.k8s.io/CustomResourceDefinition//widgets.shop.example.com",
    "verify",
    "apply:rbac.authorization.k8s.io/ClusterRole//shop-metrics-reader",
    "apply:ServiceAccount/shop/shop",
    "apply:networking.k8s.io/NetworkPolicy/shop/web",
    "apply:rbac.authorization.k8s.io/Role/shop/shop-reader",
    "apply:rbac.authorization.k8s.io/RoleBinding/shop/shop-reader",
    "apply:ConfigMap/shop/shop-settings",
    "apply:Secret/shop/shop-creds",
    "apply:apps/Deployment/shop/web",
    "apply:apps/StatefulSet/shop/db",
    "apply:batch/CronJob/shop/report",
    "apply:Service/shop/db",
    "apply:Service/shop/web",
    "apply:autoscaling/HorizontalPodAutoscaler/shop/web",
    "apply:networking.k8s.io/Ingress/shop/web",
    "apply:policy/PodDisruptionBudget/shop/web",
    "apply:shop.example.com/Widget/shop/blue",
    "apply:shop.example.com/Widget/shop/green",
    "verify"
  };

  private static ReleaseFile shop() {
    return ReleaseFiles.read(SHOP, new Overrides("shop", "shop"), n -> null);
  }

  private static ReleaseSpec spec(ReleaseFile file) {
    return file.toSpec().withCreateNamespace(true);
  }

  @Test
  void theShopInstallsInWavesThenRankOrderAndARecastWritesNothing() {
    InMemoryCluster cluster = InMemoryCluster.create();
    ReleaseController releases = ReleaseController.builder(cluster, cluster).parallelism(1).build();
    ReleaseFile shop = shop();

    CastResult first = releases.cast(spec(shop), shop.payloads());

    assertThat(first.release().status().id()).isEqualTo("deployed");
    assertThat(first.release().owns()).hasSize(19);
    assertThat(cluster.writes()).containsExactly(APPLY_ORDER);

    cluster.clearOperations();
    CastResult again = releases.cast(spec(shop()), shop().payloads());

    assertThat(again.plan().changesNothing()).isTrue();
    assertThat(cluster.writes()).allMatch("verify"::equals); // health checks only, no object write
  }

  @Test
  void changingOneObjectWritesExactlyThatObject() {
    InMemoryCluster cluster = InMemoryCluster.create();
    ReleaseController releases = ReleaseController.builder(cluster, cluster).parallelism(1).build();
    ReleaseFile shop = shop();
    releases.cast(spec(shop), shop.payloads());
    ResourceRef ingress = ResourceRef.parse("networking.k8s.io/Ingress/shop/web");
    var changed =
        shop.payloads()
            .with(
                shop.payloads()
                    .get(ingress)
                    .orElseThrow()
                    .with(
                        "spec.rules",
                        java.util.List.of(java.util.Map.of("host", "shop.example.org"))));

    cluster.clearOperations();
    releases.cast(ReleaseSpec.of("shop", "shop", changed), changed);

    assertThat(cluster.writes())
        .filteredOn(w -> !w.equals("verify"))
        .containsExactly("apply:networking.k8s.io/Ingress/shop/web");
  }

  @Test
  void uninstallDeletesInReverseOrderAndKeepsTheCrd() {
    InMemoryCluster cluster = InMemoryCluster.create();
    ReleaseController releases = ReleaseController.builder(cluster, cluster).parallelism(1).build();
    ReleaseFile shop = shop();
    releases.cast(spec(shop), shop.payloads());

    cluster.clearOperations();
    UninstallResult u = releases.uninstall("shop", "shop", UninstallOptions.defaults());

    assertThat(u.deleted())
        .extracting(ResourceRef::key)
        .containsExactly(
            "shop.example.com/Widget/shop/blue",
            "shop.example.com/Widget/shop/green",
            "Service/shop/db",
            "Service/shop/web",
            "autoscaling/HorizontalPodAutoscaler/shop/web",
            "networking.k8s.io/Ingress/shop/web",
            "policy/PodDisruptionBudget/shop/web",
            "apps/Deployment/shop/web",
            "apps/StatefulSet/shop/db",
            "batch/CronJob/shop/report",
            "batch/Job/shop/migrate",
            "Secret/shop/shop-creds",
            "ConfigMap/shop/shop-settings",
            "ServiceAccount/shop/shop",
            "networking.k8s.io/NetworkPolicy/shop/web",
            "rbac.authorization.k8s.io/Role/shop/shop-reader",
            "rbac.authorization.k8s.io/RoleBinding/shop/shop-reader",
            "rbac.authorization.k8s.io/ClusterRole//shop-metrics-reader");
    assertThat(cluster.objects())
        .extracting(ResourceRef::key)
        .containsExactly("apiextensions.k8s.io/CustomResourceDefinition//widgets.shop.example.com");
    assertThat(cluster.object(cluster.objects().get(0)).orElseThrow().kind())
        .isEqualTo(Kind.CUSTOM_RESOURCE_DEFINITION);
  }
}
