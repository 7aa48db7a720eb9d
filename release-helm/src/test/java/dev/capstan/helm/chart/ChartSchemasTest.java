package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.chart.ChartException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ChartSchemas}: which references a values schema may make, and that every schema Helm's
 * loader would find in a packaged chart is read, however the archive spells its name.
 */
class ChartSchemasTest {
  @TempDir Path dir;

  private static final String SCHEMA = "{\"properties\":{\"a\":{\"$ref\":\"http://10.0.0.1/x\"}}}";

  private static final String REFUSED =
      ": /properties/a/$ref must refer within the schema (#...) or to a JSON Schema draft's"
          + " meta-schema, since Helm would load any other from its URL or file:"
          + " 'http://10.0.0.1/x'; nothing was written";

  /** The chart folder {@code src/web}: its Chart.yaml and {@code file}. */
  private Path web(String file, String content) throws IOException {
    return TestCharts.chart(
        dir.resolve("src/web"),
        Map.of("Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n", file, content));
  }

  @Test
  void onlyFragmentsAndTheDraftsMetaSchemasAreLocal() {
    for (String local :
        new String[] {
          "#",
          "#/definitions/port",
          "#meta",
          "http://json-schema.org/draft-07/schema#",
          "http://json-schema.org/draft-04/schema",
          "https://json-schema.org/draft/2020-12/schema",
          "https://json-schema.org/draft/2019-09/schema#/$defs/x",
          "http://json-schema.org/draft-07/schema#/definitions/nonNegativeInteger"
        }) {
      assertThat(ChartSchemas.local(local)).as(local).isTrue();
    }
    for (String remote :
        new String[] {
          "",
          "other.json",
          "/etc/passwd",
          "file:///etc/passwd",
          "http://169.254.169.254/latest",
          "urn:example:schema",
          "http://json-schema.org/draft-07/schema?x",
          "HTTP://json-schema.org/draft-07/schema",
          "http://json-schema.org/draft-07/schema/../../x",
          "http://json-schema.org.evil.example/draft-07/schema"
        }) {
      assertThat(ChartSchemas.local(remote)).as(remote).isFalse();
    }
  }

  @Test
  void anEntrysNameIsTheOneHelmsLoaderGivesIt() {
    assertThat(ChartSchemas.helmName("web/values.schema.json")).isEqualTo("values.schema.json");
    assertThat(ChartSchemas.helmName("anything/./charts/db/../db/values.schema.json"))
        .isEqualTo("charts/db/values.schema.json");
    assertThat(ChartSchemas.helmName("web/templates\\values.schema.json"))
        .isEqualTo("values.schema.json"); // a backslash makes it the separator
    assertThat(ChartSchemas.helmName("web//values.schema.json")).isNull(); // absolute: refused
    assertThat(ChartSchemas.helmName("web/../values.schema.json")).isNull(); // outside
    assertThat(ChartSchemas.helmName("values.schema.json")).isNull(); // no folder
  }

  @Test
  void theNamesOfSchemasAndPackagedSubchartsAreTheOnesHelmsLoaderFinds() {
    // the patterns these names were matched with, which recurse once per folder
    Pattern schema = Pattern.compile("(charts/[^/]+/)*values\\.schema\\.json");
    Pattern packaged = Pattern.compile("(charts/[^/]+/)*charts/[^/]+\\.tgz");
    for (String name :
        new String[] {
          "values.schema.json",
          "charts/db/values.schema.json",
          "charts/db/charts/cache/values.schema.json",
          "charts/db.tgz",
          "charts/db/charts/cache-1.0.0.tgz",
          "charts/.tgz",
          "charts//values.schema.json",
          "charts/db/values.schema.jsonx",
          "xvalues.schema.json",
          "templates/values.schema.json",
          "charts/db/templates/values.schema.json",
          "charts/values.schema.json",
          "chartsx/db/values.schema.json",
          "xcharts/db.tgz",
          "db.tgz",
          "charts/db/cache.tgz",
          "charts/db/charts/.tgz",
          "charts/db/charts/a.tgz/values.schema.json",
          "charts/d\nb/values.schema.json",
          ""
        }) {
      assertThat(ChartSchemas.schemaName(name)).as(name).isEqualTo(schema.matcher(name).matches());
      assertThat(ChartSchemas.packagedName(name))
          .as(name)
          .isEqualTo(packaged.matcher(name).matches());
    }
    assertThat(ChartSchemas.schemaName("charts/a/".repeat(100_000) + "values.schema.json"))
        .isTrue();
    assertThat(ChartSchemas.packagedName("charts/a/".repeat(100_000) + "charts/b.tgz")).isTrue();
  }

