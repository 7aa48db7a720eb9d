package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.chart.Capabilities;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.chart.RenderedChart;
import dev.capstan.release.chart.RepositoryAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HelmChartRenderer} with a stand-in {@code helm} (a shell script that records its
 * arguments, its environment and the config files it was given): what reaches Helm, and what never
 * does.
 */
class HelmChartRendererTest {
  @TempDir Path dir;

  private static final String CONFIG_MAP =
      "---\\n# Source: cache/templates/config.yaml\\napiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: x}\\n";

  /** A stand-in helm that reports {@code version}, records every call, and answers each verb. */
  private Path fakeHelm(String version) throws IOException {
    Path record = Files.createDirectories(dir.resolve("record"));
    Path script = dir.resolve("helm");
    Files.writeString(
        script,
        """
        #!/bin/bash
        REC=%s
        {
          printf 'CALL'; for a in "$@"; do printf ' [%%s]' "$a"; done; printf '\\n'
          env | grep -v -E '^(PWD|SHLVL|_|OLDPWD)=' | sort | sed 's/^/ENV /'
        } >> "$REC/calls.txt"
        case "$1" in
          version) printf '%s' ;;
          template)
            if [ "$2" = values ]; then printf -- '---\\n# Source: capstan-values/templates/values.json\\n{"replicas":2}\\n'
            else printf -- '%s'; fi ;;
          pull)
            cp "$HELM_REGISTRY_CONFIG" "$REC/registry.json" 2>/dev/null
            cp "$HELM_REPOSITORY_CONFIG" "$REC/repositories.yaml" 2>/dev/null
            while [ $# -gt 0 ]; do if [ "$1" = --destination ]; then cp "$REC/cache-0.1.0.tgz" "$2/"; fi; shift; done ;;
          repo) cp "$HELM_REPOSITORY_CONFIG" "$REC/repositories.yaml" ;;
        esac
        """
            .formatted(record, version, CONFIG_MAP),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    Path chart = Files.createDirectories(record.resolve("src/cache"));
    Files.writeString(chart.resolve("Chart.yaml"), "apiVersion: v2\nname: cache\nversion: 0.1.0\n");
    TestCharts.tar(record.resolve("cache-0.1.0.tgz"), record.resolve("src/cache"));
    return script;
  }

  /** The recorded calls: each its arguments and its environment. */
  private record Call(List<String> args, Map<String, String> env) {}

  private List<Call> calls() throws IOException {
    List<Call> out = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("record/calls.txt"))) {
      if (line.startsWith("CALL")) {
        List<String> args = new ArrayList<>();
        for (String part : line.substring(4).strip().split("\\] \\[", -1)) {
          args.add(part.replaceAll("^\\[|\\]$", ""));
        }
        out.add(new Call(args, new java.util.TreeMap<>()));
      } else if (line.startsWith("ENV ") && !out.isEmpty()) {
        String kv = line.substring(4);
        out.get(out.size() - 1)
            .env()
            .put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    return out;
  }

  private static ChartRequest oci() {
    return ChartRequest.of(
        new ChartReference.Oci("oci://127.0.0.1:5000/charts/cache"), "shop", "web");
  }

  @Test
  void onlyTheCallersAccessReachesHelmAndCredentialsGoInFilesNeverOnItsCommandLine()
      throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    ClusterAccess access =
        ClusterAccess.of(
                List.of("/home/me/.kube/config"),
                "dev",
                Map.of(
                    "PATH", "/usr/bin:/bin",
                    "KUBECONFIG", "/controller/kubeconfig",
                    "HELM_KUBETOKEN", "controller-token"))
            .impersonating("system:serviceaccount:shop:deployer", List.of("deployers"));

    RenderedChart chart =
        helm.render(
            oci()
                .withVersion("^0.1")
                .withValues(
                    ChartValues.none()
                        .withFile("values.yaml", "replicas: 2\n")
                        .withSet("a=b")
                        .withSetFile("config", "c.txt", "line\n"))
                .withCapabilities(new Capabilities("v1.37.2", List.of("v1", "apps/v1")))
                .withCluster(access)
                .withRepository(
                    RepositoryAccess.anonymous()
                        .withCredentials("bot", "hunter2")
                        .withCaFile("/ca.pem"))
                .withUpgrade(true));

    List<Call> calls = calls();
    assertThat(calls)
        .extracting(c -> c.args().get(0))
        .containsExactly("version", "pull", "template", "template");
    Call pull = calls.get(1);
    Call template = calls.get(2);
    String ws = String.valueOf(template.env().get("HELM_CONFIG_HOME")).replaceAll("/config$", "");
    assertThat(pull.args())
        .containsExactly(
            "pull",
            "oci://127.0.0.1:5000/charts/cache",
            "--destination",
            ws + "/pulled",
            "--version",
            "^0.1",
            "--ca-file",
            "/ca.pem");
    assertThat(Files.readString(dir.resolve("record/registry.json")))
        .isEqualTo(
            "{\"auths\":{\"127.0.0.1:5000\":{\"auth\":\""
                + Base64.getEncoder().encodeToString("bot:hunter2".getBytes(StandardCharsets.UTF_8))
                + "\"}}}");
    assertThat(template.args())
        .containsExactly(
            "template",
            "web",
            ws + "/pulled/cache-0.1.0.tgz",
            "--namespace",
            "shop",
            "--include-crds",
            "--values",
            ws + "/values/0.yaml",
            "--set",
            "a=b",
            "--set-file",
            "config=" + ws + "/set-file/0",
            "--is-upgrade",
            "--kube-version",
            "v1.37.2",
            "--api-versions",
            "apps/v1,v1",
            "--dry-run=server",
            "--kube-context",
            "dev",
            "--kube-as-user",
            "system:serviceaccount:shop:deployer",
            "--kube-as-group",
            "deployers");
    // the environment: Helm's homes in the private folder, the caller's kubeconfig and the
    // variables the caller passed, less any HELM_* or KUBECONFIG of theirs; nothing of this JVM
    assertThat(template.env().keySet())
        .containsExactlyInAnyOrder(
            "HOME",
            "TMPDIR",
            "HELM_CONFIG_HOME",
            "HELM_CACHE_HOME",
            "HELM_DATA_HOME",
            "HELM_PLUGINS",
            "HELM_REGISTRY_CONFIG",
            "HELM_REPOSITORY_CONFIG",
            "HELM_REPOSITORY_CACHE",
            "KUBECONFIG",
            "PATH");
    assertThat(template.env()).containsEntry("KUBECONFIG", "/home/me/.kube/config");
    assertThat(calls.get(3).args().subList(0, 3))
        .containsExactly("template", "values", ws + "/values-chart");
    assertThat(calls.get(3).env())
        .doesNotContainKey("KUBECONFIG"); // merging values reads no cluster
    for (Call c : calls) {
      assertThat(c.args()).noneMatch(a -> a.contains("hunter2"));
      assertThat(c.env().values())
          .noneMatch(v -> v.contains("hunter2") || v.contains("controller"));
    }
    assertThat(chart.version()).isEqualTo("0.1.0");
    assertThat(chart.values()).isEqualTo(Map.of("replicas", 2L));
    assertThat(chart.renderer()).isEqualTo("helm v3.22.0");
    assertThat(Path.of(ws)).doesNotExist(); // the private folder is gone, credentials with it
  }

