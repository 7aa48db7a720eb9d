package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What Maven Central asks of every published module: a licence, and POM metadata (url, licence,
 * scm, developers, issue management, name and description). The parent holds the shared part, the
 * BOM (which has no parent) repeats it; {@code ./mvnw -P release verify} stages the files.
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

  /** The parent's modules that are published: all but the demo/CLI and the benchmarks. */
  private static List<String> published() throws Exception {
    List<String> modules = new ArrayList<>();
    NodeList list = pom("").getElementsByTagName("module");
    for (int i = 0; i < list.getLength(); i++) {
      String m = list.item(i).getTextContent().strip();
      if (!m.equals("examples") && !m.equals("benchmarks")) {
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
    for (String unpublished : List.of("examples", "benchmarks")) {
      assertThat(text(pom(unpublished), "properties/maven.deploy.skip")).isEqualTo("true");
    }
  }
}
