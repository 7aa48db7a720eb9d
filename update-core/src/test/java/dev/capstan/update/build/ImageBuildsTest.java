package dev.capstan.update.build;

import static dev.capstan.update.McpRuntime.D1;
import static dev.capstan.update.McpRuntime.REG;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.ImageBuildException;
import dev.capstan.update.UpdateException;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.UpdatePlan;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ImageBuildsTest {
  private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
  private static final BuildSettings SETTINGS = new BuildSettings("linux/amd64", "/src", 1, 1);

  private final List<String> probes = Collections.synchronizedList(new ArrayList<>());
  private final List<UpdateEvent> events = Collections.synchronizedList(new ArrayList<>());

  @Test
  void reusesImagesInTheRegistryAndBuildsTheRest() {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.5.0").digest("ui", D1).build());
    Set<String> present = Set.of(REG + "/mcp-platform-api:v0.5.0", REG + "/mcp-ui:v0.5.0");

    List<ImageBuildAction> actions =
        ImageBuilds.plan(plan.withBuiltTargetsAsTags(), registry(present), new RecordingBuilder());

    assertThat(actions)
        .extracting(
            a -> a.component() + " " + a.image() + " " + a.action().label() + ": " + a.reason())
        .containsExactly(
            "operator "
                + REG
                + "/mcp-runtime-operator:v0.5.0 build: target tag missing from registry",
            "gateway-proxy " + REG + "/mcp-gateway:v0.5.0 build: target tag missing from registry",
            "platform-api "
                + REG
                + "/mcp-platform-api:v0.5.0 reuse: target tag already in registry",
            "runtime-api "
                + REG
                + "/mcp-runtime-api:v0.5.0 build: target tag missing from registry",
            "analytics-api "
                + REG
                + "/mcp-analytics-api:v0.5.0 build: target tag missing from registry",
            "ingest " + REG + "/mcp-ingest:v0.5.0 build: target tag missing from registry",
            "processor " + REG + "/mcp-processor:v0.5.0 build: target tag missing from registry",
            "ui " + REG + "/mcp-ui:v0.5.0 reuse: target tag already in registry");
    assertThat(probes).hasSize(8);
  }

  @Test
  void builtTargetsDropTheReleaseDigest() {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.5.0").digest("ui", D1).build());

    assertThat(row(plan, "ui").targetImage()).isEqualTo(REG + "/mcp-ui:v0.5.0@" + D1);
    assertThat(row(plan.withBuiltTargetsAsTags(), "ui").targetImage())
        .isEqualTo(REG + "/mcp-ui:v0.5.0");
  }

  @Test
  void commitTaggedImagesAlwaysBuildWithoutAProbe() {
    UpdatePlan plan =
        plan(cluster("v0.5.0"), release("v0.5.0").tag("ui", "v0.5.0-g" + COMMIT).build());

    List<ImageBuildAction> actions =
        ImageBuilds.plan(plan, registry(Set.of()), new RecordingBuilder());

    assertThat(actions)
        .containsExactly(
            ImageBuildAction.build(
                "ui",
                REG + "/mcp-ui:v0.5.0-g" + COMMIT,
                "release image requires build from its source commit"));
    assertThat(probes).isEmpty();
  }

  @Test
  void dryRunBuildsEverythingWithoutTouchingRegistryOrDocker() {
    RecordingBuilder builder = new RecordingBuilder();
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.5.0").build());

    List<ImageBuildAction> actions = ImageBuilds.plan(plan, null, builder);

    assertThat(actions)
        .hasSize(8)
        .allSatisfy(a -> assertThat(a.reason()).isEqualTo("registry not checked (dry-run)"));
    assertThat(builder.calls).isEmpty();
  }

  @Test
  void aBuiltComponentWithoutRecipeIsAnError() {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.4.0").tag("ui", "v0.5.0").build());
    ImageBuilder noUi =
        new RecordingBuilder() {
          @Override
          public boolean canBuild(String component) {
            return !component.equals("ui");
          }
        };

    assertThatThrownBy(() -> ImageBuilds.plan(plan, null, noUi))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage("no build recipe for built component ui (" + REG + "/mcp-ui:v0.5.0)");
  }

  @Test
  void runSkipsReusedImagesAndPushesBuiltOnes() {
    RecordingBuilder builder = new RecordingBuilder();

    List<String> published =
        ImageBuilds.run(
            List.of(
                ImageBuildAction.reuse("ui", "reg/ui:v2", "r"),
                ImageBuildAction.build("api", "reg/api:v2", "b")),
            builder,
            null,
            SETTINGS,
            events::add);

    assertThat(published).containsExactly("reg/api:v2");
    assertThat(builder.calls)
        .containsExactly("build api reg/api:v2 linux/amd64 /src", "push reg/api:v2");
    assertThat(events)
        .extracting(UpdateEvent::message)
        .containsExactly(
            "Reusing reg/ui:v2 (already in registry)", "Building reg/api:v2", "Pushed reg/api:v2");
  }

  @Test
  void aFailedBuildIsRetried() {
    AtomicInteger attempts = new AtomicInteger();
    RecordingBuilder flaky =
        new RecordingBuilder(
            image -> {
              if (attempts.incrementAndGet() == 1) {
                throw new UpdateException("registry hiccup");
              }
            });

    List<String> published =
        ImageBuilds.run(
            List.of(ImageBuildAction.build("api", "reg/api:v2", "b")),
            flaky,
            null,
            SETTINGS,
            events::add);

    assertThat(published).containsExactly("reg/api:v2");
    assertThat(events)
        .extracting(UpdateEvent::message)
        .containsExactly(
            "Building reg/api:v2",
            "Build of reg/api:v2 failed (attempt 1), retrying: registry hiccup",
            "Building reg/api:v2 (attempt 2)",
            "Pushed reg/api:v2");

    RecordingBuilder broken =
        new RecordingBuilder(
            image -> {
              throw new UpdateException("no space left on device");
            });
    assertThatThrownBy(
            () ->
                ImageBuilds.run(
                    List.of(ImageBuildAction.build("api", "reg/api:v2", "b")),
                    broken,
                    null,
                    new BuildSettings("linux/amd64", "/src", 1, 2),
                    e -> {}))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage(
            "image build failed: component api: no space left on device; already published: none");
    assertThat(broken.calls).hasSize(3);
  }

  @Test
  void theFirstFailureCancelsSiblingBuilds() throws Exception {
    CountDownLatch slowStarted = new CountDownLatch(1);
    AtomicBoolean slowInterrupted = new AtomicBoolean();
    RecordingBuilder builder =
        new RecordingBuilder(
            image -> {
              if (image.equals("reg/slow:v2")) {
                slowStarted.countDown();
                try {
                  Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                } catch (InterruptedException e) {
                  slowInterrupted.set(true);
                  throw new UpdateException("interrupted");
                }
              } else if (image.equals("reg/bad:v2")) {
                await(slowStarted);
                throw new UpdateException("Dockerfile not found");
              }
            });

    assertThatThrownBy(
            () ->
                ImageBuilds.run(
                    List.of(
                        ImageBuildAction.build("slow", "reg/slow:v2", "b"),
                        ImageBuildAction.build("bad", "reg/bad:v2", "b"),
                        ImageBuildAction.build("later", "reg/later:v2", "b")),
                    builder,
                    null,
                    new BuildSettings("linux/amd64", "/src", 2, 0),
                    e -> {}))
        .isInstanceOfSatisfying(
            ImageBuildException.class,
            e -> {
              assertThat(e)
                  .hasMessage(
                      "image build failed: component bad: Dockerfile not found; already published:"
                          + " none");
              assertThat(e.published()).isEmpty();
            });
    assertThat(slowInterrupted).isTrue();
    assertThat(builder.calls).doesNotContain("build later reg/later:v2 linux/amd64 /src");
  }

  @Test
  void parallelismBoundsConcurrentBuilds() {
    CyclicBarrier pairs = new CyclicBarrier(2);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    RecordingBuilder builder =
        new RecordingBuilder(
            image -> {
              peak.accumulateAndGet(running.incrementAndGet(), Math::max);
              try {
                pairs.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new UpdateException("not built in pairs: " + e);
              } finally {
                running.decrementAndGet();
              }
            });
    List<ImageBuildAction> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      four.add(ImageBuildAction.build("c" + i, "reg/c" + i + ":v2", "b"));
    }

    List<String> published =
        ImageBuilds.run(
            four, builder, null, new BuildSettings("linux/amd64", "/src", 2, 0), e -> {});

    assertThat(published).hasSize(4);
    assertThat(peak).hasValue(2);
  }

  @Test
  void releaseCommitImagesNeedACleanCheckoutOfThatCommit() {
    List<ImageBuildAction> commitTagged =
        List.of(ImageBuildAction.build("ui", "reg/ui:v1.0.0-g" + COMMIT, "c"));
    RecordingBuilder builder = new RecordingBuilder();

    assertThatThrownBy(() -> ImageBuilds.run(commitTagged, builder, null, SETTINGS, e -> {}))
        .hasMessage(
            "release images must be built from commit " + COMMIT + " but no source tree is set");
    assertThatThrownBy(
            () ->
                ImageBuilds.run(
                    commitTagged, builder, source("f".repeat(40), true), SETTINGS, e -> {}))
        .hasMessage(
            "source checkout is at "
                + "f".repeat(40)
                + " but the release images need commit "
                + COMMIT
                + "; check out that commit");
    assertThatThrownBy(
            () -> ImageBuilds.run(commitTagged, builder, source(COMMIT, false), SETTINGS, e -> {}))
        .hasMessage(
            "source checkout has uncommitted changes; release images must be built from commit "
                + COMMIT
                + " exactly (commit or stash the changes)");
    List<ImageBuildAction> twoCommits =
        List.of(
            commitTagged.get(0),
            ImageBuildAction.build("api", "reg/api:v1.0.0-g" + "e".repeat(40), "c"));
    assertThatThrownBy(
            () -> ImageBuilds.run(twoCommits, builder, source(COMMIT, true), SETTINGS, e -> {}))
        .hasMessage(
            "release images name different source commits: " + COMMIT + ", " + "e".repeat(40));
    assertThat(builder.calls).isEmpty();

    assertThat(ImageBuilds.run(commitTagged, builder, source(COMMIT, true), SETTINGS, e -> {}))
        .containsExactly("reg/ui:v1.0.0-g" + COMMIT);
  }

  private ImageRegistry registry(Set<String> present) {
    return image -> {
      probes.add(image);
      return present.contains(image);
    };
  }

  private static SourceTree source(String head, boolean clean) {
    return new SourceTree() {
      @Override
      public String headCommit() {
        return head;
      }

      @Override
      public boolean isClean() {
        return clean;
      }
    };
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new UpdateException("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UpdateException("interrupted");
    }
  }

  private static PlanRow row(UpdatePlan plan, String component) {
    return plan.rows().stream()
        .filter(r -> r.component().equals(component))
        .findFirst()
        .orElseThrow();
  }

  /** Records builds and pushes; runs an action per build. */
  static class RecordingBuilder implements ImageBuilder {
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private final Consumer<String> onBuild;

    RecordingBuilder() {
      this(image -> {});
    }

    RecordingBuilder(Consumer<String> onBuild) {
      this.onBuild = onBuild;
    }

    @Override
    public void build(BuildRequest r) {
      calls.add("build " + r.component() + " " + r.image() + " " + r.platform() + " " + r.source());
      onBuild.accept(r.image());
    }

    @Override
    public void push(String image) {
      calls.add("push " + image);
    }
  }
}
