package dev.capstan.examples.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.cli.demo.DemoPlatform;
import dev.capstan.common.CapstanException;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.file.InvalidReleaseFileException;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.update.InvalidInputException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.manifest.CrdBundle;
import dev.capstan.update.manifest.PlatformReleases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Any input either is read or is refused with the format's invalid-input exception, whose every
 * problem names a path (or, for the whole input, a position), shows no Java internals and no raw
 * control character; never another exception, never a hang ({@link #HANG_SECONDS} s per input).
 *
 * <p>Each property draws its inputs from a {@link Random} with a fixed seed, so a run is repeatable
 * and a failure names the try that broke it: {@value #DEFAULT_TRIES} inputs per property in {@code
 * ./mvnw verify}; a longer run with {@code -Dcapstan.fuzz.tries=100000} (and another seed with
 * {@code -Dcapstan.fuzz.seed=N}). Each property prints its figures, inputs tried and the count of
 * each outcome, and writes them to {@code target/fuzz-figures.txt}.
 */
class InputFuzzTest {
  /** How long one read may run before it counts as hung (a hang guard, not a speed limit). */
  static final long HANG_SECONDS = 60;

  /** Inputs per property in {@code ./mvnw verify}. */
  static final int DEFAULT_TRIES = 1000;

  private static final int TRIES = Integer.getInteger("capstan.fuzz.tries", DEFAULT_TRIES);
  private static final long SEED = Long.getLong("capstan.fuzz.seed", 20261130L);

  private static final Pattern WHOLE_INPUT =
      Pattern.compile(
          "^(document is |not UTF-8|not valid YAML|not valid JSON|nesting is deeper|holds more"
              + " than|aliases expand|alias \\*|the document|the manifest|the catalog|file must"
              + " hold|document must be|document: ).*",
          Pattern.DOTALL);
  private static final Pattern PATH =
      Pattern.compile(
          "^\\S.*?(: | must | is | needs | duplicates | holds | refers to ).*", Pattern.DOTALL);
  private static final Pattern INTERNALS =
      Pattern.compile("Exception|java\\.|com\\.fasterxml|org\\.snakeyaml|\\tat ");

  private static final byte[] RELEASE = read("releases/web-v1.yaml");
  private static final byte[] RELEASE_V2 = read("releases/web-v2.yaml");
  private static final byte[] CATALOG = DemoPlatform.catalogYaml();
  private static final String CRDS =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {name: mcpservers.mcpruntime.org}
      spec:
        group: mcpruntime.org
        names: {kind: MCPServer, plural: mcpservers}
        scope: Namespaced
        versions:
          - name: v1alpha1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                type: object
                properties: {spec: {type: object, properties: {replicas: {type: integer, minimum: 1.10}}}}
      """;
  private static final byte[] MANIFEST =
      PlatformReleases.toJson(
              PlatformReleases.generate(DemoPlatform.catalog(), "v1.0.0", true, CRDS))
          .getBytes(StandardCharsets.UTF_8);

  private static byte[] read(String file) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] input(Random random, byte[]... seeds) {
    return switch (random.nextInt(10)) {
      case 0, 1 -> Inputs.tree(random);
      case 2 -> Inputs.pathological(random);
      default -> Inputs.mutate(seeds[random.nextInt(seeds.length)], random);
    };
  }

  /**
   * Runs a property over {@link #TRIES} inputs and prints and records the count of each outcome.
   */
  private static void fuzz(
      String name, long salt, Function<Random, byte[]> inputs, Function<byte[], String> property) {
    Random random = new Random(SEED + salt);
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < TRIES; i++) {
      byte[] input = inputs.apply(random);
      String outcome;
      try {
        outcome = timed(() -> property.apply(input));
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            name
                + ": try "
                + i
                + " of seed "
                + SEED
                + " broke the property with input (first 300 bytes, Java-escaped): "
                + dev.capstan.common.Escapes.escape(
                    new String(input, 0, Math.min(300, input.length), StandardCharsets.UTF_8)),
            e);
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }
    StringBuilder figures =
        new StringBuilder(String.format("fuzz %s: %d inputs (seed %d)%n", name, TRIES, SEED));
    outcomes.forEach((o, n) -> figures.append(String.format("  %6d  %s%n", n, o)));
    System.out.print(figures);
    try {
      Files.writeString(
          Path.of("target", "fuzz-figures.txt"),
          figures,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(TRIES);
  }

  @Test
  void releaseFilesAreReadAndCastOrRefusedWithAPath() {
    fuzz("release files", 1, r -> input(r, RELEASE, RELEASE_V2), InputFuzzTest::releaseFile);
  }

  @Test
  void catalogsAreReadOrRefusedWithAPath() {
    fuzz("catalogs", 2, r -> input(r, CATALOG), InputFuzzTest::catalog);
  }

  @Test
  void manifestsAreReadOrRefusedWithAPath() {
    fuzz(
        "platform manifests",
        3,
        r -> input(r, MANIFEST, CRDS.getBytes(StandardCharsets.UTF_8)),
        InputFuzzTest::manifest);
  }

  @Test
  void crdBundlesAreReadOrRefusedWithAPath() {
    fuzz(
        "CRD bundles",
        4,
        r -> input(r, CRDS.getBytes(StandardCharsets.UTF_8), MANIFEST),
        InputFuzzTest::crdBundle);
  }

  private static String releaseFile(byte[] input) {
    ReleaseFile file;
    try {
      file = ReleaseFiles.parse(input, "fuzz.yaml", Overrides.none(), n -> "from-env");
    } catch (InvalidReleaseFileException e) {
      checkProblems(String.valueOf(e.getMessage()), e.problems());
      return refusal(e.problems());
    }
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("demo");
    ReleaseController controller = ReleaseController.builder(cluster, cluster).build();
    try {
      controller.cast(file.toSpec(), file.payloads());
      return "read, cast";
    } catch (InvalidReleaseException e) {
      checkProblems(String.valueOf(e.getMessage()), e.problems());
      assertThat(cluster.operations()).as("operations after refusal").isEmpty();
      return "read, cast refused before any write";
    } catch (CapstanException e) {
      checkLine(String.valueOf(e.getMessage()));
      return "read, cast failed (" + e.getClass().getSimpleName() + ")";
    }
  }

  private static String catalog(byte[] input) {
    try {
      Catalog.load(input, "fuzz.yaml");
      return "read";
    } catch (InvalidInputException e) {
      checkProblems(String.valueOf(e.getMessage()), e.problems());
      return refusal(e.problems());
    }
  }

  private static String manifest(byte[] input) {
    try {
      PlatformReleases.parse(input, "fuzz.json", DemoPlatform.catalog());
      return "read";
    } catch (InvalidInputException e) {
      checkProblems(String.valueOf(e.getMessage()), e.problems());
      return refusal(e.problems());
    }
  }

  private static String crdBundle(byte[] input) {
    try {
      CrdBundle.parse(new String(input, StandardCharsets.UTF_8));
      return "read";
    } catch (InvalidInputException e) {
      checkProblems(String.valueOf(e.getMessage()), e.problems());
      return refusal(e.problems());
    }
  }

  /**
   * Runs one read, failing only if it hangs ({@value #HANG_SECONDS} s): how fast inputs are read is
   * measured by the benchmarks, never asserted here (a loaded machine would fail the test).
   */
  private static String timed(java.util.function.Supplier<String> run) {
    return org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(HANG_SECONDS), run::get, "one input hung");
  }

  private static String refusal(List<String> problems) {
    String first = problems.get(0).replaceFirst("^crds ", "");
    return WHOLE_INPUT.matcher(first).matches()
        ? "refused: " + first.replaceAll("(?s)( at line| [0-9'(*]|:).*", "")
        : "refused: field rules";
  }

  private static void checkProblems(String message, List<String> problems) {
    assertThat(problems).isNotEmpty();
    for (String p : problems) {
      checkLine(p);
      assertThat(WHOLE_INPUT.matcher(p).matches() || PATH.matcher(p).matches())
          .as("names a path or a position: %s", p)
          .isTrue();
    }
    checkText(message);
  }

  private static void checkLine(String line) {
    checkText(line);
    assertThat(line).as("one line").doesNotContain("\n");
  }

  private static void checkText(String text) {
    assertThat(INTERNALS.matcher(text).find()).as("no Java internals: %s", text).isFalse();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f);
      assertThat(control).as("raw control character U+%04X in: %s", (int) c, text).isFalse();
    }
  }
}
