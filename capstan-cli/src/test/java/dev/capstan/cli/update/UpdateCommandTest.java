package dev.capstan.cli.update;

import static dev.capstan.update.McpRuntime.catalog;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.update.ConfirmationMissingException;
import dev.capstan.update.ImageBuildException;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.TargetMismatchException;
import dev.capstan.update.TargetRequiredException;
import dev.capstan.update.UpdateAbortedException;
import dev.capstan.update.UpdateException;
import dev.capstan.update.apply.RolloutFailedException;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.build.BuildRequest;
import dev.capstan.update.build.ImageBuilder;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.UpdateBlockedException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The update command's flow, from its options to its outcome. */
class UpdateCommandTest {
  private static final String MANIFEST = "release/platform-manifest.json";
  private static final String RELEASES =
      "https://github.com/mcp-runtime/mcp-runtime/releases/download/";

  private final Map<String, byte[]> documents = new HashMap<>();
  private final List<String> loaded = new ArrayList<>();
  private final List<String> prompts = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final ManualClock clock = ManualClock.create();
  private InMemoryPlatformCluster cluster = cluster("v0.4.0");

  private void publish(String location, PlatformRelease release) {
    documents.put(location, PlatformReleases.toJson(release).getBytes(StandardCharsets.UTF_8));
  }

  private ManifestLoader loader() {
    return location -> {
      loaded.add(location);
      byte[] doc = documents.get(location);
      if (doc == null) {
        throw new InvalidManifestException(location, List.of("cannot read: no such file"));
      }
      return doc;
    };
  }

  private Confirmer replying(String reply) {
    return new Confirmer() {
      @Override
      public boolean isInteractive() {
        return true;
      }

      @Override
      public String ask(String prompt) {
        prompts.add(prompt);
        return reply;
      }
    };
  }

  private UpdateCommand.Builder command(Confirmer confirmer) {
    return UpdateCommand.builder(catalog(), cluster)
        .manifestLoader(loader())
        .confirmer(confirmer)
        .time(clock, Sleeper.manual(clock), Duration.ofSeconds(2));
  }

  /** An image builder that runs an action per build and records pushes in {@code calls}. */
  private ImageBuilder building(Consumer<BuildRequest> onBuild) {
    return new ImageBuilder() {
      @Override
      public void build(BuildRequest request) {
        onBuild.accept(request);
      }

      @Override
      public void push(String image) {
        calls.add("push " + image);
      }
    };
  }

  private static UpdateOptions target() {
    return UpdateOptions.defaults().withTo("v0.5.0").withReleaseManifest(MANIFEST);
  }

  private String output() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void optionDefaultsMirrorTheSeed() {
    UpdateOptions d = UpdateOptions.defaults();

    assertThat(d.timeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(d.rollbackOnFailure()).isTrue();
    assertThat(d.output()).isEqualTo("text");
    assertThat(d.buildParallelism()).isEqualTo(1);
    assertThat(d.source()).isEqualTo(".");
    assertThat(d.imagePlatform()).isEmpty();
    assertThat(d.dryRun() || d.yes() || d.build() || d.allowDowngrade()).isFalse();
  }

  @Test
  void anExplicitTargetIsRequired() {
    UpdateCommand command = command(replying("yes")).build();

    assertThatThrownBy(() -> command.run(UpdateOptions.defaults(), out))
        .isInstanceOf(TargetRequiredException.class)
        .hasMessage(
            "update target required: pass --to <version> or --release-manifest <file>; update"
                + " never picks a release implicitly");
    assertThatThrownBy(() -> command.run(UpdateOptions.defaults().withTo("latest"), out))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage(
            "invalid update options: --to must be semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]"
                + " with an optional leading v: 'latest'");
    assertThatThrownBy(
            () ->
                command.run(
                    target()
                        .withOutput("yaml")
                        .withTimeout(Duration.ZERO)
                        .withBuild(true)
                        .withBuildParallelism(0),
                    out))
        .isInstanceOfSatisfying(
            InvalidOptionsException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "--output must be text or json: 'yaml'",
                        "--timeout must be positive: '0s'",
                        "--build-parallelism must be at least 1: '0'"));
    assertThat(loaded).isEmpty();

    publish(MANIFEST, release("v0.5.0").build());
    assertThatThrownBy(() -> command.run(target().withTo("v0.6.0"), out))
        .isInstanceOf(TargetMismatchException.class)
        .hasMessage(
            "--to v0.6.0 does not match release manifest release/platform-manifest.json version"
                + " v0.5.0; refusing to change the target silently");
    assertThat(cluster.writes()).isEmpty();
    assertThat(prompts).isEmpty();
  }

