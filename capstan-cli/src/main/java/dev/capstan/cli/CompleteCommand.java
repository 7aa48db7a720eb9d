package dev.capstan.cli;

import dev.capstan.k8s.KubeClients;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Release;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code capstan __complete WORD...}: what may come next on a command line, for the completion
 * scripts ({@link CompletionScripts}), which call it on TAB with the words typed after {@code
 * capstan}, the last one the word being completed (empty for a new one). It prints one candidate a
 * line: subcommands, options, the values of an option with a fixed set, release names (positional
 * {@code NAME}, {@code --release}) and namespaces ({@code -n}) read from the cluster the words
 * choose (as the command would: {@code --kubeconfig}, {@code --context}, {@code --in-memory},
 * {@code $KUBECONFIG}...), and kubeconfig contexts; or the single line {@value #FILES} to let the
 * shell complete file names. It writes nothing: an in-memory cluster's state file is read, never
 * created or saved. It never fails: a cluster it cannot read gives no names, and nothing goes to
 * standard error. Hidden from help.
 */
@Command(
    name = "__complete",
    hidden = true,
    description = "Print what may come next after WORD... (for the completion scripts).")
final class CompleteCommand implements Callable<Integer> {
  /** The line that tells the completion script to complete file names. */
  static final String FILES = ":files";

  @Spec @Nullable CommandSpec spec;

  @Parameters(arity = "0..*", paramLabel = "WORD", description = "The words typed so far.")
  List<String> words = new ArrayList<>();

  @Override
  public Integer call() {
    CommandSpec self = java.util.Objects.requireNonNull(spec, "spec");
    CommandSpec root = self.root();
    PrintWriter out = self.commandLine().getOut();
    String current = words.isEmpty() ? "" : words.get(words.size() - 1);
    Walk walk = Walk.of(root, words.subList(0, Math.max(0, words.size() - 1)));
    for (String candidate : candidates(walk, current)) {
      if (candidate.equals(FILES) || candidate.startsWith(current)) {
        out.println(candidate);
      }
    }
    out.flush();
    return ExitCode.OK;
  }

  private List<String> candidates(Walk walk, String current) {
    OptionSpec pending = walk.pending;
    if (pending != null) {
      return values(walk, pending, pending.paramLabel());
    }
    if (current.startsWith("-")) {
      List<String> names = new ArrayList<>();
      for (OptionSpec o : walk.command.options()) {
        if (!o.hidden()) {
          names.addAll(List.of(o.names()));
        }
      }
      return names;
    }
    if (!walk.command.subcommands().isEmpty()) {
      List<String> names = new ArrayList<>();
      walk.command
          .subcommands()
          .forEach(
              (name, line) -> {
                if (!line.getCommandSpec().usageMessage().hidden()) {
                  names.add(name);
                }
              });
      return names;
    }
    List<PositionalParamSpec> positionals = walk.command.positionalParameters();
    if (walk.positionals < positionals.size()) {
      PositionalParamSpec p = positionals.get(walk.positionals);
      return values(walk, p, p.paramLabel());
    }
    return List.of();
  }

  /** The values of an option or positional parameter, by its type and label. */
  private List<String> values(Walk walk, ArgSpec arg, String label) {
    Iterable<String> fixed = arg.completionCandidates();
    if (fixed != null) {
      List<String> out = new ArrayList<>();
      fixed.forEach(out::add);
      return out;
    }
    if (label.contains("FILE") || label.equals("DIR") || label.equals("PATH")) {
      return List.of(FILES);
    }
    boolean release = isReleaseCommand(walk.command);
    if (label.equals("NAMESPACE")) {
      return namespaces(walk);
    }
    if (label.equals("NAME")
        && arg instanceof OptionSpec o
        && List.of(o.names()).contains("--context")) {
      return contexts(walk);
    }
    if (label.equals("NAME")
        && release
        && (arg instanceof PositionalParamSpec
            || (arg instanceof OptionSpec o && o.longestName().equals("--release")))
        && !walk.command.name().equals("import-helm")) {
      return releases(walk);
    }
    return List.of();
  }

  private static boolean isReleaseCommand(CommandSpec command) {
    CommandSpec parent = command.parent();
    return parent != null && parent.name().equals("release");
  }

  /** The release names of the words' namespace, on the cluster the words choose. */
  private List<String> releases(Walk walk) {
    CapstanCommand root = (CapstanCommand) walk.command.root().userObject();
    try (Target target = root.targetToRead()) {
      String namespace = walk.namespace != null ? walk.namespace : target.defaultNamespace();
      return ReleaseController.builder(target.orchestrator(), target.store())
          .build()
          .list(namespace, false)
          .stream()
          .map(Release::name)
          .toList();
    } catch (RuntimeException e) {
      return List.of(); // a cluster that cannot be read: nothing to offer
    }
  }

  /** The namespaces of the cluster the words choose. */
  private List<String> namespaces(Walk walk) {
    CapstanCommand root = (CapstanCommand) walk.command.root().userObject();
    try (Target target = root.targetToRead()) {
      if (target instanceof InMemoryTarget memory) {
        return List.copyOf(new TreeSet<>(memory.cluster().namespaces()));
      }
      if (target instanceof KubernetesTarget kube) {
        List<String> names = new ArrayList<>();
        for (V1Namespace ns :
            new CoreV1Api(kube.clients().apiClient()).listNamespace().execute().getItems()) {
          if (ns.getMetadata() != null && ns.getMetadata().getName() != null) {
            names.add(ns.getMetadata().getName());
          }
        }
        return names;
      }
      return List.of();
    } catch (RuntimeException | io.kubernetes.client.openapi.ApiException e) {
      return List.of();
    }
  }

  /** The contexts of the kubeconfig the words choose. */
  private List<String> contexts(Walk walk) {
    CapstanCommand root = (CapstanCommand) walk.command.root().userObject();
    try {
      return KubeClients.contextNames(root.kubeconfigs());
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  /**
   * Where the words lead: the command they name, how many of its positional parameters they gave,
   * the option still waiting for its value, and the namespace they name. The root's options they
   * give ({@code --kubeconfig}, {@code --in-memory}...) are set on the root command, so the cluster
   * is the one the finished command would work on.
   */
  private static final class Walk {
    CommandSpec command;
    int positionals;
    @Nullable OptionSpec pending;
    @Nullable String namespace;

    private Walk(CommandSpec command) {
      this.command = command;
    }

    static Walk of(CommandSpec root, List<String> words) {
      Walk walk = new Walk(root);
      Iterator<String> it = words.iterator();
      while (it.hasNext()) {
        String word = it.next();
        CommandLine sub = walk.command.subcommands().get(word);
        if (sub != null && !word.startsWith("-")) {
          walk.command = sub.getCommandSpec();
          walk.positionals = 0;
          continue;
        }
        if (word.startsWith("-") && !word.equals("-")) {
          String name = word.split("=", 2)[0];
          OptionSpec option = walk.command.findOption(name);
          if (option == null) {
            continue;
          }
          String value = null;
          if (word.contains("=")) {
            value = word.substring(word.indexOf('=') + 1);
          } else if (option.arity().min() > 0) {
            if (!it.hasNext()) {
              walk.pending = option;
              break;
            }
            value = it.next();
          }
          walk.set(option, value);
          continue;
        }
        walk.positionals++;
      }
      return walk;
    }

    /** Keeps what the completion needs of an option given: the namespace, the cluster options. */
    private void set(OptionSpec option, @Nullable String value) {
      if (option.longestName().equals("--namespace")) {
        namespace = value;
        return;
      }
      if (!(command.root().userObject() instanceof CapstanCommand)) {
        return;
      }
      if (isInherited(option)) {
        try {
          if (option.arity().min() == 0) {
            option.setValue(true);
          } else if (value != null) {
            option.setValue(
                option.type() == java.nio.file.Path.class ? java.nio.file.Path.of(value) : value);
          }
        } catch (RuntimeException e) {
          // a value the option does not take: the command would refuse it; complete without it
        }
      }
    }

    private static boolean isInherited(OptionSpec option) {
      return option.inherited() || option.scopeType() == CommandLine.ScopeType.INHERIT;
    }
  }
}
