package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Help, completion and version: the CLI explains itself on every command of its tree. */
class CommandLineHelpTest {
  @TempDir Path dir;

  private CliRun run(List<String> args) {
    return CliRun.of(Terminal.none(), name -> null, dir, args.toArray(String[]::new));
  }

  /** Every command of the tree, as the words typed after {@code capstan} ({@code []}: the root). */
  static Stream<List<String>> commands() {
    PrintStream sink = new PrintStream(java.io.OutputStream.nullOutputStream(), true, UTF_8);
    Cli cli = new Cli(sink, sink, Terminal.none(), name -> null, Path.of(""));
    CommandLine root = CommandTree.build(new CapstanCommand(cli), List.of());
    List<List<String>> paths = new ArrayList<>();
    walk(root, new ArrayList<>(), paths);
    return paths.stream();
  }

  private static void walk(CommandLine line, List<String> path, List<List<String>> paths) {
    paths.add(List.copyOf(path));
    Set<String> seen = new java.util.HashSet<>(); // an alias maps to its command's name
    for (CommandLine sub : line.getSubcommands().values()) {
      if (seen.add(sub.getCommandName())) {
        path.add(sub.getCommandName());
        walk(sub, path, paths);
        path.remove(path.size() - 1);
      }
    }
  }

  @Test
  void theTreeHasEveryCommand() {
    assertThat(commands().map(p -> String.join(" ", p)))
        .containsExactly(
            "",
            "demo",
            "release",
            "release plan",
            "release cast",
            "release get",
            "release list",
            "release history",
            "release test",
            "release rollback",
            "release uninstall",
            "release import-helm",
            "update",
            "controller",
            "controller run",
            "controller crd",
            "controller reconcile",
            "controller suspend",
            "controller resume",
            "help",
            "completion",
            "version",
            "__complete");
  }

  @Test
  void controllerRunSaysWhatEachReleaseMayTakeOfTheHeap() {
    assertThat(run(List.of("controller", "run", "--help")).out().replaceAll("\\s+", " "))
        .contains(
            "How many Releases are reconciled at once (default: 4). Each may take three quarters"
                + " of the heap over them while it is read and cast; a Release estimated to need"
                + " more is refused (TooLarge).");
  }

