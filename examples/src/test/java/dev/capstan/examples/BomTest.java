package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The BOM names every library module of the build, at the build's version. */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static List<String> all(Pattern p, String text) {
    List<String> found = new ArrayList<>();
    Matcher m = p.matcher(text);
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }

  @Test
  void bomListsEveryLibraryModuleAtTheReactorVersion() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"));
    String bom = Files.readString(ROOT.resolve("capstan-bom/pom.xml"));
    List<String> libraries =
        all(Pattern.compile("<module>([^<]+)</module>"), parent).stream()
            .filter(
                m ->
                    !List.of(
                            "examples",
                            "benchmarks",
                            "capstan-cli",
                            "capstan-image",
                            "capstan-bom",
                            "spring-boot-example")
                        .contains(m))
            .toList();
    String version = all(Pattern.compile("<version>([^<]+)</version>"), parent).get(0);

    assertThat(all(Pattern.compile("<artifactId>([^<]+)</artifactId>"), bom))
        .containsAll(libraries);
    assertThat(
            all(Pattern.compile("<version>([^<]+)</version>"), bom)
                .subList(0, libraries.size() + 1))
        .containsOnly(version);
  }
}