  @Test
  void aRepositorysCredentialsGoToItsConfigFileAndHelm4NeedsNoFailFlag() throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v4.3.1")).withWorkRoot(dir);

    helm.render(
        ChartRequest.of(
                new ChartReference.Repository("https://charts.example", "cache"), "shop", "web")
            .withRepository(RepositoryAccess.anonymous().withCredentials("bot", "hunter2")));

    List<Call> calls = calls();
    assertThat(calls.get(1).args()).containsExactly("repo", "update", "capstan");
    assertThat(calls.get(2).args().subList(0, 2)).containsExactly("pull", "capstan/cache");
    assertThat(Files.readString(dir.resolve("record/repositories.yaml")))
        .isEqualTo(
            "{\"apiVersion\":\"\",\"generated\":\"0001-01-01T00:00:00Z\",\"repositories\":[{\"name\":"
                + "\"capstan\",\"url\":\"https://charts.example\",\"username\":\"bot\",\"password\":"
                + "\"hunter2\"}]}");
    // no cluster access: no lookup, Helm's default capabilities, no kubeconfig at all
    assertThat(calls.get(3).args()).doesNotContain("--dry-run=server", "--kube-version");
    assertThat(calls.get(3).env()).doesNotContainKey("KUBECONFIG");
  }

  @Test
  void theVersionIsCheckedOnceAndHelmBefore313IsRefusedSayingHowToGetOne() throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    assertThat(helm.version()).isEqualTo("v3.22.0");
    assertThat(helm.version()).isEqualTo("v3.22.0");
    assertThat(calls()).hasSize(1);

    assertThatThrownBy(() -> HelmVersion.check("v3.12.3", "/usr/bin/helm"))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "'/usr/bin/helm' is Helm v3.12.3; Capstan renders charts with Helm 3.13 or later, or"
                + " Helm 4: install one (https://helm.sh/docs/intro/install/) or name it with"
                + " CAPSTAN_HELM=/path/to/helm");
    assertThatThrownBy(() -> HelmVersion.check("kubectl v1.37", "/usr/bin/helm"))
        .hasMessageStartingWith("'/usr/bin/helm' is not Helm: 'version' printed 'kubectl v1.37'");
    assertThat(HelmVersion.check("v4.3.1\n", "h").describe()).isEqualTo("helm v4.3.1");
  }

  @Test
  void aMissingHelmBinaryIsOneLineSayingHowToGetOne() throws IOException {
    Path notExecutable = Files.writeString(dir.resolve("helm-text"), "#!/bin/sh\n");

    assertThatThrownBy(
            () ->
                HelmChartRenderer.fromEnvironment(
                    Map.of("PATH", dir.resolve("none").toString())::get))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "no Helm binary: 'helm' is not on PATH and CAPSTAN_HELM is not set; install Helm 3.13"
                + " or later, or 4 (https://helm.sh/docs/intro/install/), or name the binary with"
                + " CAPSTAN_HELM=/path/to/helm");
    assertThatThrownBy(
            () ->
                HelmChartRenderer.fromEnvironment(
                    Map.of("CAPSTAN_HELM", notExecutable.toString())::get))
        .hasMessage(
            "CAPSTAN_HELM names no executable file: '"
                + notExecutable
                + "'; install Helm 3.13 or later, or 4 (https://helm.sh/docs/intro/install/), or"
                + " name the binary with CAPSTAN_HELM=/path/to/helm");
    Path onPath = fakeHelm("v3.22.0");
    assertThat(HelmChartRenderer.fromEnvironment(Map.of("PATH", "/nowhere:" + dir)::get).version())
        .isEqualTo("v3.22.0");
    assertThat(onPath).exists();
  }

  @Test
  void aDirectoryChartIsRenderedInPlaceWhenItsDependenciesAreThereAndItsDigestIsOfItsFiles()
      throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    Path chart = dir.resolve("record/src/cache");

    RenderedChart first =
        helm.render(ChartRequest.of(new ChartReference.Directory(chart.toString()), "shop", "web"));
    String digest = first.digest();
    Files.writeString(chart.resolve("values.yaml"), "size: 1\n");
    RenderedChart second =
        helm.render(ChartRequest.of(new ChartReference.Directory(chart.toString()), "shop", "web"));

    assertThat(calls().get(1).args().subList(0, 3))
        .containsExactly("template", "web", chart.toString());
    assertThat(second.digest()).isNotEqualTo(digest);
    assertThat(new TreeSet<>(Arrays.asList(chart.toFile().list())))
        .containsExactly("Chart.yaml", "values.yaml");
    assertThat(first.values()).isEmpty(); // no values given: no merge run
  }

  /** A directory chart {@code name} in the test's folder: its Chart.yaml and values schema. */
  private Path chartWith(String name, String schema) throws IOException {
    return TestCharts.chart(
        dir.resolve("charts-src/" + name),
        Map.of(
            "Chart.yaml",
            "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
            "values.schema.json",
            schema));
  }

  /** Packs the chart folder {@code chart} into {@code into/charts/NAME-0.1.0.tgz}. */
  private static void packInto(Path into, Path chart) throws IOException {
    Files.createDirectories(into.resolve("charts"));
    TestCharts.tar(into.resolve("charts/" + chart.getFileName() + "-0.1.0.tgz"), chart);
  }

  /** The refusal of rendering {@code chart}, Helm having rendered nothing (only its version). */
  private ChartException refused(HelmChartRenderer helm, ChartReference chart) throws IOException {
    ChartException refused =
        catchThrowableOfType(
            ChartException.class, () -> helm.render(ChartRequest.of(chart, "shop", "web")));
    assertThat(refused).isNotNull();
    assertThat(calls()).extracting(c -> c.args().get(0)).containsExactly("version");
    return refused;
  }

  private static final String RULE =
      " must refer within the schema (#...) or to a JSON Schema draft's meta-schema, since Helm"
          + " would load any other from its URL or file: ";

  @Test
  void aSchemaReferringToAUrlIsRefusedBeforeHelmRendersNamingTheFileThePathAndTheValue()
      throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    Path chart =
        chartWith(
            "web",
            "{\"properties\":{\"port\":{\"$ref\":"
                + "\"http://169.254.169.254/latest/meta-data/iam\\n\"}}}");

    assertThat(refused(helm, new ChartReference.Directory(chart.toString())))
        .hasMessage(
            "chart "
                + chart
                + ": values.schema.json: /properties/port/$ref"
                + RULE
                + "'http://169.254.169.254/latest/meta-data/iam\\n'; nothing was written");
  }

  @Test
  void aSchemaReferringToAFileIsRefusedBeforeHelmRenders() throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v4.3.1")).withWorkRoot(dir);
    Path chart =
        chartWith(
            "web",
            """
                {"$schema": "http://json-schema.org/draft-07/schema#",
                 "definitions": {"port": {"type": "integer"}},
                 "properties": {"port": {"$ref": "#/definitions/port"},
                                "hosts": {"items": [{"$ref": "file:///etc/hostname"}]}}}
                """);

    assertThat(refused(helm, new ChartReference.Directory(chart.toString())))
        .hasMessage(
            "chart "
                + chart
                + ": values.schema.json: /properties/hosts/items/0/$ref"
                + RULE
                + "'file:///etc/hostname'; nothing was written");
  }

  @Test
  void aSubchartsSchemaInAPackagedChartInsideAPackagedChartIsRefusedBeforeHelmRenders()
      throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    Path db =
        chartWith(
            "db",
            """
                {"$schema": "http://json-schema.org/draft-07/schema#",
                 "properties": {"host": {"$ref": "https://schemas.internal.example/host.json"}}}
                """);
    Path web = chartWith("web", "{\"type\":\"object\"}");
    packInto(web, db);
    Path archive = TestCharts.tar(dir.resolve("web-0.1.0.tgz"), web);

    assertThat(refused(helm, new ChartReference.Archive(archive.toString())))
        .hasMessage(
            "chart "
                + archive
                + ": charts/db-0.1.0.tgz/values.schema.json: /properties/host/$ref"
                + RULE
                + "'https://schemas.internal.example/host.json'; nothing was written");
  }

  @Test
  void schemasReferringWithinThemselvesAndToDraftMetaSchemasRender() throws IOException {
    HelmChartRenderer helm = HelmChartRenderer.of(fakeHelm("v3.22.0")).withWorkRoot(dir);
    Path db =
        chartWith(
            "db",
            """
                {"$schema": "https://json-schema.org/draft/2020-12/schema",
                 "$defs": {"size": {"type": "integer", "minimum": 1}},
                 "properties": {"size": {"$ref": "#/$defs/size"},
                                "extra": {"$dynamicRef": "#meta"}},
                 "default": {"note": "http://not.a.ref.example"}}
                """);
    Path web =
        chartWith(
            "web",
            """
                {"$schema": "http://json-schema.org/draft-07/schema#",
                 "definitions": {"port": {"type": "integer"}},
                 "properties": {"port": {"$ref": "#/definitions/port"},
                                "replicas": {"$ref":
                                  "http://json-schema.org/draft-07/schema#/definitions/nonNegativeInteger"}}}
                """);
    packInto(web, db);

    RenderedChart rendered =
        helm.render(ChartRequest.of(new ChartReference.Directory(web.toString()), "shop", "web"));

    assertThat(calls()).extracting(c -> c.args().get(0)).containsExactly("version", "template");
    assertThat(rendered.name()).isEqualTo("web");
  }
}
