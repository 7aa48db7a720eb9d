package dev.capstan.update.build.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.ImageBuildException;
import dev.capstan.update.build.BuildRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The process-running adapters, with a recording runner (and the real one for processes). */
class ProcessAdaptersTest {
  private final List<List<String>> runs = new ArrayList<>();

  private CommandRunner runner(int exit, String output) {
    return argv -> {
      runs.add(argv);
      return new CommandResult(exit, output);
    };
  }

  @Test
  void builderRunsTheRecipeAsAnArgumentList() {
    ProcessImageBuilder builder =
        ProcessImageBuilder.builder(runner(0, ""))
            .recipe(
                "operator",
                "make",
                "-f",
                "Makefile.operator",
                "docker-build-operator-no-test",
                "IMG={image}",
                "DOCKER_PLATFORM={platform}")
            .recipe(
                "ui",
                "docker",
                "build",
                "--platform",
                "{platform}",
                "-f",
                "{source}/services/{component}/Dockerfile",
                "-t",
                "{image}",
                "{source}")
            .build();

    builder.build(new BuildRequest("ui", "reg/mcp-ui:v2", "linux/arm64", "/src/mcp runtime"));
    builder.build(new BuildRequest("operator", "reg/op:v2", "linux/amd64", "/src"));
    builder.push("reg/mcp-ui:v2");

    assertThat(runs)
        .containsExactly(
            List.of(
                "docker",
                "build",
                "--platform",
                "linux/arm64",
                "-f",
                "/src/mcp runtime/services/ui/Dockerfile",
                "-t",
                "reg/mcp-ui:v2",
                "/src/mcp runtime"),
            List.of(
                "make",
                "-f",
                "Makefile.operator",
                "docker-build-operator-no-test",
                "IMG=reg/op:v2",
                "DOCKER_PLATFORM=linux/amd64"),
            List.of("docker", "push", "reg/mcp-ui:v2"));
    assertThat(builder.canBuild("ui")).isTrue();
    assertThat(builder.canBuild("ingest")).isFalse();
  }

  @Test
  void programsOutsideTheAllowListAndUnknownPlaceholdersAreRefused() {
    assertThatThrownBy(
            () ->
                ProcessImageBuilder.builder(runner(0, ""))
                    .recipe("ui", "sh", "-c", "docker build .")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "recipe for ui must run an allow-listed program [buildah, docker, make, podman]: 'sh'");
    assertThatThrownBy(
            () ->
                ProcessImageBuilder.builder(runner(0, "")).recipe("ui", "docker", "{tag}").build())
        .hasMessage("recipe for ui uses an unknown placeholder {tag}: '{tag}'");
    assertThatThrownBy(
            () ->
                ProcessImageBuilder.builder(runner(0, ""))
                    .recipe("ui", "/opt/podman/bin/sh", "-c", "podman build .")
                    .build())
        .hasMessage(
            "recipe for ui must run an allow-listed program [buildah, docker, make, podman]:"
                + " '/opt/podman/bin/sh'");
    assertThat(
            ProcessImageBuilder.builder(runner(0, ""))
                .recipe("ui", "/opt/tools/podman", "build", "{source}")
                .push("/opt/tools/podman", "push", "{image}")
                .build()
                .canBuild("ui"))
        .isTrue();
    assertThat(
            ProcessImageBuilder.builder(runner(0, ""))
                .allow("nerdctl")
                .recipe("ui", "nerdctl", "build", "{source}")
                .push("nerdctl", "push", "{image}")
                .build()
                .canBuild("ui"))
        .isTrue();
  }

  @Test
  void shellMetacharactersInExpandedArgumentsAreRefusedBeforeRunning() {
    ProcessImageBuilder builder =
        ProcessImageBuilder.builder(runner(0, ""))
            .recipe("ui", "docker", "build", "{source}")
            .build();

    assertThatThrownBy(
            () ->
                builder.build(new BuildRequest("ui", "reg/ui:v2", "linux/amd64", "/src;rm -rf /")))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage(
            "build argument must not contain shell metacharacters (;&|$`<>\\ or line breaks):"
                + " '/src;rm -rf /'");
    assertThat(runs).isEmpty();
  }

