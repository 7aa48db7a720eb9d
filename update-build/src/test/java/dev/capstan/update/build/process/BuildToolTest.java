package dev.capstan.update.build.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.update.build.BuildRequest;
import dev.capstan.update.build.ImageBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildToolTest {
  @TempDir Path dir;

  private Path program(String folder, String name) throws IOException {
    Path p = Files.createDirectories(dir.resolve(folder)).resolve(name);
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void detectionTakesTheFirstUsableBuilderInOrderAndDockerOnlyWithBuildx() throws IOException {
    Path docker = program("a", "docker");
    Path podman = program("b", "podman");
    program("b", "buildah");
    String path = dir.resolve("a") + ":" + dir.resolve("b");
    List<List<String>> checks = new ArrayList<>();

    Optional<BuildTool.Located> noBuildx =
        BuildTool.detect(
            path,
            argv -> {
              checks.add(argv);
              return new CommandResult(1, "docker: 'buildx' is not a docker command.");
            });
    Optional<BuildTool.Located> withBuildx =
        BuildTool.detect(path, argv -> new CommandResult(0, "github.com/docker/buildx v0.19"));

    assertThat(noBuildx).contains(new BuildTool.Located(BuildTool.PODMAN, podman));
    assertThat(checks).containsExactly(List.of(docker.toString(), "buildx", "version"));
    assertThat(withBuildx).contains(new BuildTool.Located(BuildTool.DOCKER, docker));
    assertThat(BuildTool.detect(dir.resolve("none") + "::", argv -> new CommandResult(0, "")))
        .isEmpty();
  }

  @Test
  void aFileThatIsNotExecutableIsNoBuilder() throws IOException {
    Path podman = program("c", "podman");
    Files.setPosixFilePermissions(podman, PosixFilePermissions.fromString("rw-r--r--"));

    assertThat(BuildTool.PODMAN.locate(dir.resolve("c").toString())).isEmpty();
  }

  @Test
  void buildersAreNamedByTheirProgram() {
    assertThat(BuildTool.parse(" Podman ")).contains(BuildTool.PODMAN);
    assertThat(BuildTool.parse("docker")).contains(BuildTool.DOCKER);
    assertThat(BuildTool.parse("kaniko")).isEmpty();
    assertThat(BuildTool.DOCKER.label()).isEqualTo("docker buildx");
  }

  @Test
  void eachBuilderBuildsWithAnArgumentListAndPushesWhatItBuilt() {
    List<List<String>> calls = new ArrayList<>();
    CommandRunner runner =
        argv -> {
          calls.add(argv);
          return new CommandResult(0, "");
        };
    for (BuildTool tool : BuildTool.values()) {
      ImageBuilder builder =
          tool.imageBuilder(
              Path.of("/opt/bin/" + tool.program()),
              runner,
              List.of("web"),
              "services/{component}/Dockerfile");
      assertThat(builder.canBuild("web")).isTrue();
      assertThat(builder.canBuild("db")).isFalse();
      builder.build(new BuildRequest("web", "reg:5000/web:v2", "linux/arm64", "/src"));
      builder.push("reg:5000/web:v2");
    }

    assertThat(calls)
        .containsExactly(
            List.of(
                "/opt/bin/docker",
                "buildx",
                "build",
                "--platform",
                "linux/arm64",
                "-f",
                "/src/services/web/Dockerfile",
                "-t",
                "reg:5000/web:v2",
                "--load",
                "/src"),
            List.of("/opt/bin/docker", "push", "reg:5000/web:v2"),
            List.of(
                "/opt/bin/podman",
                "build",
                "--platform",
                "linux/arm64",
                "-f",
                "/src/services/web/Dockerfile",
                "-t",
                "reg:5000/web:v2",
                "/src"),
            List.of("/opt/bin/podman", "push", "reg:5000/web:v2"),
            List.of(
                "/opt/bin/buildah",
                "build",
                "--platform",
                "linux/arm64",
                "-f",
                "/src/services/web/Dockerfile",
                "-t",
                "reg:5000/web:v2",
                "/src"),
            List.of("/opt/bin/buildah", "push", "reg:5000/web:v2"));
  }
}
