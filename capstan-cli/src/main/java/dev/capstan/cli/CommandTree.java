package dev.capstan.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Builds the {@code capstan} command line with only the commands a run names. Picocli reads the
 * annotations of every command it is given before it parses anything (about a third of a {@code
 * release list}'s CPU before its first request when all 12 were built); a subcommand whose name or
 * alias is among the arguments is built with its own subcommands, the others are left out. When the
 * arguments name none of a command's subcommands (its {@code --help}, a typo), all of them are
 * built, in this order, so help, suggestions and errors read as before. {@code __complete} (what
 * the completion scripts ask) needs every command, so it is given the whole tree.
 */
final class CommandTree {
  /** Each command's subcommands, in the order its help lists them. */
  private static final Map<Class<?>, List<Class<?>>> SUBCOMMANDS =
      Map.of(
          CapstanCommand.class,
          List.of(
              CapstanCommand.Demo.class,
              ReleaseCommand.class,
              UpdateCli.class,
              ControllerCommand.class,
              InfoCommands.Help.class,
              InfoCommands.Completion.class,
              InfoCommands.Version.class,
              CompleteCommand.class),
          ControllerCommand.class,
          List.of(
              ControllerCommand.Run.class,
              ControllerCommand.Crd.class,
              ReleaseResourceVerbs.Reconcile.class,
              ReleaseResourceVerbs.Suspend.class,
              ReleaseResourceVerbs.Resume.class),
          ReleaseCommand.class,
          List.of(
              PlanCommand.class,
              CastCommand.class,
              GetCommand.class,
              ListCommand.class,
              HistoryCommand.class,
              TestCommand.class,
              RollbackCommand.class,
              UninstallCommand.class,
              ImportHelmCommand.class));

  private CommandTree() {}

  /** The command line of {@code root} with the subcommands {@code args} need. */
  static CommandLine build(CapstanCommand root, List<String> args) {
    CommandLine line = new CommandLine(root);
    boolean whole = args.contains("__complete");
    addSubcommands(line, CapstanCommand.class, whole ? List.of() : args);
    return line;
  }

  private static void addSubcommands(CommandLine line, Class<?> type, List<String> args) {
    List<Class<?>> all = SUBCOMMANDS.getOrDefault(type, List.of());
    List<Class<?>> named = new ArrayList<>();
    for (Class<?> sub : all) {
      if (names(sub).stream().anyMatch(args::contains)) {
        named.add(sub);
      }
    }
    // `help` alone names no command: its usage of this one lists them all
    boolean none = named.isEmpty() || named.equals(List.of(InfoCommands.Help.class));
    for (Class<?> sub : none ? all : named) {
      CommandLine child = new CommandLine(sub);
      addSubcommands(child, sub, args);
      line.addSubcommand(child);
    }
  }

  private static List<String> names(Class<?> command) {
    Command annotation = command.getAnnotation(Command.class);
    List<String> names = new ArrayList<>();
    if (annotation != null) {
      names.add(annotation.name());
      names.addAll(List.of(annotation.aliases()));
    }
    return names;
  }
}
