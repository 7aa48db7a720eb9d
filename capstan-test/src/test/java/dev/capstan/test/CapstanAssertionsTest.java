package dev.capstan.test;

import static dev.capstan.test.CapstanAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@CapstanTest
class CapstanAssertionsTest {
  private static final Map<String, Object> CRD =
      Map.of("apiVersion", "apiextensions.k8s.io/v1", "spec", Map.of("group", "acme.dev"));

  private static ConfigMapSpec config(String name) {
    return ConfigMapSpec.of("default", name, Map.of("k", name));
  }

  private static void cast(ReleaseController releases, Payloads payloads) {
    releases.cast(ReleaseSpec.of("default", "app", payloads), payloads);
  }

  @Test
  void aCastThenAPruningCast(ReleaseController releases, InMemoryCluster cluster) {
    VolumeSpec data =
        VolumeSpec.of("default", "data", "1Gi").withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN);
    cast(releases, Payloads.of(config("a"), config("b"), data));
    cluster.clearOperations();

    assertThat(cluster).wroteNothing();
    cast(releases, Payloads.of(config("b"), config("c")));

    assertThat(cluster)
        .appliedExactly("ConfigMap/default/c")
        .appliedInOrder("ConfigMap/default/c")
        .prunedExactly("ConfigMap/default/a")
        .retainedExactly("PersistentVolumeClaim/default/data")
        .prunedLast()
        .neverTouched("ConfigMap/default/b")
        .neverTouched(ResourceRef.of(Kind.CONFIG_MAP, "default", "b"));
    assertThat(cluster)
        .writesList()
        .containsExactly(
            "apply:ConfigMap/default/c",
            "verify",
            "delete:ConfigMap/default/a",
            "unstamp:PersistentVolumeClaim/default/data");
  }

  @Test
  void eachAssertionFailsNamingWhatItExpectedAndShowingTheWrites(
      ReleaseController releases, InMemoryCluster cluster) {
    cast(releases, Payloads.of(config("a"), config("b")));

    assertThatThrownBy(() -> assertThat(cluster).wroteNothing())
        .isInstanceOf(AssertionError.class)
        .hasMessage(
            """

            Expected the in-memory cluster to have written nothing
            but its writes were:
              apply:ConfigMap/default/a
              apply:ConfigMap/default/b
              verify""");
    assertThatThrownBy(() -> assertThat(cluster).appliedExactly("ConfigMap/default/a"))
        .hasMessageContaining(
            "applied exactly, in this order:%n  ConfigMap/default/a%n".formatted());
    assertThatThrownBy(
            () -> assertThat(cluster).appliedInOrder("ConfigMap/default/b", "ConfigMap/default/a"))
        .hasMessageContaining("applied, in this order:");
    assertThat(cluster).appliedInOrder("ConfigMap/default/a", "ConfigMap/default/b");
    assertThatThrownBy(() -> assertThat(cluster).prunedLast())
        .hasMessageContaining("pruned something, after every apply");
    assertThatThrownBy(() -> assertThat(cluster).neverTouched("ConfigMap/default/b"))
        .hasMessageContaining("never touched ConfigMap/default/b");
    assertThatThrownBy(() -> assertThat(cluster).prunedExactly("ConfigMap/default/a"))
        .hasMessageContaining("pruned exactly");
  }

  @Test
  void aRemovalBeforeAnApplyIsNotPrunedLast(InMemoryCluster cluster, ReleaseController releases) {
    cast(releases, Payloads.of(config("a")));
    cluster.clearOperations();
    releases.uninstall("default", "app", UninstallOptions.defaults());
    cast(releases, Payloads.of(config("z")));

    assertThat(cluster).prunedExactly("ConfigMap/default/a").appliedExactly("ConfigMap/default/z");
    assertThatThrownBy(() -> assertThat(cluster).prunedLast())
        .hasMessageContaining("pruned something, after every apply");
  }

  @Test
  void aFencedWriteCountsAsTouched(InMemoryCluster cluster) {
    ReleaseController racing =
        ReleaseController.builder(cluster, cluster)
            .listener(
                e -> {
                  if (e instanceof dev.capstan.release.event.ReleaseEvent.Started) {
                    cluster.put(config("a"));
                  }
                })
            .build();
    Payloads p = Payloads.of(config("a"));
    try {
      racing.cast(ReleaseSpec.of("default", "app", p), p);
    } catch (RuntimeException expected) {
      // fenced: ConfigMap/default/a appeared since the plan
    }

    assertThat(cluster).wroteNothing();
    assertThatThrownBy(() -> assertThat(cluster).neverTouched("ConfigMap/default/a"))
        .hasMessageContaining("never touched ConfigMap/default/a");
  }

  @Test
  void platformWrites(InMemoryPlatformCluster platform) {
    Workload api = Workload.of("acme", "api");
    Workload ui = Workload.of("acme", "ui");
    platform.putDeployment(DeploymentState.of(api, ContainerState.of("api", "reg/api:1")));
    platform.putDeployment(DeploymentState.of(ui, ContainerState.of("ui", "reg/ui:1")));

    assertThat(platform).wroteNothing();
    platform.applyCrd("widgets.acme.dev", CRD);
    platform.patch(patch(api, "api", "reg/api:2"));
    platform.patch(patch(api, "api", "reg/api:1"));

    assertThat(platform)
        .appliedCrdsExactly("widgets.acme.dev")
        .appliedCrdsFirst()
        .patchedExactly("acme/api", "acme/api")
        .neverTouched("acme/ui");
    assertThatThrownBy(() -> assertThat(platform).neverTouched("acme/api"))
        .hasMessageContaining("never touched acme/api");
    assertThatThrownBy(() -> assertThat(platform).patchedExactly("acme/api"))
        .hasMessage(
            """

            Expected the in-memory platform to have patched exactly, in this order:
              acme/api
            but its writes were:
              apply crd widgets.acme.dev
              patch deployment acme/api
              patch deployment acme/api""");
    assertThat(platform).writesList().hasSize(3);
  }

  @Test
  void aCrdAfterAPatchIsNotCrdsFirst(InMemoryPlatformCluster platform) {
    Workload api = Workload.of("acme", "api");
    platform.putDeployment(DeploymentState.of(api, ContainerState.of("api", "reg/api:1")));
    platform.patch(patch(api, "api", "reg/api:2"));
    platform.applyCrd("widgets.acme.dev", CRD);

    assertThatThrownBy(() -> assertThat(platform).appliedCrdsFirst())
        .hasMessageContaining("applied CRDs, all before the first patch");
  }

  private static DeploymentPatch patch(Workload w, String container, String image) {
    return new DeploymentPatch(
        w, List.of(new ContainerPatch.SetImage(container, image)), Map.of(), Map.of());
  }
}
