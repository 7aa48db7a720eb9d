package dev.capstan.cli.demo;

import static dev.capstan.test.CapstanAssertions.assertThat;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.test.CapstanTest;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadStatus;
import org.junit.jupiter.api.Test;

/** The platform demo's update on the test kit's in-memory platform: what it patched, in order. */
@CapstanTest
class DemoPlatformUpdateTest {
  private static final Catalog CATALOG = DemoPlatform.catalog();

  private static UpdatePlan plan(InMemoryPlatformCluster platform) {
    PlatformRelease release =
        PlatformReleases.parse(
            PlatformUpdateDemo.RELEASE.getBytes(UTF_8), "platform-manifest.yaml", CATALOG);
    return UpdatePlanner.plan(
        platform.inventory(UpdatePlanner.query(CATALOG, release)),
        release,
        CATALOG,
        Selection.defaults());
  }

  private static UpdateResult apply(InMemoryPlatformCluster platform) {
    ManualClock clock = ManualClock.create();
    return UpdateApplier.apply(
        platform,
        plan(platform),
        ApplyOptions.defaults().withClock(clock).withSleeper(Sleeper.manual(clock)));
  }

  @Test
  void theUpdatePatchesEachChangedWorkloadOnceInCatalogOrder(InMemoryPlatformCluster platform) {
    DemoPlatform.install(platform, CATALOG, "v0.4.0");

    UpdateResult result = apply(platform);

    assertThat(result.failed()).isFalse();
    assertThat(platform)
        .patchedExactly(
            "mcp-runtime/mcp-runtime-operator-controller-manager",
            "mcp-platform/mcp-platform-api",
            "mcp-platform/mcp-runtime-api",
            "mcp-platform/mcp-ui")
        .neverTouched("mcp-platform/mcp-analytics-api");
  }

  @Test
  void aWorkloadThatNeverGetsReadyRollsTheTouchedOnesBackNewestFirst(
      InMemoryPlatformCluster platform) {
    DemoPlatform.install(platform, CATALOG, "v0.4.0")
        .neverReady(DemoPlatform.REGISTRY + "/mcp-runtime-api:v0.5.0");

    UpdateResult result = apply(platform);

    assertThat(result.withStatus(WorkloadStatus.ROLLED_BACK)).hasSize(3);
    assertThat(platform)
        .patchedExactly(
            "mcp-runtime/mcp-runtime-operator-controller-manager",
            "mcp-platform/mcp-platform-api",
            "mcp-platform/mcp-runtime-api",
            "mcp-platform/mcp-runtime-api",
            "mcp-platform/mcp-platform-api",
            "mcp-runtime/mcp-runtime-operator-controller-manager")
        .neverTouched("mcp-platform/mcp-ui");
  }
}
