package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.cli.demo.DemoPlatform;
import dev.capstan.cli.update.Confirmer;
import dev.capstan.cli.update.ManifestLoader;
import dev.capstan.cli.update.UpdateCommand;
import dev.capstan.cli.update.UpdateOptions;
import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.update.ConfirmationMissingException;
import dev.capstan.update.InvalidInputException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.TargetMismatchException;
import dev.capstan.update.TargetRequiredException;
import dev.capstan.update.UpdateAbortedException;
import dev.capstan.update.UpdateException;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.build.process.BuildTool;
import dev.capstan.update.build.process.CommandRunner;
import dev.capstan.update.build.process.GitSourceTree;
import dev.capstan.update.build.process.OciImageRegistry;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.plan.UpdateBlockedException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code capstan update}: moves an installed platform to a release, patching only the workloads
 * whose images changed. Every flag maps to one {@link dev.capstan.cli.update.UpdateOptions} field,
 * with its default, plus {@code --catalog} for the host platform's component catalog (default: the
 * demo's MCP Runtime catalog).
 */
@Command(
    name = "update",
    mixinStandardHelpOptions = true,
    description = {
      "Update an installed platform to a release: CRDs first, then one workload at a time, waiting",
      "for each rollout, rolling back in reverse order on failure."
    })
final class UpdateCli implements java.util.concurrent.Callable<Integer> {
  @ParentCommand @Nullable CapstanCommand root;

  @Option(names = "--to", paramLabel = "VERSION", description = "The target version (semver).")
  String to = "";

  @Option(
      names = "--release-manifest",
      paramLabel = "FILE|URL",
      description = "The platform-release manifest (YAML or JSON); https URLs are fetched.")
  String releaseManifest = "";

  @Option(
      names = "--crds",
      paramLabel = "FILE|URL",
      description = "A CRD bundle, for a release that changes CRDs without embedding them.")
  String crds = "";

  @Option(
      names = "--catalog",
      paramLabel = "FILE",
      description = "The platform's component catalog (YAML).")
  @Nullable Path catalog;

  @Option(names = "--dry-run", description = "Plan only: no CRD apply, builds or rollouts.")
  boolean dryRun;

  @Option(names = "--yes", description = "Do not ask for confirmation.")
  boolean yes;

  @Option(
      names = "--only",
      split = ",",
      paramLabel = "COMPONENT",
      description = "Update only these components (comma-separated, repeatable).")
  List<String> only = new ArrayList<>();

  @Option(
      names = "--include",
      split = ",",
      paramLabel = "GROUP",
      description = "Include an opt-in group of components (comma-separated, repeatable).")
  List<String> include = new ArrayList<>();

  @Option(names = "--include-auth", description = "Same as --include auth.")
  boolean includeAuth;

  @Option(names = "--include-cert-manager", description = "Same as --include cert-manager.")
  boolean includeCertManager;

  @Option(
      names = "--allow-downgrade",
      description = "Allow a target older than the installed version.")
  boolean allowDowngrade;

