package dev.capstan.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The commands about the command line itself: {@code help}, {@code completion}, {@code version}.
 */
final class InfoCommands {
  private InfoCommands() {}

  /** {@code capstan help [COMMAND...]}: the usage of any command of the tree. */
  @Command(
      name = "help",
      description = "Show the usage of a command, e.g. 'capstan help release cast'.")
  static final class Help implements Callable<Integer> {
    @Spec @Nullable CommandSpec spec;

    @Parameters(
        arity = "0..*",
        paramLabel = "COMMAND",
        description = "The command and its subcommands, as typed after 'capstan'.")
    List<String> names = new ArrayList<>();

    @Override
    public Integer call() {
      CommandSpec self = requireSpec(spec);
      CommandSpec parent = self.parent();
      CommandLine current = parent == null ? self.commandLine() : parent.commandLine();
      for (String name : names) {
        Map<String, CommandLine> subcommands = current.getSubcommands();
        CommandLine next = subcommands.get(name);
        if (next == null) {
          throw new CommandLine.ParameterException(
              self.commandLine(),
              "'"
                  + current.getCommandSpec().qualifiedName()
                  + "' has no command '"
                  + dev.capstan.common.Escapes.escape(name)
                  + "'; its commands are "
                  + String.join(", ", subcommands.keySet()));
        }
        current = next;
      }
      current.usage(self.commandLine().getOut());
      return ExitCode.OK;
    }
  }

  /** {@code capstan completion bash|zsh|fish}: a completion script ({@link CompletionScripts}). */
  @Command(
      name = "completion",
      description = {
        "Print a shell completion script: commands, options, their values, and release names,"
            + " namespaces and contexts from the cluster.",
        "bash: source <(capstan completion bash); zsh: source <(capstan completion zsh);"
            + " fish: capstan completion fish | source"
      })
  static final class Completion implements Callable<Integer> {
    /** The shells the script is for. */
    enum Shell {
      bash,
      zsh,
      fish
    }

    @Spec @Nullable CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash, zsh or fish.")
    Shell shell = Shell.bash;

    @Override
    public Integer call() {
      CommandSpec self = requireSpec(spec);
      // One script for bash and zsh: under zsh it loads bashcompinit itself, then registers the
      // same completion function.
      String script = shell == Shell.fish ? CompletionScripts.fish() : CompletionScripts.bash();
      self.commandLine().getOut().print(script);
      self.commandLine().getOut().flush();
      return ExitCode.OK;
    }
  }

  /** {@code capstan version}: the version and commit the jar was built from. */
  @Command(name = "version", description = "Print the version and commit this build is from.")
  static final class Version implements Callable<Integer> {
    @Spec @Nullable CommandSpec spec;

    @Override
    public Integer call() {
      CommandSpec self = requireSpec(spec);
      for (String line : BuildInfo.current().lines()) {
        self.commandLine().getOut().println(line);
      }
      self.commandLine().getOut().flush();
      return ExitCode.OK;
    }
  }

  private static CommandSpec requireSpec(@Nullable CommandSpec spec) {
    if (spec == null) {
      throw new IllegalStateException("picocli did not inject the command spec");
    }
    return spec;
  }
}
