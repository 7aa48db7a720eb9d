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

  /**
   * The words of a documented command line, as a shell splits them: single- and double-quoted words
   * kept whole, without their quotes.
   */
  public static String[] words(String line) {
    java.util.List<String> words = new java.util.ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(line);
    while (m.find()) {
      words.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
    }
    return words.toArray(String[]::new);
  }

  /**
   * One line of a documented tour: its command without the trailing comment, and the exit code a
   * trailing {@code # exit N} gives (0 without one).
   *
   * @param command the command, e.g. {@code ./capstan release get web} or {@code export A=b}
   * @param exit the exit code it must end with
   */
  public record TourLine(String command, int exit) {
    /** The words after {@code ./capstan}. */
    public String[] args() {
      if (!command.startsWith("./capstan ")) {
        throw new IllegalStateException("a tour line runs ./capstan: " + command);
      }
      return words(command.substring("./capstan ".length()));
    }
  }

  /**
   * The lines of the {@code bash} block that follows {@code marker} in {@code page}, blank ones
   * left out.
   *
   * @throws IllegalStateException when the page has no such block
   */
  public static java.util.List<TourLine> tour(String page, String marker) {
    int at = page.indexOf(marker);
    if (at < 0) {
      throw new IllegalStateException("the page has no " + marker + " block");
    }
    int start = page.indexOf("```bash\n", at) + "```bash\n".length();
    String block = page.substring(start, page.indexOf("```", start));
    java.util.List<TourLine> lines = new java.util.ArrayList<>();
    java.util.regex.Pattern exit = java.util.regex.Pattern.compile("#.*\\bexit (\\d+)");
    for (String line : block.lines().toList()) {
      String command = line.replaceFirst("\\s+#.*$", "").strip();
      if (!command.isEmpty()) {
        java.util.regex.Matcher m = exit.matcher(line);
        lines.add(new TourLine(command, m.find() ? Integer.parseInt(m.group(1)) : 0));
      }
    }
    return lines;
  }
}
