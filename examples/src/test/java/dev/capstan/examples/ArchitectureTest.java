package dev.capstan.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.capstan.common.CapstanException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Rules the build checks over the main classes of every Capstan module (this module's tests see
 * them all): every exception is a {@link CapstanException}, so a host catches one type; no package
 * cycle; no public type in an {@code internal} package beyond the known ones listed under {@code
 * src/test/resources/architecture/} (the list only shrinks).
 */
class ArchitectureTest {
  /**
   * Main classes only, whether the build hands them over as {@code target/classes} (a {@code test}
   * run) or as jars ({@code verify}): test classes in {@code target/test-classes} and in the
   * modules' test jars ({@code *-tests.jar}, which {@code verify} puts on this module's class path)
   * are left out.
   */
  private static final JavaClasses CAPSTAN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.capstan");

  /** The modules whose classes the rules must see: a rule over missing classes proves nothing. */
  @Test
  void theRulesSeeEveryModulesClasses() {
    Set<String> packages =
        CAPSTAN.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
    assertThat(packages)
        .contains(
            "dev.capstan.common",
            "dev.capstan.release",
            "dev.capstan.release.file",
            "dev.capstan.helm",
            "dev.capstan.jdbc",
            "dev.capstan.k8s",
            "dev.capstan.update",
            "dev.capstan.update.build.process",
            "dev.capstan.cli",
            "dev.capstan.cli.daemon",
            "dev.capstan.controller",
            "dev.capstan.examples",
            "dev.capstan.test");
  }

  @Test
  void everyExceptionIsACapstanException() {
    // an Error (the in-memory fake's SimulatedCrash stands for a dead process) is not one to catch
    ArchRule rule =
        classes()
            .that()
            .areAssignableTo(Exception.class)
            .should()
            .beAssignableTo(CapstanException.class)
            .because("a host catches one type for any Capstan failure (ARCHITECTURE.md, Errors)");

    rule.check(CAPSTAN);
  }

  /**
   * The controller of Release resources is a wrapper tool built on Capstan's public API alone: no
   * internal package, no engine class, nothing of the CLI (docs/api.md).
   */
  @Test
  void theControllerUsesThePublicApiOnly() {
    ArchRule rule =
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses()
            .that()
            .resideInAPackage("dev.capstan.controller..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "dev.capstan..internal..", "dev.capstan.release.engine..", "dev.capstan.cli..")
            .because("a wrapper tool needs no more than the public API (issue 27)");

    rule.check(CAPSTAN);
  }

  /**
   * No package of Capstan's main code depends, through others, on itself. A failure lists each
   * cycle from its alphabetically first package, {@code dev.capstan.} left off.
   */
  @Test
  void noPackageCycles() {
    ArchRule rule = slices().matching("dev.capstan.(**)").should().beFreeOfCycles();

    Set<String> found = new TreeSet<>();
    for (String detail : rule.evaluate(CAPSTAN).getFailureReport().getDetails()) {
      found.add(cycle(detail));
    }

    assertThat(found).as("package cycles (ARCHITECTURE.md, One home per concept)").isEmpty();
  }

  /**
   * The public top-level types of {@code internal} packages are exactly those of {@code
   * architecture/public-internal-types.txt}: a new one fails the build (make it package-private, or
   * move it to an API package), and so does a listed one that is no longer public or internal.
   */
  @Test
  void noPublicTypesInInternalPackagesBeyondTheKnownOnes() throws IOException {
    Set<String> found =
        CAPSTAN.stream()
            .filter(JavaClass::isTopLevelClass)
            .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC))
            .filter(c -> (c.getPackageName() + ".").contains(".internal."))
            .map(JavaClass::getName)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(found)
        .as(
            "public types in internal packages (make a new one package-private; take one that"
                + " is no longer out of examples/src/test/resources/architecture/"
                + "public-internal-types.txt)")
        .containsExactlyInAnyOrderElementsOf(known("public-internal-types.txt"));
  }

  /**
   * {@code "release -> release.port"} from ArchUnit's {@code Cycle detected: Slice ... ->} text.
   */
  static String cycle(String detail) {
    String chain = detail.substring(0, detail.indexOf("\n  1. ")).replace("Cycle detected:", "");
    List<String> slices = new ArrayList<>();
    for (String slice : chain.split("->", -1)) {
      slices.add(slice.replace("Slice", "").strip());
    }
    slices.remove(slices.size() - 1); // the first again
    int first = slices.indexOf(slices.stream().min(String::compareTo).orElseThrow());
    List<String> rotated = new ArrayList<>(slices.subList(first, slices.size()));
    rotated.addAll(slices.subList(0, first));
    return String.join(" -> ", rotated);
  }

  private static List<String> known(String resource) throws IOException {
    try (InputStream in = ArchitectureTest.class.getResourceAsStream("/architecture/" + resource)) {
      if (in == null) {
        throw new IOException("missing test resource architecture/" + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .toList();
    }
  }
}