  @Test
  void toAloneReadsThePublishedManifest() {
    publish(RELEASES + "v0.5.0/platform-manifest.json", release("v0.5.0").build());

    UpdateOutcome outcome =
        command(replying("yes"))
            .build()
            .run(UpdateOptions.defaults().withTo("v0.5.0").withDryRun(true), out);

    assertThat(loaded).containsExactly(RELEASES + "v0.5.0/platform-manifest.json");
    assertThat(outcome.plan().manifestSource())
        .isEqualTo(RELEASES + "v0.5.0/platform-manifest.json");
  }

  @Test
  void dryRunPrintsThePlanAndChangesNothing() {
    publish(MANIFEST, release("v0.5.0").build());

    UpdateOutcome outcome = command(replying("yes")).build().run(target().withDryRun(true), out);

    assertThat(outcome.dryRun()).isTrue();
    assertThat(outcome.result()).isNull();
    assertThat(output())
        .startsWith(
            """
            Kube context: in-memory
            API server:   memory://
            Cluster ID:   in-memory
            Manifest:     release/platform-manifest.json
            Version:      v0.4.0 -> v0.5.0
            """)
        .endsWith(
            "\nDry run (plan only; no CRD apply, builds, or rollouts were attempted): 8"
                + " component(s) would be updated.\n")
        .contains(
            "\nRecovery commands, should this update need undoing by hand:\n"
                + "  # mcp-runtime/mcp-runtime-operator-controller-manager\n"
                + "  kubectl -n mcp-runtime rollout undo"
                + " deployment/mcp-runtime-operator-controller-manager\n"
                + "  kubectl -n mcp-runtime set image"
                + " deployment/mcp-runtime-operator-controller-manager manager=");
    assertThat(UpdateApplier.recoveryCommands(outcome.plan())).hasSize(7);
    assertThat(prompts).isEmpty();
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void onlyTheExactReplyYesApplies() {
    publish(MANIFEST, release("v0.5.0").build());

    for (String reply : List.of("no", "YES", "y", "", "yes please")) {
      assertThatThrownBy(() -> command(replying(reply)).build().run(target(), out))
          .as("reply %s", reply)
          .isInstanceOf(UpdateAbortedException.class)
          .hasMessage("update aborted; no changes were made");
    }
    assertThat(cluster.writes()).isEmpty();
    assertThat(prompts.get(0))
        .isEqualTo(
            """

            Workloads rolled out one at a time: \
            mcp-runtime/mcp-runtime-operator-controller-manager, mcp-platform/mcp-platform-api, \
            mcp-platform/mcp-runtime-api, mcp-observability/mcp-analytics-api, \
            mcp-observability/mcp-ingest, mcp-observability/mcp-processor, mcp-platform/mcp-ui
            Note: gateway-proxy change: operator re-renders MCPServer gateway sidecars; tenant MCP \
            server pods will restart
            Apply this update to context "in-memory" (cluster in-memory)? Type 'yes' to continue: \
            """);

    UpdateOutcome outcome = command(replying(" yes\n")).build().run(target(), out);
    assertThat(outcome.result()).isNotNull();
    assertThat(cluster.patches()).hasSize(7);
  }

  @Test
  void withoutATerminalOnlyYesProceeds() {
    publish(MANIFEST, release("v0.5.0").build());

    assertThatThrownBy(() -> command(Confirmer.nonInteractive()).build().run(target(), out))
        .isInstanceOf(ConfirmationMissingException.class)
        .hasMessage(
            "confirmation required but stdin is not a terminal; review the plan (--dry-run) and"
                + " pass --yes to apply it");
    assertThat(cluster.writes()).isEmpty();

    command(Confirmer.nonInteractive()).build().run(target().withYes(true).withOnly("ui"), out);

    assertThat(cluster.writes()).containsExactly("patch deployment mcp-platform/mcp-ui");
  }

  @Test
  void blockedPlansFailEvenInDryRunAndStillPrintTheJsonPlan() throws IOException {
    cluster = cluster("v0.6.0");
    publish(MANIFEST, release("v0.5.0").build());

    assertThatThrownBy(
            () ->
                command(replying("yes"))
                    .build()
                    .run(target().withDryRun(true).withOutput("json"), out))
        .isInstanceOf(UpdateBlockedException.class)
        .hasMessage(
            "update blocked for operator, gateway-proxy, platform-api, runtime-api, analytics-api,"
                + " ingest, processor, ui; see plan reasons");
    JsonNode json = new ObjectMapper().readTree(output());
    assertThat(json.get("dryRun").asBoolean()).isTrue();
    assertThat(json.has("result")).isFalse();
    assertThat(json.get("plan").get("components").get(10).get("reason").asText())
        .isEqualTo("downgrade v0.6.0 -> v0.5.0; pass --allow-downgrade to permit");
    assertThat(cluster.writes()).isEmpty();
    assertThat(prompts).isEmpty();
  }

  @Test
  void everyListenerHearsThePlanAndTheApplyAndTheLogsTellTheOutcome() {
    publish(MANIFEST, release("v0.5.0").build());
    List<UpdateEvent> first = new ArrayList<>();
    List<UpdateEvent> second = new ArrayList<>();

    try (LogCapture logs = LogCapture.open()) {
      command(Confirmer.nonInteractive())
          .listener(first::add)
          .listener(second::add)
          .build()
          .run(target().withYes(true).withOnly("ui"), out);

      assertThat(second).isEqualTo(first);
      assertThat(first.get(0))
          .isEqualTo(new UpdateEvent.Planned("v0.5.0", "v0.4.0", 1, 0, Duration.ZERO));
      assertThat(first.get(1)).isEqualTo(new UpdateEvent.UpdateStarted("v0.5.0", 1, 0));
      assertThat(first.get(first.size() - 1))
          .isInstanceOfSatisfying(
              UpdateEvent.UpdateFinished.class,
              f -> assertThat(f.outcome()).isEqualTo(UpdateEvent.Outcome.COMPLETED));
      assertThat(logs.lines())
          .filteredOn(l -> l.level() == org.slf4j.event.Level.INFO)
          .extracting(l -> l.logger() + ": " + l.message())
          .containsExactly(
              "dev.capstan.update.apply.UpdateApplier: " + first.get(first.size() - 1).message());
      assertThat(logs.lines())
          .filteredOn(l -> l.logger().equals("dev.capstan.cli.update.UpdateCommand"))
          .extracting(LogCapture.Line::message)
          .containsExactly("Planned update to v0.5.0 in 0s: 1 component(s) to change");
    }
  }

  @Test
  void aBlockedPlanIsLoggedAtInfo() {
    cluster = cluster("v0.6.0");
    publish(MANIFEST, release("v0.5.0").build());

    try (LogCapture logs = LogCapture.open()) {
      assertThatThrownBy(() -> command(replying("yes")).build().run(target().withDryRun(true), out))
          .isInstanceOf(UpdateBlockedException.class);

      assertThat(logs.messages(org.slf4j.event.Level.INFO))
          .singleElement()
          .asString()
          .startsWith("Planned update to v0.5.0 in 0s: 0 component(s) to change, ")
          .endsWith(" blocked");
    }
  }

  @Test
  void upToDatePlatformSaysSo() {
    publish(MANIFEST, release("v0.4.0").build());

    UpdateOutcome outcome = command(replying("yes")).build().run(target().withTo("v0.4.0"), out);

    assertThat(outcome.result()).isNull();
    assertThat(output()).endsWith("\nPlatform is up to date; nothing to roll out.\n");
    assertThat(prompts).isEmpty();
  }

  @Test
  void rolloutFailurePrintsRecoveryCommandsAndThrows() {
    cluster.neverReady(image("runtime-api", "v0.5.0"));
    publish(MANIFEST, release("v0.5.0").build());

    assertThatThrownBy(
            () -> command(replying("yes")).build().run(target().withRollbackOnFailure(false), out))
        .isInstanceOfSatisfying(
            RolloutFailedException.class,
            e -> assertThat(e.result().workloads().get(2).status().label()).isEqualTo("failed"))
        .hasMessage("platform update failed; see per-workload status and recovery commands above");
    assertThat(output())
        .contains("\nUpdate result:\n")
        .contains("Manual recovery commands (restore the images recorded before this update):")
        .contains(
            "  kubectl -n mcp-platform set image deployment/mcp-runtime-api"
                + " runtime-api=registry.registry.svc.cluster.local:5000/mcp-runtime-api:v0.4.0\n");
  }

  @Test
  void invalidManifestIsRejectedWithEveryProblemAndNothingIsApplied() {
    documents.put(
        MANIFEST,
        """
        apiVersion: mcpruntime.org/v1alpha1
        kind: PlatformRelease
        version: v0.5.0
        components:
          - {name: ui, repository: "mcp-ui:v0.5.0", tag: v0.5.0}
          - {name: traefik, repository: traefik, tag: v3}
          - {name: operator, repository: mcp-runtime-operator, tag: "v0.5 0"}
        """
            .getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> command(replying("yes")).build().run(target().withYes(true), out))
        .isInstanceOfSatisfying(
            InvalidManifestException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "components[0].repository must be an image repository without tag or"
                            + " digest: 'mcp-ui:v0.5.0'",
                        "components[2].tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}: 'v0.5 0'",
                        "components[1].name is not a component of the catalog (known:"
                            + " cert-manager-controller, cert-manager-webhook,"
                            + " cert-manager-cainjector, operator, gateway-proxy, platform-api,"
                            + " runtime-api, analytics-api, ingest, processor, ui, doctor-smoke,"
                            + " mcp-auth): 'traefik'"));
    assertThat(cluster.writes()).isEmpty();
    assertThat(output()).isEmpty();
  }

