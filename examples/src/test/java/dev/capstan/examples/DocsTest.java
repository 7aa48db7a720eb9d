package dev.capstan.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The front door and the pages under {@code docs/} hold together: README.md stays small, and every
 * relative link in README.md, docs/*.md and ARCHITECTURE.md (its contents list) names a file that
 * exists and, for an {@code #anchor} into a Markdown file, a heading of that file (anchors as
 * GitHub makes them from headings).
 */
class DocsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.+?) *#*$");

  @Test
  void theReadmeIsTheFrontDoorAtMostTenKib() throws IOException {
    assertThat(Files.size(ROOT.resolve("README.md"))).isLessThanOrEqualTo(10_240);
  }

  @Test
  void everyRelativeLinkOfTheDocsNamesAnExistingFileAndHeading() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    pages.add(ROOT.resolve("ARCHITECTURE.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    assertThat(pages).hasSizeGreaterThan(10);

    Map<Path, Set<String>> anchors = new HashMap<>();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      for (String link : links(Files.readString(page, UTF_8))) {
        if (link.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto: and the like: not a file here
        }
        checked++;
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        String anchor = hash < 0 ? null : link.substring(hash + 1);
        Path target = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        String where = ROOT.relativize(page) + ": (" + link + ")";
        if (!target.startsWith(ROOT) || !Files.exists(target)) {
          broken.add(where + ": no such file");
        } else if (anchor != null && target.toString().endsWith(".md")) {
          Set<String> known = anchors.get(target);
          if (known == null) {
            known = anchors(Files.readString(target, UTF_8));
            anchors.put(target, known);
          }
          if (!known.contains(anchor)) {
            broken.add(where + ": no heading with that anchor");
          }
        }
      }
    }

    assertThat(broken).isEmpty();
    assertThat(checked).isGreaterThan(50);
  }

  @Test
  void anchorsAreMadeAsGitHubMakesThem() {
    assertThat(anchors("# Coming from Helm\n## The daemon: commands in milliseconds\n"))
        .containsExactlyInAnyOrder("coming-from-helm", "the-daemon-commands-in-milliseconds");
    assertThat(anchors("## Health (`dev.capstan.release.health`)\n## Running Capstan's tests\n"))
        .containsExactlyInAnyOrder("health-devcapstanreleasehealth", "running-capstans-tests");
    assertThat(anchors("## Testing\n```\n## not a heading\n```\n## Testing\n"))
        .containsExactlyInAnyOrder("testing", "testing-1");
  }

  /** The link targets of a Markdown text, outside fenced code blocks. */
  private static List<String> links(String markdown) {
    List<String> links = new ArrayList<>();
    for (String line : prose(markdown)) {
      Matcher m = LINK.matcher(line);
      while (m.find()) {
        links.add(m.group(1));
      }
    }
    return links;
  }

  /** The anchors of a Markdown text's headings, as GitHub makes them (a repeat gets -1, -2...). */
  private static Set<String> anchors(String markdown) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(markdown)) {
      Matcher m = HEADING.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String slug =
          m.group(1)
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{N}\\p{Mn}\\p{Pc} -]", "")
              .replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum);
      anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
    }
    return anchors;
  }

  /** The lines of a Markdown text outside fenced code blocks. */
  private static List<String> prose(String markdown) {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    for (String line : markdown.lines().toList()) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced) {
        lines.add(line);
      }
    }
    return lines;
  }
}
