package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.ImageBuildException;
import dev.capstan.update.build.SourceTree;
import java.util.List;

/**
 * A git checkout, read with {@code git -C <path> rev-parse HEAD} and {@code git -C <path> status
 * --porcelain --untracked-files=normal}.
 */
public final class GitSourceTree implements SourceTree {
  private final String path;
  private final CommandRunner runner;

  /**
   * Creates the source tree.
   *
   * @param path the checkout's directory
   * @param runner runs {@code git}
   */
  public GitSourceTree(String path, CommandRunner runner) {
    this.path = requireNonNull(path, "path");
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String headCommit() {
    return git("rev-parse", "HEAD").strip();
  }

  @Override
  public boolean isClean() {
    return git("status", "--porcelain", "--untracked-files=normal").isBlank();
  }

  private String git(String... args) {
    List<String> argv = new java.util.ArrayList<>(List.of("git", "-C", path));
    argv.addAll(List.of(args));
    CommandResult result = runner.run(argv);
    if (!result.succeeded()) {
      throw new ImageBuildException(
          String.join(" ", argv)
              + " failed (exit "
              + result.exitCode()
              + "): "
              + result.output().strip());
    }
    return result.output();
  }
}
