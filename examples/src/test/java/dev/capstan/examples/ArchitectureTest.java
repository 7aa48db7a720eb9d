package dev.capstan.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.capstan.common.CapstanException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Rules the build checks over the main classes of every Capstan module (this module's tests see
 * them all): every exception is a {@link CapstanException}, so a host catches one type; no package
 * cycle; the module descriptors export the API and keep the engine and the helpers in.
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
   * A class of each library module that has a module descriptor, by module name: the descriptor is
   * read where that class was loaded from (its jar, or {@code target/classes}).
   */
  private static final Map<String, Class<?>> MODULES =
      Map.ofEntries(
          Map.entry("dev.capstan.common", dev.capstan.common.CapstanException.class),
          Map.entry("dev.capstan.release", dev.capstan.release.ReleaseController.class),
          Map.entry("dev.capstan.update", dev.capstan.update.UpdateException.class),
          Map.entry(
              "dev.capstan.update.build.process",
              dev.capstan.update.build.process.OciImageRegistry.class),
          Map.entry("dev.capstan.release.file", dev.capstan.release.file.ReleaseFiles.class),
          Map.entry("dev.capstan.k8s", dev.capstan.k8s.KubeClients.class),
          Map.entry("dev.capstan.jdbc", dev.capstan.jdbc.JdbcStore.class),
          Map.entry("dev.capstan.helm", dev.capstan.helm.HelmImport.class),
          Map.entry(
              "dev.capstan.controller", dev.capstan.controller.ReleaseResourceController.class),
          Map.entry("dev.capstan.store.tck", dev.capstan.store.tck.StoreContract.class),
          Map.entry("dev.capstan.micrometer", dev.capstan.micrometer.ReleaseMetrics.class),
          Map.entry("dev.capstan.opentelemetry", dev.capstan.opentelemetry.ReleaseTracing.class),
          Map.entry("dev.capstan.test", dev.capstan.test.CapstanTest.class));

  private static ModuleDescriptor descriptor(Class<?> type) throws URISyntaxException {
    Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(location).findAll().iterator().next().descriptor();
  }

  /**
   * The module descriptors say what is API: every package with a public type is exported to all,
   * but the engine's ({@code dev.capstan.release.engine}) and the helpers' ({@code internal}),
   * which are exported to no module, or only to the Capstan modules that use them. A new public
   * type in such a package is therefore no API, whatever its modifiers (docs/api.md).
   */
  @Test
  void theModuleDescriptorsExportTheApiAndKeepTheEngineAndHelpersIn() throws Exception {
    Set<String> classPackages =
        CAPSTAN.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
    for (Map.Entry<String, Class<?>> module : MODULES.entrySet()) {
      ModuleDescriptor descriptor = descriptor(module.getValue());
      assertThat(descriptor.name()).isEqualTo(module.getKey());
      assertThat(descriptor.isAutomatic()).as(module.getKey()).isFalse();

      Set<String> toAll = new TreeSet<>();
      for (ModuleDescriptor.Exports e : descriptor.exports()) {
        if (e.isQualified()) {
          assertThat(e.targets())
              .as("%s exports %s only to Capstan's modules", module.getKey(), e.source())
              .allMatch(t -> t.startsWith("dev.capstan."));
        } else {
          toAll.add(e.source());
        }
      }
      // the packages of classes (a descriptor also names resource folders: db/capstan's SQL)
      Set<String> hidden = new TreeSet<>(descriptor.packages());
      hidden.retainAll(classPackages);
      hidden.removeAll(toAll);
      assertThat(toAll)
          .as("%s: packages exported to every module", module.getKey())
          .noneMatch(p -> p.contains(".internal") || p.endsWith(".engine"));
      assertThat(hidden)
          .as("%s: packages exported to no module, or to Capstan's alone", module.getKey())
          .allMatch(p -> p.contains(".internal") || p.endsWith(".engine"));
    }
    assertThat(descriptor(dev.capstan.release.ReleaseController.class).packages())
        .contains("dev.capstan.release.engine", "dev.capstan.release.internal");
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
}
