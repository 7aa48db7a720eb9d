package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.build.ImageBuilder;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The container image builders a host may have, in the order {@link #detect} tries them: {@code
 * docker buildx}, {@code podman}, {@code buildah}. Each builds a component with {@code <program>
 * [buildx] build --platform <platform> -f <source>/<dockerfile> -t <image> [--load] <source>} and
 * pushes with {@code <program> push <image>}: argument lists run by a {@link CommandRunner}, never
 * a shell.
 */
public enum BuildTool {
  /** {@code docker buildx} (a Docker daemon with the buildx plugin). */
  DOCKER("docker", "docker buildx"),
  /** {@code podman}. */
  PODMAN("podman", "podman"),
  /** {@code buildah}. */
  BUILDAH("buildah", "buildah");

  private final String program;
  private final String label;

  BuildTool(String program, String label) {
    this.program = program;
    this.label = label;
  }

  /**
   * Returns the program's file name.
   *
   * @return {@code docker}, {@code podman} or {@code buildah}
   */
  public String program() {
    return program;
  }

  /**
   * Returns how messages name the builder.
   *
   * @return {@code docker buildx}, {@code podman} or {@code buildah}
   */
  public String label() {
    return label;
  }

  /**
   * Reads a builder name as a flag gives it.
   *
   * @param name {@code docker}, {@code podman} or {@code buildah} (any case)
   * @return the builder, or empty for any other name
   */
  public static Optional<BuildTool> parse(String name) {
    for (BuildTool t : values()) {
      if (t.program.equals(name.strip().toLowerCase(Locale.ROOT))) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /**
   * Finds this builder's program on a search path.
   *
   * @param searchPath a {@code PATH} value (directories separated by {@code :})
   * @return the first executable file named {@link #program()}, or empty
   */
  public Optional<Path> locate(String searchPath) {
    for (String dir : searchPath.split(":", -1)) {
      if (dir.isEmpty()) {
        continue;
      }
      try {
        Path candidate = Path.of(dir, program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate.toAbsolutePath());
        }
      } catch (InvalidPathException e) {
        // a PATH entry that is no path cannot hold the program
      }
    }
    return Optional.empty();
  }

  /**
   * Tells whether an installed program can build: {@code docker buildx version} must succeed (a
   * {@code docker} without the buildx plugin cannot); podman and buildah need no check.
   *
   * @param executable the located program
   * @param runner runs the check
   * @return true when the builder can be used
   */
  public boolean usable(Path executable, CommandRunner runner) {
    return this != DOCKER
        || runner.run(List.of(executable.toString(), "buildx", "version")).succeeded();
  }

  /**
   * Finds the first usable builder on a search path, in declaration order.
   *
   * @param searchPath a {@code PATH} value
   * @param runner runs the usability checks
   * @return the builder and its program, or empty when the host has none
   */
  public static Optional<Located> detect(String searchPath, CommandRunner runner) {
    for (BuildTool t : values()) {
      Optional<Path> exe = t.locate(searchPath);
      if (exe.isPresent() && t.usable(exe.get(), runner)) {
        return Optional.of(new Located(t, exe.get()));
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the build command template of a component (placeholders {@code {platform}}, {@code
   * {image}}, {@code {source}}, {@code {component}}).
   *
   * @param executable the program
   * @param dockerfile the Dockerfile's path under the source checkout; may hold {@code {component}}
   * @return the program and its arguments
   */
  public List<String> buildCommand(Path executable, String dockerfile) {
    List<String> argv = new ArrayList<>(List.of(executable.toString()));
    if (this == DOCKER) {
      argv.add("buildx");
    }
    argv.addAll(
        List.of(
            "build", "--platform", "{platform}", "-f", "{source}/" + dockerfile, "-t", "{image}"));
    if (this == DOCKER) {
      argv.add("--load");
    }
    argv.add("{source}");
    return argv;
  }

  /**
   * Returns an image builder running this tool for the given components.
   *
   * @param executable the program
   * @param runner runs it
   * @param components the catalog's built components
   * @param dockerfile the Dockerfile's path under the source checkout; may hold {@code {component}}
   * @return the builder ({@code push}: {@code <program> push {image}})
   */
  public ImageBuilder imageBuilder(
      Path executable, CommandRunner runner, Collection<String> components, String dockerfile) {
    requireNonNull(dockerfile, "dockerfile");
    ProcessImageBuilder.Builder b =
        ProcessImageBuilder.builder(runner).push(executable.toString(), "push", "{image}");
    List<String> argv = buildCommand(executable, dockerfile);
    for (String component : components) {
      b.recipe(component, argv.toArray(String[]::new));
    }
    return b.build();
  }

  /**
   * A builder found on the host.
   *
   * @param tool which builder
   * @param executable its program
   */
  public record Located(BuildTool tool, Path executable) {
    /** Validates the fields. */
    public Located {
      requireNonNull(tool, "tool");
      requireNonNull(executable, "executable");
    }
  }
}
