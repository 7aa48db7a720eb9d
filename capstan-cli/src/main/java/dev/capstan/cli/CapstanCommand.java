package dev.capstan.cli;

import dev.capstan.cli.demo.ReleaseDemo;
import java.nio.file.Path;
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
          + " applied"
    })
final class CapstanCommand implements Runnable {
  final Cli cli;

  @Option(
      names = "--state",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "State file of the in-memory cluster (default: $CAPSTAN_STATE, else .capstan/state.json).")
  @Nullable Path state;

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
          "Work on the Kubernetes cluster of this kubeconfig instead of the in-memory one.")
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

  /** Opens the target the options name. */
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
          kubernetes(),
          DatabaseStore.open(storeUrl, storeMigrate, cli.err()),
          DatabaseStore.redact(storeUrl));
    }
    if (kubeconfig != null || context != null) {
      return kubernetes();
    }
    Path file = state;
    if (file == null) {
      String fromEnv = cli.env().apply("CAPSTAN_STATE");
      file =
          fromEnv == null || fromEnv.isBlank()
              ? Path.of(".capstan", "state.json")
              : Path.of(fromEnv);
      String kubeconfigEnv = cli.env().apply("KUBECONFIG");
      if ((fromEnv == null || fromEnv.isBlank())
          && kubeconfigEnv != null
          && !kubeconfigEnv.isBlank()) {
        // a user with $KUBECONFIG exported may expect the cluster: say where the state goes
        cli.err()
            .println(
                "capstan: working on the in-memory cluster in "
                    + file
                    + "; $KUBECONFIG is read only with --kubeconfig FILE or --context NAME"
                    + " (pass --state FILE to choose the in-memory cluster without this note)");
      }
    }
    return InMemoryTarget.open(cli.resolve(file));
  }

  /** The Kubernetes cluster of {@code --kubeconfig} (else $KUBECONFIG) and {@code --context}. */
  KubernetesTarget kubernetes() {
    return KubernetesTarget.open(
        kubeconfig == null ? null : cli.resolve(kubeconfig),
        context,
        cli.env().apply("KUBECONFIG"),
        cli.connections());
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
