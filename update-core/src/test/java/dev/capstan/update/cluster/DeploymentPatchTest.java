package dev.capstan.update.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeploymentPatchTest {
  private static final Workload OP = Workload.of("sys", "operator");
  private static final DeploymentState LIVE =
      new DeploymentState(
          OP,
          Map.of("team", "core"),
          Map.of("note", "keep"),
          Map.of("app", "operator"),
          List.of(
              new ContainerState(
                  "manager",
                  "reg/op:v1",
                  List.of(EnvVar.of("OTHER", "keep"), EnvVar.of("SIDECAR", "reg/side:v1"))),
              ContainerState.of("proxy", "reg/proxy:v1")));
  private static final DeploymentPatch PATCH =
      new DeploymentPatch(
          OP,
          List.of(
              new ContainerPatch.SetImage("manager", "reg/op:v2"),
              new ContainerPatch.SetEnv("manager", "SIDECAR", "reg/side:v2")),
          Map.of("app.kubernetes.io/part-of", "platform"),
          Map.of("capstan.dev/platform-version", "v2"));

  @Test
  void strategicMergeBodySetsOnlyImagesEnvLabelsAndAnnotations() {
    assertThat(PATCH.strategicMergePatch())
        .isEqualTo(
            Map.of(
                "metadata",
                Map.of(
                    "labels", Map.of("app.kubernetes.io/part-of", "platform"),
                    "annotations", Map.of("capstan.dev/platform-version", "v2")),
                "spec",
                Map.of(
                    "template",
                    Map.of(
                        "spec",
                        Map.of(
                            "containers",
                            List.of(
                                Map.of(
                                    "name", "manager",
                                    "image", "reg/op:v2",
                                    "env",
                                        List.of(
                                            Map.of(
                                                "name", "SIDECAR", "value", "reg/side:v2")))))))));
  }

  @Test
  void applyingKeepsEverythingThePatchDoesNotName() {
    DeploymentState after = PATCH.applyTo(LIVE);

    assertThat(after.containers())
        .containsExactly(
            new ContainerState(
                "manager",
                "reg/op:v2",
                List.of(EnvVar.of("OTHER", "keep"), EnvVar.of("SIDECAR", "reg/side:v2"))),
            ContainerState.of("proxy", "reg/proxy:v1"));
    assertThat(after.labels())
        .containsOnly(
            Map.entry("team", "core"), Map.entry("app.kubernetes.io/part-of", "platform"));
    assertThat(after.annotations())
        .containsOnly(Map.entry("note", "keep"), Map.entry("capstan.dev/platform-version", "v2"));
    assertThat(after.selector()).isEqualTo(LIVE.selector());
  }

  @Test
  void satisfiedOnlyWhenEveryImageAndEnvValueIsCurrent() {
    assertThat(PATCH.satisfiedBy(LIVE)).isFalse();
    assertThat(PATCH.satisfiedBy(PATCH.applyTo(LIVE))).isTrue();
    DeploymentState halfway = LIVE.withContainer(LIVE.containers().get(0).withImage("reg/op:v2"));
    assertThat(PATCH.satisfiedBy(halfway)).isFalse();
  }

  @Test
  void patchingAMissingContainerIsAnError() {
    DeploymentPatch missing =
        new DeploymentPatch(
            OP, List.of(new ContainerPatch.SetImage("nope", "x:1")), Map.of(), Map.of());

    assertThatThrownBy(() -> missing.applyTo(LIVE))
        .hasMessage("deployment sys/operator has no container \"nope\"");
    assertThat(missing.satisfiedBy(LIVE)).isFalse();
  }

  @Test
  void metadataOnlyPatchHasNoSpec() {
    assertThat(new DeploymentPatch(OP, List.of(), Map.of("a", "b"), Map.of()).strategicMergePatch())
        .isEqualTo(Map.of("metadata", Map.of("labels", Map.of("a", "b"))));
  }
}