  @Test
  void crdsComeFromTheCrdsOptionThenFromTheRelease() {
    PlatformRelease base = release("v0.5.0").build();
    PlatformRelease crdChange =
        new PlatformRelease(
            base.apiVersion(), base.kind(), "v0.5.0", "", true, "", base.components());
    publish(MANIFEST, crdChange);
    documents.put(
        "crds.yaml", crd("mcpservers", "MCPServer", "v1").getBytes(StandardCharsets.UTF_8));

    UpdateOutcome outcome =
        command(replying("yes")).build().run(target().withCrds("crds.yaml").withYes(true), out);

    assertThat(loaded).containsExactly(MANIFEST, "crds.yaml");
    assertThat(outcome.result()).isNotNull();
    assertThat(cluster.writes().get(0)).isEqualTo("apply crd mcpservers.mcpruntime.org");

    loaded.clear();
    documents.put(
        RELEASES + "v0.5.0/platform-crds.yaml",
        crd("grants", "Grant", "v1").getBytes(StandardCharsets.UTF_8));
    UpdateOutcome fromRelease =
        command(replying("yes")).build().run(target().withDryRun(true), out);
    assertThat(loaded).containsExactly(MANIFEST, RELEASES + "v0.5.0/platform-crds.yaml");
    assertThat(fromRelease.plan().crdNames()).containsExactly("grants.mcpruntime.org");
  }