  @Test
  void aFailedCommandReportsItsExitCodeAndOutput() {
    ProcessImageBuilder builder =
        ProcessImageBuilder.builder(runner(2, "step 3/9 failed\n"))
            .recipe("ui", "docker", "build", ".")
            .build();

    assertThatThrownBy(() -> builder.build(new BuildRequest("ui", "reg/ui:v2", "linux/amd64", ".")))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage("build of reg/ui:v2 failed (docker exit 2): step 3/9 failed");
  }

  @Test
  void registryProbeTellsNotFoundFromOtherErrors() {
    assertThat(new ProcessImageRegistry(runner(0, "{}")).exists("reg/ui:v2")).isTrue();
    assertThat(runs).containsExactly(List.of("docker", "manifest", "inspect", "reg/ui:v2"));
    assertThat(
            new ProcessImageRegistry(runner(1, "manifest unknown: manifest unknown"))
                .exists("reg/ui:v2"))
        .isFalse();
    assertThat(
            new ProcessImageRegistry(runner(1, "Error response: 404 Not Found"))
                .exists("reg/ui:v2"))
        .isFalse();
    assertThatThrownBy(
            () ->
                new ProcessImageRegistry(runner(1, "unauthorized: authentication required\n"))
                    .exists("reg/ui:v2"))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage(
            "registry probe for reg/ui:v2 failed (exit 1): unauthorized: authentication required");
    assertThat(
            ProcessImageRegistry.isNotFound("denied: requested access to the resource is denied"))
        .isFalse();
    assertThat(
            ProcessImageRegistry.isNotFound("name unknown: repository name not known to registry"))
        .isTrue();
  }

  @Test
  void gitSourceTreeReadsHeadAndStatus() {
    GitSourceTree clean =
        new GitSourceTree("/src", runner(0, "0123456789abcdef0123456789abcdef01234567\n"));
    assertThat(clean.headCommit()).isEqualTo("0123456789abcdef0123456789abcdef01234567");
    assertThat(new GitSourceTree("/src", runner(0, "")).isClean()).isTrue();
    assertThat(new GitSourceTree("/src", runner(0, " M go.mod\n")).isClean()).isFalse();
    assertThat(runs)
        .containsExactly(
            List.of("git", "-C", "/src", "rev-parse", "HEAD"),
            List.of("git", "-C", "/src", "status", "--porcelain", "--untracked-files=normal"),
            List.of("git", "-C", "/src", "status", "--porcelain", "--untracked-files=normal"));
    assertThatThrownBy(
            () ->
                new GitSourceTree("/nope", runner(128, "fatal: not a git repository")).headCommit())
        .hasMessage("git -C /nope rev-parse HEAD failed (exit 128): fatal: not a git repository");
  }

  @Test
  void processRunnerCapturesOutputAndExitCode() {
    CommandResult result =
        CommandRunner.processes().run(List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 3"));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.output()).isEqualTo("out\nerr\n");
    assertThat(result.succeeded()).isFalse();
    assertThatThrownBy(() -> CommandRunner.processes().run(List.of("/nonexistent/docker")))
        .isInstanceOf(ImageBuildException.class)
        .hasMessageStartingWith("cannot run /nonexistent/docker: ");
  }

  @Test
  void processRunnerStopsTheProcessWhenInterrupted() throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                CommandRunner.processes().run(List.of("/bin/sh", "-c", "sleep 60"));
              } catch (RuntimeException e) {
                thrown.set(e);
              }
            });
    t.start();
    Thread.sleep(300);
    t.interrupt();
    t.join(10_000);

    assertThat(t.isAlive()).isFalse();
    assertThat(thrown.get())
        .isInstanceOf(ImageBuildException.class)
        .hasMessage("interrupted while running /bin/sh");
  }
}
