package dev.capstan.benchmarks;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.UninstallOutcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The library side of the fleet benchmark ({@code testing/compare/fleet.sh}): one JVM, one {@link
 * ReleaseController} on the Kubernetes adapter, casting or uninstalling many releases {@code W} at
 * once, as an application that embeds the library would.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks-all.jar dev.capstan.benchmarks.FleetDriver \
 *     --kubeconfig FILE [--width 16]
 * </pre>
 *
 * <p>It reads commands from standard input, one a line, and runs each to its end before reading the
 * next, so the process, its compiled code and its connection to the API server outlive the
 * commands:
 *
 * <ul>
 *   <li>{@code cast NAMESPACE DIR}: casts every release of {@code DIR} — each folder {@code
 *       DIR/REL} is the release {@code REL} of namespace {@code NAMESPACE}, its plain manifests in
 *       {@code DIR/REL/manifests} — as {@code capstan release cast REL -n NAMESPACE -f
 *       DIR/REL/manifests --yes} does: reading the files is part of the work;
 *   <li>{@code cast-all NAMESPACE DIR}: the same releases through one {@link
 *       ReleaseController#castAll} call, {@code W} at once: the files are read {@code W} at once,
 *       then the releases already as asked are found by reads shared by all of them and left alone,
 *       and the others cast;
 *   <li>{@code uninstall NAMESPACE DIR}: uninstalls every release named by a folder of {@code DIR}
 *       and purges its history, as {@code capstan release uninstall REL -n NAMESPACE --purge --yes}
 *       does;
 *   <li>{@code uninstall-all NAMESPACE DIR}: the same releases through one {@link
 *       ReleaseController#uninstallAll} call, {@code W} at once.
 * </ul>
 *
 * <p>The releases run {@code W} at once, in the order of their folder names. After each command one
 * line goes to standard output, {@code done OK FAILED MILLIS} (the releases that succeeded and
 * failed, and the command's time); each failure is reported on standard error as {@code failed
 * NAMESPACE/REL: EXCEPTION: MESSAGE}. An empty line or the end of the input ends the process; a
 * line it does not understand prints {@code error MESSAGE} and is skipped.
 */
public final class FleetDriver {
  private final ReleaseController controller;
  private final ExecutorService pool;
  private final int width;
  private final PrintStream out;
  private final PrintStream err;

  private FleetDriver(
      ReleaseController controller,
      ExecutorService pool,
      int width,
      PrintStream out,
      PrintStream err) {
    this.controller = controller;
    this.pool = pool;
    this.width = width;
    this.out = out;
    this.err = err;
  }

  /**
   * Runs the driver: {@code --kubeconfig FILE} (required) and {@code --width W} (default 16).
   *
   * @param args the arguments
   * @throws IOException when standard input cannot be read
   */
  public static void main(String[] args) throws IOException {
    @Nullable Path kubeconfig = null;
    int width = 16;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      switch (a) {
        case "--kubeconfig" -> kubeconfig = Path.of(args[++i]);
        case "--width" -> width = Integer.parseInt(args[++i]);
        default -> usage("unknown argument: " + a);
      }
    }
    if (kubeconfig == null || width < 1) {
      usage("--kubeconfig FILE is required and --width at least 1");
      return;
    }
    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig);
    // the CLI's controller, without its progress listener: the same parallelism within a release
    ReleaseController controller =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .holder(LeaseHolders.onThisHost())
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(width);
    try {
      new FleetDriver(controller, pool, width, System.out, System.err).serve(System.in);
    } finally {
      pool.shutdownNow();
      clients.closeConnections();
    }
  }

  private static void usage(String problem) {
    System.err.println(
        "FleetDriver: "
            + problem
            + "\nusage: FleetDriver --kubeconfig FILE [--width W], commands on stdin:"
            + " 'cast NAMESPACE DIR', 'cast-all NAMESPACE DIR', 'uninstall NAMESPACE DIR',"
            + " 'uninstall-all NAMESPACE DIR'");
    System.exit(2);
  }

  private void serve(java.io.InputStream in) throws IOException {
    BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      if (line.isBlank()) {
        return;
      }
      String[] words = line.trim().split("\\s+", -1);
      if (words.length != 3
          || !(words[0].equals("cast")
              || words[0].equals("cast-all")
              || words[0].equals("uninstall")
              || words[0].equals("uninstall-all"))) {
        out.println(
            "error expected 'cast NAMESPACE DIR', 'cast-all NAMESPACE DIR', 'uninstall"
                + " NAMESPACE DIR' or 'uninstall-all NAMESPACE DIR': "
                + line);
        out.flush();
        continue;
      }
      if (words[0].equals("cast-all")) {
        castAll(words[1], Path.of(words[2]));
      } else if (words[0].equals("uninstall-all")) {
        uninstallAll(words[1], Path.of(words[2]));
      } else {
        run(words[0].equals("cast"), words[1], Path.of(words[2]));
      }
    }
  }

  private static List<Path> releases(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isDirectory).sorted().toList();
    }
  }

  private void castAll(String namespace, Path dir) throws IOException {
    long t0 = System.nanoTime();
    List<Path> releases = releases(dir);
    List<Future<ReleaseInput>> reading = new ArrayList<>();
    for (Path release : releases) {
      String name = String.valueOf(release.getFileName());
      reading.add(pool.submit(() -> input(namespace, name, release)));
    }
    List<ReleaseInput> inputs = new ArrayList<>();
    for (Future<ReleaseInput> f : reading) {
      try {
        inputs.add(f.get());
      } catch (ExecutionException e) {
        throw new IllegalStateException("reading a release failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    List<@Nullable RuntimeException> errors = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (CastOutcome outcome : controller.castAll(inputs, width)) {
      names.add(outcome.release());
      errors.add(outcome instanceof CastOutcome.Failed f ? f.error() : null);
    }
    done(t0, names, errors);
  }

  /** Reports a command's outcomes: each failure on stderr, then {@code done OK FAILED MILLIS}. */
  private void done(long t0, List<String> releases, List<@Nullable RuntimeException> errors) {
    int failed = 0;
    for (int i = 0; i < releases.size(); i++) {
      RuntimeException e = errors.get(i);
      if (e != null) {
        failed++;
        err.println(
            "failed " + releases.get(i) + ": " + e.getClass().getName() + ": " + e.getMessage());
      }
    }
    err.flush();
    out.println(
        "done "
            + (releases.size() - failed)
            + " "
            + failed
            + " "
            + (System.nanoTime() - t0) / 1_000_000);
    out.flush();
  }

  private void uninstallAll(String namespace, Path dir) throws IOException {
    long t0 = System.nanoTime();
    List<ReleaseRef> refs = new ArrayList<>();
    for (Path release : releases(dir)) {
      refs.add(new ReleaseRef(namespace, String.valueOf(release.getFileName())));
    }
    List<@Nullable RuntimeException> errors = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (UninstallOutcome outcome :
        controller.uninstallAll(refs, UninstallOptions.defaults().withPurge(true), width)) {
      names.add(outcome.release());
      errors.add(outcome instanceof UninstallOutcome.Failed f ? f.error() : null);
    }
    done(t0, names, errors);
  }

  private void run(boolean cast, String namespace, Path dir) throws IOException {
    long t0 = System.nanoTime();
    List<Path> releases = releases(dir);
    List<Future<?>> running = new ArrayList<>();
    for (Path release : releases) {
      String name = String.valueOf(release.getFileName());
      running.add(
          pool.submit(
              () -> {
                if (cast) {
                  cast(namespace, name, release);
                } else {
                  uninstall(namespace, name);
                }
              }));
    }
    int ok = 0;
    int failed = 0;
    for (int i = 0; i < running.size(); i++) {
      try {
        running.get(i).get();
        ok++;
      } catch (ExecutionException e) {
        failed++;
        Throwable cause = e.getCause();
        if (cause == null) {
          cause = e;
        }
        err.println(
            "failed "
                + namespace
                + "/"
                + releases.get(i).getFileName()
                + ": "
                + cause.getClass().getName()
                + ": "
                + cause.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    err.flush();
    out.println("done " + ok + " " + failed + " " + (System.nanoTime() - t0) / 1_000_000);
    out.flush();
  }

  private void cast(String namespace, String name, Path release) {
    ReleaseInput input = input(namespace, name, release);
    controller.cast(input);
  }

  private static ReleaseInput input(String namespace, String name, Path release) {
    ReleaseFile file =
        ReleaseFiles.manifests(
            release.resolve("manifests"),
            release.resolve("manifests").toString(),
            new Overrides(namespace, name));
    return new ReleaseInput(file.toSpec(), file.payloads());
  }

  private void uninstall(String namespace, String name) {
    controller.uninstall(namespace, name, UninstallOptions.defaults().withPurge(true));
  }
}