  @Test
  void buildsRunAfterConfirmationAndBeforeTheApply() {
    publish(MANIFEST, release("v0.5.0").build());
    List<String> platforms = new ArrayList<>();
    UpdateCommand command =
        command(replying("yes"))
            .environment(Environment.of(Map.of("MCP_IMAGE_PLATFORM", "linux/arm64")))
            .imagePlatformEnv("MCP_IMAGE_PLATFORM")
            .imageRegistry(image -> image.endsWith("/mcp-ui:v0.5.0"))
            .imageBuilder(
                building(
                    request -> {
                      calls.add(
                          "build " + request.component() + " patches=" + cluster.patches().size());
                      platforms.add(request.platform());
                    }))
            .build();

    UpdateOutcome outcome = command.run(target().withBuild(true), out);

    assertThat(outcome.plan().imageBuilds()).hasSize(8);
    assertThat(calls)
        .filteredOn(c -> c.startsWith("build"))
        .hasSize(7)
        .allMatch(c -> c.endsWith("patches=0"));
    assertThat(Set.copyOf(platforms)).containsExactly("linux/arm64");
    assertThat(prompts.get(0)).contains("Image builds: 7 to build, 1 to reuse\n");
    assertThat(cluster.patches()).hasSize(7);

    calls.clear();
    platforms.clear();
    cluster = cluster("v0.4.0");
    command(replying("yes"))
        .imageRegistry(image -> false)
        .imageBuilder(
            building(
                request -> {
                  platforms.add(request.platform());
                }))
        .build()
        .run(target().withBuild(true).withOnly("ui").withImagePlatform("linux/s390x"), out);
    assertThat(platforms).containsExactly("linux/s390x");
  }