  @Test
  void aSchemaUnderThousandsOfSubchartFoldersIsReadWithoutOverflowingTheStack() throws IOException {
    String sub = "charts/a/".repeat(4_000) + "values.schema.json";
    Path archive =
        TestCharts.tar(
            dir.resolve("web.tgz"),
            web("values.schema.json", SCHEMA),
            "--format=pax",
            "--transform=s|^web/values.schema.json$|web/" + sub + "|");

    assertThatThrownBy(() -> ChartSchemas.check(archive, "web.tgz"))
        .isInstanceOf(ChartException.class)
        .hasMessage("chart web.tgz: " + sub + REFUSED);
  }

  /** A chart {@code web} whose subchart's subchart has a 178-character path, packed by tar. */
  @ParameterizedTest
  @ValueSource(strings = {"--format=gnu", "--format=pax", "--format=ustar", "--format=posix"})
  void aSchemaUnderALongNameIsFoundInEveryTarFormat(String format) throws IOException {
    String sub = "charts/" + "d".repeat(70) + "/charts/" + "e".repeat(70) + "/values.schema.json";
    Path archive = TestCharts.tar(dir.resolve("web.tgz"), web(sub, SCHEMA), format);

    assertThat(ChartFiles.archive(archive, "web.tgz").name()).isEqualTo("web");
    assertThatThrownBy(() -> ChartSchemas.check(archive, "web.tgz"))
        .isInstanceOf(ChartException.class)
        .hasMessage("chart web.tgz: " + sub + REFUSED);
  }

  @Test
  void aSchemaWhoseNameHasABackslashIsTheChartsOwnAsHelmReadsIt() throws IOException {
    Path archive = TestCharts.tar(dir.resolve("web.tgz"), web("files\\values.schema.json", SCHEMA));

    assertThatThrownBy(() -> ChartSchemas.check(archive, "web.tgz"))
        .hasMessage("chart web.tgz: values.schema.json" + REFUSED);
  }

  @Test
  void aSchemaInTheSecondGzipMemberIsRead() throws IOException {
    Path one = TestCharts.tar(dir.resolve("one.tgz"), web("values.schema.json", SCHEMA));
    byte[] tar;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(one))) {
      tar = in.readAllBytes();
    }
    ByteArrayOutputStream two = new ByteArrayOutputStream();
    for (int[] part : new int[][] {{0, 512}, {512, tar.length - 512}}) {
      try (GZIPOutputStream gz = new GZIPOutputStream(two)) {
        gz.write(tar, part[0], part[1]);
      }
    }
    Path archive = Files.write(dir.resolve("two.tgz"), two.toByteArray());

    assertThatThrownBy(() -> ChartSchemas.check(archive, "two.tgz"))
        .hasMessage("chart two.tgz: values.schema.json" + REFUSED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"$schema", "$id", "$dynamicRef", "$recursiveRef"})
  void everyKeywordAValidatorMayLoadIsChecked(String keyword) throws IOException {
    Path web = web("values.schema.json", "{\"" + keyword + "\": \"/etc/passwd\"}");

    assertThatThrownBy(() -> ChartSchemas.check(web, "web"))
        .hasMessageStartingWith("chart web: values.schema.json: /" + keyword + " must refer")
        .hasMessageEndingWith(": '/etc/passwd'; nothing was written");
  }

  @Test
  void aSchemaThatIsNoJsonIsRefusedNamingWhere() throws IOException {
    Path web =
        TestCharts.chart(
            dir.resolve("web"),
            Map.of("charts/db/values.schema.json", "{\"$ref\": \"#\",\n \"type\": 'object'}"));

    assertThatThrownBy(() -> ChartSchemas.check(web, "web"))
        .hasMessageStartingWith(
            "chart web: charts/db/values.schema.json is not valid JSON at line 2")
        .hasMessageEndingWith("; nothing was written");
  }
}
