package dev.capstan.cli;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The cluster a command works on, chosen from the options and the environment as kubectl chooses
 * (docs/cli.md, "Which cluster"): {@code --in-memory} or {@code --state FILE} name the in-memory
 * cluster; {@code --kubeconfig FILE} a kubeconfig; then {@code $CAPSTAN_STATE} the in-memory
 * cluster; then {@code $KUBECONFIG} (a list of files, merged as kubectl merges them; files that do
 * not exist are passed over), then {@code $HOME/.kube/config}. Only when none of these exists is
 * the in-memory cluster the default, in {@code .capstan/state.json}. {@code --context NAME} picks
 * the kubeconfig's context. Conflicting choices are refused before anything is read.
 */
sealed interface ClusterChoice {
  /** Where the in-memory cluster is kept when no file is named. */
  Path DEFAULT_STATE = Path.of(".capstan", "state.json");

  /**
   * The in-memory cluster.
   *
   * @param stateFile its state file, as given (relative to the working directory)
   */
  record InMemory(Path stateFile) implements ClusterChoice {
    /** Requires the file. */
    public InMemory {
      requireNonNull(stateFile, "stateFile");
    }
  }

  /**
   * A Kubernetes cluster.
   *
   * @param kubeconfigs the kubeconfig files, merged in this order; at least one, each existing
   * @param context the context, or {@code null} for the current one
   */
  record Kubernetes(List<Path> kubeconfigs, @Nullable String context) implements ClusterChoice {
    /** Requires a file. */
    public Kubernetes {
      kubeconfigs = List.copyOf(kubeconfigs);
      if (kubeconfigs.isEmpty()) {
        throw new IllegalArgumentException("no kubeconfig file");
      }
    }
  }

  /**
   * What the options and environment choose.
   *
   * @param options the cluster options of the command line
   * @param env the environment ({@code KUBECONFIG}, {@code CAPSTAN_STATE}, {@code HOME})
   * @param resolve makes a path given relative to the working directory absolute
   * @param needsKubernetes what needs a Kubernetes cluster ({@code --store}, which keeps only
   *     records; {@code controller run}), or null: the in-memory cluster is then refused instead of
   *     chosen
   * @throws IllegalArgumentException when the options conflict, or name a kubeconfig that does not
   *     exist
   */
  static ClusterChoice of(
      Options options,
      Function<String, @Nullable String> env,
      Function<Path, Path> resolve,
      @Nullable String needsKubernetes) {
    boolean inMemoryAsked = options.inMemory() || options.state() != null;
    String asked = options.inMemory() ? "--in-memory" : "--state";
    if (inMemoryAsked && (options.kubeconfig() != null || options.context() != null)) {
      throw new IllegalArgumentException(
          asked
              + " chooses the in-memory cluster and "
              + (options.kubeconfig() != null ? "--kubeconfig" : "--context")
              + " a Kubernetes cluster; pass one of them");
    }
    if (inMemoryAsked && needsKubernetes != null) {
      throw new IllegalArgumentException(
          asked
              + " chooses the in-memory cluster, but "
              + needsKubernetes
              + " works on a Kubernetes cluster; pass --kubeconfig FILE instead");
    }
    if (inMemoryAsked) {
      Path state = options.state();
      return new InMemory(state != null ? state : DEFAULT_STATE);
    }
    Path kubeconfig = options.kubeconfig();
    if (kubeconfig != null) {
      Path file = resolve.apply(kubeconfig);
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "--kubeconfig: no such file: " + Escapes.quote(kubeconfig));
      }
      return new Kubernetes(List.of(file), options.context());
    }
    String stateEnv = blankToNull(env.apply("CAPSTAN_STATE"));
    if (stateEnv != null && options.context() == null && needsKubernetes == null) {
      return new InMemory(Path.of(stateEnv));
    }
    String listed = blankToNull(env.apply("KUBECONFIG"));
    if (listed != null) {
      List<Path> files = new ArrayList<>();
      for (String entry : listed.split(File.pathSeparator, -1)) {
        if (!entry.isBlank() && Files.isRegularFile(resolve.apply(Path.of(entry)))) {
          files.add(resolve.apply(Path.of(entry)));
        }
      }
      if (files.isEmpty()) {
        throw new IllegalArgumentException(
            "$KUBECONFIG names no file that exists: "
                + Escapes.quote(listed)
                + "; pass --kubeconfig FILE, or --in-memory for the in-memory cluster");
      }
      return new Kubernetes(files, options.context());
    }
    String home = blankToNull(env.apply("HOME"));
    Path standard = home == null ? null : Path.of(home, ".kube", "config");
    if (standard != null && Files.isRegularFile(standard)) {
      return new Kubernetes(List.of(standard), options.context());
    }
    if (options.context() != null || needsKubernetes != null) {
      throw new IllegalArgumentException(
          (options.context() != null ? "--context" : needsKubernetes)
              + " needs a kubeconfig, and there is none: $KUBECONFIG is not set and "
              + (standard == null ? "$HOME/.kube/config" : Escapes.quote(standard.toString()))
              + " does not exist; pass --kubeconfig FILE");
    }
    return new InMemory(DEFAULT_STATE);
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /**
   * The command line's cluster options.
   *
   * @param inMemory {@code --in-memory}
   * @param state {@code --state FILE}, or null
   * @param kubeconfig {@code --kubeconfig FILE}, or null
   * @param context {@code --context NAME}, or null
   */
  record Options(
      boolean inMemory,
      @Nullable Path state,
      @Nullable Path kubeconfig,
      @Nullable String context) {}
}
