package dev.capstan.cli;

import dev.capstan.cli.demo.ReleaseDemo;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

/**
 * The root {@code capstan} command and its target options, inherited by every subcommand. Its
 * subcommands are added by {@link CommandTree}.
 */
@Command(
    name = "capstan",
    // INHERIT: every subcommand has --help and --version, and lists the exit codes
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = BuildInfo.Provider.class,
    description = "Stateful releases and platform updates, on the in-memory cluster or Kubernetes.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:the operation ran and failed (cast or rollout failed, cluster error, not found), or an"
          + " unexpected error",
      "2:invalid input: a bad flag, file or value; nothing was applied",
      "3:the plan is blocked or has conflicts; nothing was applied",
      "4:another operation holds the release's lease; nothing was applied",
      "5:not confirmed; nothing was applied",
      "6:the reviewed plan is stale (the release or a planned object changed since); nothing was"
          + " applied",
      "7:the destructive-change gate refused the plan (an object of a protected kind, or more than"
          + " the delete budget, that no --approve-delete names), or an uninstall or `release"
          + " test` refused a hook its record lists outside the release's namespace that no"
          + " --allow-hook names; nothing was applied"
    })
final class CapstanCommand implements Runnable {
  final Cli cli;

  @Option(
      names = "--state",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "Work on the in-memory cluster kept in this state file (default with --in-memory:"
              + " $CAPSTAN_STATE, else .capstan/state.json).")
  @Nullable Path state;

  @Option(
      names = "--in-memory",
      scope = ScopeType.INHERIT,
      description =
          "Work on the in-memory cluster (kept in .capstan/state.json), whatever kubeconfig"
              + " exists. Without a kubeconfig ($KUBECONFIG, ~/.kube/config) it is the default.")
  boolean inMemory;

  @Option(
      names = "--no-daemon",
      scope = ScopeType.INHERIT,
      description =
          "Run in a JVM of its own, not in the daemon of this build (read by ./capstan; the"
              + " daemon is also off with CAPSTAN_DAEMON=false and under CI=true).")
  boolean noDaemon;

  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "On an error, print the stack trace after the one-line message.")
  boolean debug;

  @Option(
      names = "--kubeconfig",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "Work on the Kubernetes cluster of this kubeconfig (default: $KUBECONFIG, a list of"
              + " files as kubectl reads it, else ~/.kube/config).")
  @Nullable Path kubeconfig;

  @Option(
      names = {"--context", "--kube-context"},
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      description = "The kubeconfig context (default: the current context).")
  @Nullable String context;

  @Option(
      names = "--store",
      scope = ScopeType.INHERIT,
      paramLabel = "JDBC_URL",
      description =
          "Keep release records and leases in this SQL database (jdbc:postgresql://HOST[:PORT]/DB"
              + "?user=U; default: $CAPSTAN_STORE) instead of Secrets and Leases in the cluster;"
              + " objects still go to the Kubernetes cluster (--kubeconfig, else $KUBECONFIG, else"
              + " ~/.kube/config).")
  @Nullable String store;

  @Option(
      names = "--store-migrate",
      scope = ScopeType.INHERIT,
      description =
          "Install or upgrade the Capstan schema in the --store database first (never done"
              + " otherwise).")
  boolean storeMigrate;

  CapstanCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public void run() {
    cli.out().print(new picocli.CommandLine(this).getUsageMessage());
  }

  /** Opens the target the options and the environment name ({@link ClusterChoice}). */
  Target target() {
    String storeUrl = store;
    if (storeUrl == null) {
      String fromEnv = cli.env().apply("CAPSTAN_STORE");
      storeUrl = fromEnv == null || fromEnv.isBlank() ? null : fromEnv;
    }
    if (storeMigrate && storeUrl == null) {
      throw new IllegalArgumentException(
          "--store-migrate needs the database: pass --store JDBC_URL (or set $CAPSTAN_STORE)");
    }
    if (storeUrl != null) {
      DatabaseStore.checkUrl(storeUrl);
      return new DatabaseTarget(
          kubernetes("--store"),
          DatabaseStore.open(storeUrl, storeMigrate, cli.err()),
          DatabaseStore.redact(storeUrl));
    }
    ClusterChoice choice = ClusterChoice.of(options(), cli.env(), cli::resolve, null);
    if (choice instanceof ClusterChoice.Kubernetes k) {
      return KubernetesTarget.open(k, cli.connections());
    }
    return InMemoryTarget.open(cli.resolve(((ClusterChoice.InMemory) choice).stateFile()));
  }

  /**
   * The target the options name, to read only: an in-memory cluster is read from its state file (an
   * empty one when there is none) and never saved, so nothing is created or written.
   */
  Target targetToRead() {
    ClusterChoice choice = ClusterChoice.of(options(), cli.env(), cli::resolve, null);
    if (choice instanceof ClusterChoice.InMemory memory) {
      return InMemoryTarget.read(cli.resolve(memory.stateFile()));
    }
    return target();
  }

  /**
   * The Kubernetes cluster of {@code --kubeconfig}, else $KUBECONFIG, else ~/.kube/config, and
   * {@code --context}, for {@code what} (the option or command that needs one).
   */
  KubernetesTarget kubernetes(String what) {
    return KubernetesTarget.open(
        (ClusterChoice.Kubernetes) ClusterChoice.of(options(), cli.env(), cli::resolve, what),
        cli.connections());
  }

  /** The kubeconfig files {@code --context} picks a context of (for completion). */
  List<Path> kubeconfigs() {
    return ((ClusterChoice.Kubernetes)
            ClusterChoice.of(options(), cli.env(), cli::resolve, "--context"))
        .kubeconfigs();
  }

  private ClusterChoice.Options options() {
    return new ClusterChoice.Options(inMemory, state, kubeconfig, context);
  }

  /** {@code capstan demo}: both demos on fresh in-memory clusters (no state file is used). */
  @Command(
      name = "demo",
      description = "Run the release and platform-update demos on fresh in-memory clusters.")
  static final class Demo implements Runnable {
    @ParentCommand @Nullable CapstanCommand root;

    @Override
    public void run() {
      if (root == null) {
        throw new IllegalStateException("no parent command");
      }
      ReleaseDemo.run(root.cli.out());
      root.cli.out().println();
      dev.capstan.cli.demo.PlatformUpdateDemo.run(root.cli.out());
    }
  }
}