  @Test
  void aFailedBuildAppliesNothing() {
    publish(MANIFEST, release("v0.5.0").build());
    UpdateCommand command =
        command(replying("yes"))
            .imageRegistry(image -> false)
            .imageBuilder(
                building(
                    request -> {
                      throw new UpdateException("docker daemon not running");
                    }))
            .build();

    assertThatThrownBy(() -> command.run(target().withBuild(true).withOnly("ui"), out))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage(
            "image build failed: component ui: docker daemon not running; already published: none");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void buildDryRunProbesNothingAndBuildsNothing() {
    publish(MANIFEST, release("v0.5.0").build());
    UpdateCommand command =
        command(replying("yes"))
            .imageRegistry(
                image -> {
                  throw new AssertionError("probed " + image);
                })
            .imageBuilder(
                building(
                    request -> {
                      throw new AssertionError("built " + request.image());
                    }))
            .build();

    UpdateOutcome outcome = command.run(target().withBuild(true).withDryRun(true), out);

    assertThat(outcome.plan().imageBuilds())
        .allSatisfy(b -> assertThat(b.reason()).isEqualTo("registry not checked (dry-run)"));
    assertThat(output())
        .contains("\nImages (--build):\n")
        .endsWith("(8 image build(s), 0 reuse) would be updated.\n");
    assertThatThrownBy(() -> command(replying("yes")).build().run(target().withBuild(true), out))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage("invalid update options: --build needs an image builder; none is set");
  }

  @Test
  void jsonOutputPrintsOneDocumentWithTheResult() throws IOException {
    publish(MANIFEST, release("v0.4.0").tag("ui", "v0.4.1").build());

    command(replying("yes"))
        .build()
        .run(target().withTo("v0.4.0").withYes(true).withOutput("json"), out);

    JsonNode json = new ObjectMapper().readTree(output());
    assertThat(json.get("dryRun").asBoolean()).isFalse();
    assertThat(json.get("result").get("failed").asBoolean()).isFalse();
    assertThat(json.get("result").get("workloads").get(0).get("status").asText())
        .isEqualTo("updated");
  }

  @Test
  void fileLoaderReadsFilesAndRefusesPlainHttp(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("platform-manifest.yaml");
    Files.writeString(file, "apiVersion: mcpruntime.org/v1alpha1\n");

    assertThat(ManifestLoader.files().load(file.toString()))
        .isEqualTo("apiVersion: mcpruntime.org/v1alpha1\n".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> ManifestLoader.files().load("http://example.com/m.json"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest http://example.com/m.json: refusing to fetch release"
                + " manifest over plain http");
    assertThatThrownBy(() -> ManifestLoader.files().load("https://example.com/m.json"))
        .hasMessageEndingWith(
            "cannot fetch https URLs with this loader; download the file and pass its path");
    Path big = dir.resolve("big.json");
    Files.write(big, new byte[PlatformReleases.MAX_BYTES + 1]);
    assertThatThrownBy(() -> ManifestLoader.files().load(big.toString()))
        .hasMessageEndingWith("big.json' is 4194305 bytes; the limit is 4194304 bytes (4 MiB)");
    assertThatThrownBy(() -> ManifestLoader.files().load(dir.resolve("missing.yaml").toString()))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageEndingWith("missing.yaml: no such file: '" + dir.resolve("missing.yaml") + "'");
  }
}
