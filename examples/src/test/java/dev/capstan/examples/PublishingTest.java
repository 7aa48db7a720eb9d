package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What Maven Central asks of every published module: a licence, and POM metadata (url, licence,
 * scm, developers, issue management, name and description). The parent holds the shared part, the
 * BOM (which has no parent) repeats it; {@code ./mvnw -P release verify} stages the files. Every
 * jar names its module ({@code Automatic-Module-Name}) after its root package.
 */
class PublishingTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static Element pom(String module) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc =
        factory.newDocumentBuilder().parse(ROOT.resolve(module).resolve("pom.xml").toFile());
    return doc.getDocumentElement();
  }

  private static String text(Element pom, String path) {
    Node node = pom;
    for (String name : path.split("/", -1)) {
      Node found = null;
      NodeList children = node.getChildNodes();
      for (int i = 0; i < children.getLength(); i++) {
        if (name.equals(children.item(i).getNodeName())) {
          found = children.item(i);
          break;
        }
      }
      if (found == null) {
        return "";
      }
      node = found;
    }
    return node.getTextContent().strip();
  }

  /** The modules that are not published: the examples, the CLI, its image and the benchmarks. */
  private static final List<String> UNPUBLISHED =
      List.of("examples", "benchmarks", "capstan-cli", "capstan-image", "spring-boot-example");

  /** The parent's modules that are published: all but {@link #UNPUBLISHED}. */
  private static List<String> published() throws Exception {
    List<String> modules = new ArrayList<>();
    NodeList list = pom("").getElementsByTagName("module");
    for (int i = 0; i < list.getLength(); i++) {
      String m = list.item(i).getTextContent().strip();
      if (!UNPUBLISHED.contains(m)) {
        modules.add(m);
      }
    }
    return modules;
  }

  @Test
  void theLicenceIsApache2() throws Exception {
    assertThat(Files.readString(ROOT.resolve("LICENSE")))
        .contains("Apache License\n                           Version 2.0, January 2004");
    assertThat(Files.readString(ROOT.resolve("NOTICE"))).startsWith("Capstan\n");
  }

  @Test
  void everyPublishedModuleHasTheMetadataCentralAsksFor() throws Exception {
    for (String root : List.of("", "capstan-bom")) {
      Element pom = pom(root);
      assertThat(text(pom, "url")).as(root).startsWith("https://");
      assertThat(text(pom, "licenses/license/name")).as(root).isEqualTo("Apache-2.0");
      assertThat(text(pom, "licenses/license/url"))
          .isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
      assertThat(text(pom, "scm/url")).as(root).startsWith("https://");
      assertThat(text(pom, "scm/connection")).as(root).startsWith("scm:git:");
      assertThat(text(pom, "developers/developer/name")).as(root).isNotEmpty();
      assertThat(text(pom, "issueManagement/url")).as(root).startsWith("https://");
      assertThat(text(pom, "properties/project.build.outputTimestamp"))
          .as(root)
          .matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z");
    }
    // the BOM repeats the parent's values
    for (String field :
        List.of(
            "url", "licenses/license/name", "scm/url", "scm/connection", "issueManagement/url")) {
      assertThat(text(pom("capstan-bom"), field)).isEqualTo(text(pom(""), field));
    }
    assertThat(published())
        .contains("capstan-common", "release-core", "release-k8s", "capstan-bom");
    for (String module : published()) {
      Element pom = pom(module);
      assertThat(text(pom, "name")).as(module).startsWith("Capstan");
      assertThat(text(pom, "description")).as(module).hasSizeGreaterThan(20);
    }
    for (String unpublished : UNPUBLISHED) {
      assertThat(text(pom(unpublished), "properties/maven.deploy.skip")).isEqualTo("true");
    }
    for (String boot : List.of("boot-3.5", "boot-4.0")) {
      assertThat(text(pom("spring-boot-example/" + boot), "properties/maven.deploy.skip"))
          .isEqualTo("true");
    }
  }

  /** A class of each published jar, by module: its manifest is read where it is a jar. */
  private static final Map<String, Class<?>> A_CLASS_OF =
      Map.ofEntries(
          Map.entry("capstan-common", dev.capstan.common.CapstanException.class),
          Map.entry("release-core", dev.capstan.release.ReleaseController.class),
          Map.entry("update-core", dev.capstan.update.UpdateException.class),
          Map.entry("update-build", dev.capstan.update.build.process.OciImageRegistry.class),
          Map.entry("release-file", dev.capstan.release.file.ReleaseFiles.class),
          Map.entry("release-k8s", dev.capstan.k8s.KubeClients.class),
          Map.entry("release-jdbc", dev.capstan.jdbc.JdbcStore.class),
          Map.entry("release-helm", dev.capstan.helm.HelmImport.class),
          Map.entry("capstan-controller", dev.capstan.controller.ReleaseResourceController.class),
          Map.entry("capstan-micrometer", dev.capstan.micrometer.ReleaseMetrics.class),
          Map.entry("capstan-opentelemetry", dev.capstan.opentelemetry.ReleaseTracing.class),
          Map.entry(
              "capstan-spring-boot-starter",
              dev.capstan.spring.boot.CapstanAutoConfiguration.class),
          Map.entry("capstan-test", dev.capstan.test.CapstanTest.class));

  @Test
  void everyPublishedJarNamesItsModuleAfterItsRootPackage() throws Exception {
    Map<String, String> names = new HashMap<>();
    for (String module : published()) {
      if (module.equals("capstan-bom")) {
        continue; // a pom, no jar
      }
      String name = text(pom(module), "properties/capstan.module.name");
      assertThat(name).as(module).matches("dev\\.capstan(\\.[a-z0-9]+)+");
      assertThat(ROOT.resolve(module).resolve("src/main/java").resolve(name.replace('.', '/')))
          .as(module + ": the module name is a package of the module")
          .isDirectory();
      assertThat(names.put(name, module)).as(name + " named twice").isNull();
    }
    assertThat(names).hasSize(published().size() - 1);
    assertThat(Files.readString(ROOT.resolve("pom.xml")))
        .contains("<Automatic-Module-Name>${capstan.module.name}</Automatic-Module-Name>");
    for (Map.Entry<String, Class<?>> e : A_CLASS_OF.entrySet()) {
      Path location = location(e.getValue());
      if (Files.isRegularFile(location)) { // a reactor build's jar (target/classes before package)
        try (JarFile jar = new JarFile(location.toFile())) {
          assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
              .as(location.toString())
              .isEqualTo(text(pom(e.getKey()), "properties/capstan.module.name"));
        }
      }
    }
  }

  private static Path location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