  @Option(
      names = "--rollback-on-failure",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description = "Restore touched workloads on failure (default: true).")
  boolean rollbackOnFailure = true;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Per-workload rollout timeout (default: 5m).")
  Duration timeout = Duration.ofMinutes(5);

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "text, json or yaml (default: text).")
  String output = "text";

  @Option(names = "--build", description = "Build and push changed built images first.")
  boolean build;

  @Option(
      names = "--source",
      paramLabel = "DIR",
      description = "The source checkout to build from (default: .).")
  String source = ".";

  @Option(
      names = "--image-platform",
      paramLabel = "PLATFORM",
      description = "Build platform (default: $CAPSTAN_IMAGE_PLATFORM, else linux/amd64).")
  String imagePlatform = "";

  @Option(
      names = "--build-parallelism",
      paramLabel = "N",
      description = "Images built at once (default: 1).")
  int buildParallelism = 1;

  @Option(
      names = "--build-retries",
      paramLabel = "N",
      description = "Extra attempts per failed build (default: 1).")
  int buildRetries = 1;

  @Option(
      names = "--builder",
      paramLabel = "NAME",
      description =
          "Image builder for --build: docker (docker buildx), podman or buildah (default: the"
              + " first of them found on PATH).")
  String builder = "";

  @Option(
      names = "--dockerfile",
      paramLabel = "PATH",
      description =
          "Each built component's Dockerfile under --source; {component} is its name (default:"
              + " {component}/Dockerfile).")
  String dockerfile = DEFAULT_DOCKERFILE;

  @Option(
      names = "--allow-unsafe-crd-changes",
      description =
          "Apply CRD changes the safety gate blocks (a stored version removed or unserved, a"
              + " storage version changed without a path, a schema narrowed).")
  boolean allowUnsafeCrdChanges;

  /** Where a built component's Dockerfile is, under the source checkout, unless told. */
  static final String DEFAULT_DOCKERFILE = "{component}/Dockerfile";

  /** How long one registry request may take. */
  static final Duration REGISTRY_TIMEOUT = Duration.ofSeconds(30);

  @Override
  public Integer call() {
    CapstanCommand parent = root();
    Cli cli = parent.cli;
    Catalog hostCatalog =
        catalog == null
            ? DemoPlatform.catalog()
            : Catalog.load(read(cli, catalog), catalog.toString());
    List<String> groups = new ArrayList<>(include);
    if (includeAuth) {
      groups.add("auth");
    }
    if (includeCertManager) {
      groups.add("cert-manager");
    }
    UpdateOptions options =
        UpdateOptions.defaults()
            .withTo(to)
            .withReleaseManifest(releaseManifest)
            .withCrds(crds)
            .withDryRun(dryRun)
            .withYes(yes)
            .withOnly(only.toArray(String[]::new))
            .withIncludeGroups(groups.toArray(String[]::new))
            .withAllowDowngrade(allowDowngrade)
            .withAllowUnsafeCrdChanges(allowUnsafeCrdChanges)
            .withRollbackOnFailure(rollbackOnFailure)
            .withTimeout(timeout)
            // yaml: the engine writes its JSON report, printed here as YAML
            .withOutput(output.equals("yaml") ? UpdateOptions.JSON : output)
            .withKubeconfig(parent.kubeconfig == null ? "" : parent.kubeconfig.toString())
            .withContext(parent.context == null ? "" : parent.context)
            .withBuild(build)
            .withSource(cli.resolve(Path.of(source)).normalize().toString())
            .withImagePlatform(imagePlatform)
            .withBuildParallelism(buildParallelism)
            .withBuildRetries(buildRetries);
    options.validate();
    ManifestLoader remote = ManifestLoader.filesAndHttps(HttpClient.newHttpClient());
    ManifestLoader loader =
        location ->
            location.contains("://")
                ? remote.load(location)
                : remote.load(cli.resolve(Path.of(location)).toString());
    try (Target target = parent.target()) {
      if (!dryRun) {
        cli.announce(target);
      }
      UpdateCommand.Builder command =
          UpdateCommand.builder(hostCatalog, target.platform())
              .manifestLoader(loader)
              .confirmer(confirmer(cli.terminal()))
              .environment(cli.env()::apply)
              .listener(e -> cli.err().println("capstan: " + e.message()));
      RolloutWaiter waiter = target.rolloutWaiter();
      if (waiter != null) {
        command.rolloutWaiter(waiter);
      }
      if (build) {
        wireBuilds(command, cli, hostCatalog);
      }
      if (!output.equals("yaml")) {
        command.build().run(options, cli.out());
      } else {
        java.io.ByteArrayOutputStream json = new java.io.ByteArrayOutputStream();
        try {
          command.build().run(options, new java.io.PrintStream(json, true, UTF_8));
        } finally {
          printYaml(cli, json.toByteArray());
        }
      }
    }
    return ExitCode.OK;
  }

  /** Prints each JSON document the engine wrote as a YAML document. */
  private static void printYaml(Cli cli, byte[] json) {
    try (com.fasterxml.jackson.databind.MappingIterator<Object> docs =
        ReleaseOutput.json().readerFor(Object.class).readValues(json)) {
      boolean first = true;
      while (docs.hasNextValue()) {
        cli.out().print((first ? "" : "---\n") + ReleaseOutput.yaml(docs.nextValue()));
        first = false;
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the update report is not JSON", e);
    }
  }

  /**
   * Sets the image builder (the one {@code --builder} names, else the first found on {@code PATH}),
   * the registry probe (the OCI distribution API) and the source tree (git) of {@code --build}.
   */
  private void wireBuilds(UpdateCommand.Builder command, Cli cli, Catalog hostCatalog) {
    Path sourceDir = cli.resolve(Path.of(source));
    if (!Files.isDirectory(sourceDir)) {
      throw new InvalidOptionsException(
          List.of("--source must be a directory to build from: " + Escapes.quote(source)));
    }
    String path = cli.env().apply("PATH");
    String searchPath = path == null ? "" : path;
    CommandRunner runner = CommandRunner.processes();
    BuildTool.Located located;
    if (builder.isBlank()) {
      located =
          BuildTool.detect(searchPath, runner)
              .orElseThrow(
                  () ->
                      new InvalidOptionsException(
                          List.of(
                              "--build needs an image builder and none was found on PATH (looked"
                                  + " for docker buildx, podman, buildah); install one or pass"
                                  + " --builder")));
    } else {
      BuildTool tool =
          BuildTool.parse(builder)
              .orElseThrow(
                  () ->
                      new InvalidOptionsException(
                          List.of(
                              "--builder must be docker, podman or buildah: "
                                  + Escapes.quote(builder))));
      located =
          new BuildTool.Located(
              tool,
              tool.locate(searchPath)
                  .orElseThrow(
                      () ->
                          new InvalidOptionsException(
                              List.of(
                                  "--builder "
                                      + tool.program()
                                      + ": "
                                      + tool.program()
                                      + " is not on PATH"))));
      if (!tool.usable(located.executable(), runner)) {
        throw new InvalidOptionsException(
            List.of(
                "--builder docker: docker buildx is not available (docker buildx version"
                    + " failed)"));
      }
    }
    List<String> built =
        hostCatalog.components().stream().filter(c -> c.built()).map(c -> c.name()).toList();
    try {
      command.imageBuilder(
          located.tool().imageBuilder(located.executable(), runner, built, dockerfile));
    } catch (IllegalArgumentException e) {
      throw new InvalidOptionsException(List.of("--dockerfile " + e.getMessage()));
    }
    command
        .imageRegistry(new OciImageRegistry(HttpClient.newHttpClient(), REGISTRY_TIMEOUT))
        .sourceTrees(dir -> new GitSourceTree(dir, runner));
  }

  private CapstanCommand root() {
    if (root == null) {
      throw new IllegalStateException("no parent command");
    }
    return root;
  }

  private static byte[] read(Cli cli, Path file) {
    try {
      return BoundedInput.read(cli.resolve(file), file.toString(), Catalog.MAX_BYTES);
    } catch (InvalidDocumentException e) {
      throw new IllegalArgumentException("--catalog: " + e.getMessage(), e);
    }
  }

  private static Confirmer confirmer(Terminal terminal) {
    return new Confirmer() {
      @Override
      public boolean isInteractive() {
        return terminal.interactive();
      }

      @Override
      public String ask(String prompt) {
        String answer = terminal.ask(prompt);
        return answer == null ? "" : answer;
      }
    };
  }

  /**
   * The exit code for an update-engine exception, or -1 if {@code e} is not one.
   *
   * @see ExitCode
   */
  static int exitCode(Exception e) {
    if (!(e instanceof UpdateException)) {
      return -1;
    }
    if (e instanceof InvalidInputException
        || e instanceof TargetRequiredException
        || e instanceof TargetMismatchException) {
      return ExitCode.INVALID;
    }
    if (e instanceof UpdateBlockedException) {
      return ExitCode.BLOCKED;
    }
    if (e instanceof ConfirmationMissingException || e instanceof UpdateAbortedException) {
      return ExitCode.NOT_CONFIRMED;
    }
    return ExitCode.FAILED;
  }
}
