package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One in-process run of the CLI on byte streams, as the tests drive it: its exit code and what it
 * printed on standard output and standard error.
 *
 * @param code the exit code
 * @param out standard output
 * @param err standard error
 */
public record CliRun(int code, String out, String err) {
  /**
   * The line every command that writes prints first on the Kubernetes cluster of {@code kubeconfig}
   * (its current context), with its newline.
   */
  public static String workingOn(Path kubeconfig) {
    dev.capstan.k8s.KubeClients named = dev.capstan.k8s.KubeClients.fromKubeconfig(kubeconfig);
    return "capstan: working on the Kubernetes context "
        + named.context()
        + " ("
        + named.server()
        + ")\n";
  }

  /**
   * Runs {@code args} in this JVM, as {@code ./capstan} would in one of its own.
   *
   * @param terminal who answers questions ({@link Terminal#none()}: nobody)
   * @param env the environment
   * @param workDir what relative paths resolve against
   */
  public static CliRun of(
      Terminal terminal, Function<String, @Nullable String> env, Path workDir, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new Cli(
                new PrintStream(out, true, UTF_8),
                new PrintStream(err, true, UTF_8),
                terminal,
                env,
                workDir)
            .run(args);
    return new CliRun(code, out.toString(UTF_8), err.toString(UTF_8));
  }
}