  @ParameterizedTest
  @MethodSource("commands")
  void helpShowsTheUsageOfEveryCommandAndExitsZero(List<String> command) {
    String name = String.join(" ", Stream.concat(Stream.of("capstan"), command.stream()).toList());

    for (String flag : List.of("--help", "-h")) {
      List<String> args = new ArrayList<>(command);
      args.add(flag);
      CliRun run = run(args);

      assertThat(run.code()).as("capstan %s %s", command, flag).isZero();
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).startsWith("Usage: " + name + " ").contains("\nExit codes:\n");
    }
    List<String> help = new ArrayList<>(List.of("help"));
    help.addAll(command);
    CliRun viaHelp = run(help);
    assertThat(viaHelp.code()).isZero();
    assertThat(viaHelp.out()).isEqualTo(run(append(command, "--help")).out());
  }

  /** A flag named in a help text: {@code --wait-for-deletion}, not {@code ---} or {@code a--b}. */
  private static final Pattern FLAG_NAMED =
      Pattern.compile("(?<![\\w-])--[a-z][a-z0-9]*(-[a-z0-9]+)*");

  @ParameterizedTest
  @MethodSource("commands")
  void everyFlagAHelpTextNamesIsAFlagOfItsCommand(List<String> command) {
    CommandLine line = commandLine(command);
    CommandLine.Model.CommandSpec spec = line.getCommandSpec();
    Set<String> flags = new java.util.HashSet<>(spec.negatedOptionsMap().keySet());
    spec.options().forEach(o -> flags.addAll(List.of(o.names())));
    Map<String, String> texts = new LinkedHashMap<>();
    texts.put("the command", String.join(" ", spec.usageMessage().description()));
    for (CommandLine.Model.OptionSpec o : spec.options()) {
      texts.put(o.longestName(), String.join(" ", o.description()));
    }
    for (CommandLine.Model.PositionalParamSpec p : spec.positionalParameters()) {
      texts.put(p.paramLabel(), String.join(" ", p.description()));
    }

    List<String> unknown = new ArrayList<>();
    texts.forEach(
        (where, text) -> {
          Matcher m = FLAG_NAMED.matcher(OTHER_TOOLS_FLAGS.matcher(text).replaceAll(""));
          while (m.find()) {
            if (!flags.contains(m.group())) {
              unknown.add(where + " names " + m.group());
            }
          }
        });
    assertThat(unknown).as("capstan %s", String.join(" ", command)).isEmpty();
  }

  /**
   * What a help text says of the flags of another tool or command: after the tool and its command
   * ({@code as helm uninstall --wait does}), in a quoted command line ({@code 'release plan
   * --out'}), after the command ({@code release rollback --secrets}, {@code cast with
   * --no-record-secret-values}, {@code rollback's --yes}).
   */
  private static final Pattern OTHER_TOOLS_FLAGS =
      Pattern.compile(
          "(helm|kubectl|kapp)( [a-z-]+)* --[a-z][a-z0-9-]*"
              + "|'(release|update|controller) [^']*'"
              + "|(release [a-z-]+|cast with|[a-z]+'s) --[a-z][a-z0-9-]*");

  /**
   * The command line of {@code command} (the words after {@code capstan}), built as a run builds
   * it.
   */
  private static CommandLine commandLine(List<String> command) {
    PrintStream sink = new PrintStream(java.io.OutputStream.nullOutputStream(), true, UTF_8);
    Cli cli = new Cli(sink, sink, Terminal.none(), name -> null, Path.of(""));
    CommandLine line = CommandTree.build(new CapstanCommand(cli), List.of());
    for (String word : command) {
      line = java.util.Objects.requireNonNull(line.getSubcommands().get(word), word);
    }
    return line;
  }

  private static List<String> append(List<String> command, String arg) {
    List<String> args = new ArrayList<>(command);
    args.add(arg);
    return args;
  }

  @Test
  void helpOfAnUnknownCommandNamesTheKnownOnes() {
    CliRun run = run(List.of("help", "release", "cats"));

    assertThat(run.code()).isEqualTo(ExitCode.INVALID);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "capstan: 'capstan release' has no command 'cats'; its commands are plan, cast, get,"
                + " status, list, ls, history, test, rollback, uninstall, delete, import-helm\n"
                + "Try 'capstan help --help'.\n");
  }

  @Test
  void helpAndTheDocsListTheSameExitCodes() throws IOException {
    String readme = Files.readString(Path.of("..", "docs", "cli.md"), UTF_8);
    Map<Integer, String> documented = new TreeMap<>();
    Matcher row = Pattern.compile("(?m)^\\| ([0-9]) \\| (.+) \\|$").matcher(readme);
    while (row.find()) {
      documented.put(Integer.parseInt(row.group(1)), row.group(2));
    }
    String usage = run(List.of("--help")).out();
    String section = usage.substring(usage.indexOf("Exit codes:\n") + "Exit codes:\n".length());
    Map<Integer, String> listed = new LinkedHashMap<>();
    Integer code = null;
    for (String line : section.lines().toList()) {
      Matcher m = Pattern.compile("^\\s+([0-9])\\s+(.*)$").matcher(line);
      if (m.matches()) {
        code = Integer.parseInt(m.group(1));
        listed.put(code, m.group(2).strip());
      } else if (code != null && !line.isBlank()) {
        listed.merge(code, line.strip(), (a, b) -> a + " " + b);
      }
    }

    assertThat(listed.keySet()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(listed).isEqualTo(documented);
  }

  @Test
  void versionPrintsTheVersionAndCommitOfTheBuild() throws Exception {
    CliRun run = run(List.of("version"));

    assertThat(run.code()).isZero();
    String[] lines = run.out().lines().toArray(String[]::new);
    assertThat(lines).hasSize(3);
    assertThat(lines[0]).matches("capstan [0-9]+\\.[0-9]+\\.[0-9]+(-SNAPSHOT)?");
    // in a git checkout the build wrote git's HEAD (surefire runs on the classes it built)
    String head = gitHead();
    if (head != null) {
      assertThat(lines[1]).matches("commit " + head + "( \\(with uncommitted changes\\))?");
    } else {
      assertThat(lines[1]).matches("commit ([0-9a-f]{40}|unknown)");
    }
    assertThat(lines[2]).startsWith("java " + System.getProperty("java.version") + " (");
    assertThat(run(List.of("--version")).out()).isEqualTo(run.out());
    assertThat(run(List.of("release", "list", "--version")).out()).isEqualTo(run.out());
  }

  @Test
  void theCommitComesFromTheBuildElseFromAnArchiveElseIsUnknown() {
    String commit = "4527cd3b1c2e9a3f0d5b6c7a8e9f0a1b2c3d4e5f";
    assertThat(BuildInfo.of("0.1.0", commit + "\n", "$Format:%H$\n"))
        .isEqualTo(new BuildInfo("0.1.0", commit, false));
    assertThat(BuildInfo.of("0.1.0", commit + "\ndirty\n", "$Format:%H$\n"))
        .isEqualTo(new BuildInfo("0.1.0", commit, true));
    // a source tarball: no .git for the build, git archive filled commit.txt in
    assertThat(BuildInfo.of("0.1.0", "", commit + "\n"))
        .isEqualTo(new BuildInfo("0.1.0", commit, false));
    assertThat(BuildInfo.of("${project.version}", "", "$Format:%H$\n"))
        .isEqualTo(new BuildInfo("unknown", "unknown", false));
  }

  /**
   * A {@code capstan} on the PATH that runs this build's CLI in a JVM, on a home without a
   * kubeconfig, and the state of an in-memory cluster holding release {@code demo/web}: what the
   * scripts ask on TAB ({@code capstan __complete ...}) is answered from it.
   */
  private Map<String, String> aCapstanOnThePathWithARelease() throws IOException {
    Path home = Files.createDirectories(dir.resolve("home"));
    Map<String, String> env = new TreeMap<>();
    env.put("HOME", home.toString());
    env.put("WEB_DB_PASSWORD", "pw");
    Files.copy(Path.of("../examples/releases/web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(Path.of("../examples/releases/web-v2.yaml"), dir.resolve("web-v2.yaml"));
    CliRun cast =
        CliRun.of(Terminal.none(), env::get, dir, "release", "cast", "-f", "web-v1.yaml", "--yes");
    assertThat(cast.code()).as(cast.err()).isZero();
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path capstan =
        Files.writeString(
            bin.resolve("capstan"),
            "#!/bin/sh\nexec '"
                + Path.of(System.getProperty("java.home"), "bin", "java")
                + "' -XX:TieredStopAtLevel=1 -Xshare:auto -cp '"
                + System.getProperty("java.class.path")
                + "' dev.capstan.cli.Main \"$@\"\n");
    assertThat(capstan.toFile().setExecutable(true)).isTrue();
    env.put("PATH", bin + java.io.File.pathSeparator + System.getenv("PATH"));
    return env;
  }

  @Test
  void theBashCompletionScriptCompletesCommandsOptionsValuesFilesAndReleaseNames()
      throws Exception {
    CliRun run = run(List.of("completion", "bash"));
    assertThat(run.code()).isZero();
    assertThat(run.err()).isEmpty();
    Path script = dir.resolve("capstan-completion.bash");
    Files.writeString(script, run.out(), UTF_8);
    Map<String, String> env = aCapstanOnThePathWithARelease();

    // an interactive shell's settings: no errexit or nounset, as a user's ~/.bashrc sources it
    String probe =
        """
        source "$1" 2>source.err || exit 1
        if [ -s source.err ]; then cat source.err >&2; exit 1; fi
        complete -p capstan
        # what bash does on TAB, done here by hand: outside a completion, compopt has no effect
        compopt() { :; }
        complete_words() {
          COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
          COMPREPLY=()
          _complete_capstan capstan "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
          printf '%s\\n' "${COMPREPLY[@]}" | sort | tr '\\n' ' '; echo
        }
        complete_words capstan re
        complete_words capstan release c
        complete_words capstan release cast --dr
        complete_words capstan release list --kube
        complete_words capstan release get -n demo ''
        complete_words capstan release history -n d
        complete_words capstan release list -o ''
        complete_words capstan release cast -f web-
        complete_words capstan completion ''
        """;
    Shell result = shell("bash", probe, script, env);

    assertThat(result.err()).isEmpty();
    assertThat(result.code()).isZero();
    String[] lines = result.out().lines().toArray(String[]::new);
    assertThat(lines[0])
        .startsWith("complete ")
        .contains("-F _complete_capstan")
        .endsWith(" capstan");
    assertThat(lines)
        .containsExactly(
            lines[0],
            "release ",
            "cast ",
            "--dry-run ",
            "--kube-context --kubeconfig ",
            "web ",
            "default demo ",
            "json name text wide yaml ",
            "web-v1.yaml web-v2.yaml ",
            "bash fish zsh ");
  }

  @Test
  void theZshScriptIsTheSameScriptAndRegistersInZsh() throws Exception {
    CliRun zsh = run(List.of("completion", "zsh"));
    assertThat(zsh.code()).isZero();
    assertThat(zsh.out()).isEqualTo(run(List.of("completion", "bash")).out());
    Path script = dir.resolve("capstan-completion.zsh");
    Files.writeString(script, zsh.out(), UTF_8);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/zsh")) || Files.isExecutable(Path.of("/bin/zsh")),
        "zsh is not installed (.ci/run installs it)");

    Shell result =
        shell("zsh", "source \"$1\" && print -r -- ${_comps[capstan]}", script, Map.of());

    assertThat(result.err()).isEmpty();
    assertThat(result.code()).isZero();
    assertThat(result.out()).startsWith("_bash_complete").contains("-F _complete_capstan");
  }

  @Test
  void theFishScriptCompletesCommandsOptionsAndReleaseNames() throws Exception {
    CliRun fish = run(List.of("completion", "fish"));
    assertThat(fish.code()).isZero();
    assertThat(fish.err()).isEmpty();
    Path script = dir.resolve("capstan.fish");
    Files.writeString(script, fish.out(), UTF_8);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/fish")) || Files.isExecutable(Path.of("/bin/fish")),
        "fish is not installed (.ci/run installs it)");
    Map<String, String> env = aCapstanOnThePathWithARelease();

    String probe =
        """
        source $argv[1]; or exit 1
        for line in 'capstan rel' 'capstan release lis' 'capstan release list --all-' \\
            'capstan release get -n demo ' 'capstan release cast -f web-v'
          echo (complete -C $line | sort | string join ' ')
        end
        """;
    Shell result = shell("fish", probe, script, env);

    assertThat(result.err()).isEmpty();
    assertThat(result.code()).isZero();
    assertThat(result.out().lines())
        .containsExactly("release", "list", "--all-namespaces", "web", "web-v1.yaml web-v2.yaml");
  }

  /** {@code git rev-parse HEAD} of this checkout, or null outside one (a source tarball). */
  private static @Nullable String gitHead() throws Exception {
    Process p;
    try {
      p = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
    } catch (IOException e) {
      return null;
    }
    String out = new String(p.getInputStream().readAllBytes(), UTF_8).strip();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue() == 0 ? out : null;
  }

  private record Shell(int code, String out, String err) {}

  private Shell shell(String shell, String script, Path arg, Map<String, String> env)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
                switch (shell) {
                  case "bash" ->
                      List.of("bash", "--norc", "--noprofile", "-c", script, "x", arg.toString());
                  case "fish" -> List.of("fish", "--no-config", "-c", script, arg.toString());
                  default -> List.of("zsh", "-f", "-c", script, "x", arg.toString());
                })
            .directory(dir.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("CAPSTAN_STATE");
    builder.environment().putAll(env);
    Process p = builder.start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    byte[] err = p.getErrorStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Shell(p.exitValue(), new String(out, UTF_8), new String(err, UTF_8));
  }
}
