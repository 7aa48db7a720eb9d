package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ManifestFilesTest {
  @TempDir Path dir;

  private static @Nullable String noEnv(String name) {
    return null;
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file;
  }

  private static String keys(ReleaseFile f) {
    return String.join(", ", f.payloads().refs().stream().map(ResourceRef::key).toList());
  }

  private static InvalidReleaseFileException invalid(Runnable read) {
    return catchThrowableOfType(InvalidReleaseFileException.class, read::run);
  }

  private static final String RELEASE_HEAD =
      """
      apiVersion: capstan.dev/v1
      kind: Release
      metadata: {name: shop, namespace: shop}
      spec:
      """;

  @Test
  void inlineManifestsAndPathsSitBesideTypedEntriesInApplyOrder() throws IOException {
    write(
        "k8s/ingress.yaml",
        """
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: {name: web}
        spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}
        ---
        ---
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: web, namespace: other}
        """);
    write(
        "k8s/role.json",
        """
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": "shop-reader"}, "rules": []}
        """);
    write("k8s/notes.txt", "not a manifest");
    Path release =
        write(
            "release.yaml",
            RELEASE_HEAD
                + """
                  services:
                  - {name: web, image: "ghcr.io/acme/web:1", ports: [{name: http, port: 80}]}
                  manifests:
                  - apiVersion: batch/v1
                    kind: CronJob
                    metadata: {name: nightly}
                    spec: {schedule: "0 3 * * *", jobTemplate: {spec: {template: {spec: {}}}}}
                  - path: k8s/*.yaml
                  - path: k8s/role.json
                """);

    ReleaseFile f = ReleaseFiles.read(release, Overrides.none(), ManifestFilesTest::noEnv);

    assertThat(keys(f))
        .isEqualTo(
            "rbac.authorization.k8s.io/ClusterRole//shop-reader, ServiceAccount/other/web,"
                + " apps/Deployment/shop/web, batch/CronJob/shop/nightly, Service/shop/web,"
                + " networking.k8s.io/Ingress/shop/web");
    assertThat(f.name()).isEqualTo("shop");
    assertThat(f.toSpec().references())
        .extracting(ResourceRef::key)
        .containsExactly("Namespace//other", "Namespace//shop");
  }

  @Test
  void typedListsOfAnyGroupAndListsOfAnyApiVersionAreReadItemByItemAsKubectlDoes()
      throws IOException {
    write(
        "lists.yaml",
        """
        apiVersion: v1
        kind: ConfigMapList
        items:
        - metadata: {name: dashboards}
          data: {a.json: "{}"}
        - {apiVersion: v1, kind: ConfigMap, metadata: {name: rules}}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleList
        items:
        - {metadata: {name: reader}, rules: []}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBindingList
        items:
        - metadata: {name: reader}
          roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
          subjects: [{kind: ServiceAccount, name: default}]
        ---
        apiVersion: meta/v1
        kind: List
        items:
        - {apiVersion: v1, kind: Secret, metadata: {name: s}}
        - apiVersion: storage.k8s.io/v1
          kind: StorageClass
          metadata: {name: local-path}
          provisioner: rancher.io/local-path
        """);

    ReleaseFile f =
        ReleaseFiles.read(
            dir.resolve("lists.yaml"), new Overrides("mon", "m"), ManifestFilesTest::noEnv);

    assertThat(keys(f))
        .isEqualTo(
            "storage.k8s.io/StorageClass//local-path,"
                + " rbac.authorization.k8s.io/Role/mon/reader,"
                + " rbac.authorization.k8s.io/RoleBinding/mon/reader, ConfigMap/mon/dashboards,"
                + " ConfigMap/mon/rules, Secret/mon/s");
    assertThat(
            f.payloads().get(ResourceRef.parse("ConfigMap/mon/dashboards")).orElseThrow().content())
        .containsEntry("apiVersion", "v1")
        .containsEntry("kind", "ConfigMap");
  }

  @Test
  void aDirectoryIsReadLikeKubectlApplyF() throws IOException {
    write(
        "app/b.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: b}
        data: {k: v}
        ---
        apiVersion: v1
        kind: List
        items:
        - {apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {k: v}}
        - {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: elsewhere}}
        """);
    write("app/a.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    write("app/sub/c.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    write("app/README.md", "# not read");

    ReleaseFile f =
        ReleaseFiles.read(
            dir.resolve("app"), new Overrides("shop", "web"), ManifestFilesTest::noEnv);

    assertThat(keys(f))
        .isEqualTo(
            "ConfigMap/shop/a, ConfigMap/shop/b, Secret/shop/s, apps/Deployment/elsewhere/d");
    assertThat(f.name()).isEqualTo("web");
    assertThat(f.namespace()).isEqualTo("shop");
    ReleaseFile single =
        ReleaseFiles.read(
            dir.resolve("app/a.yml"), new Overrides(null, "one"), ManifestFilesTest::noEnv);
    assertThat(keys(single)).isEqualTo("ConfigMap/default/a");
    ReleaseFile globbed =
        ReleaseFiles.read(
            dir.resolve("app/**.yaml"), new Overrides("shop", "g"), ManifestFilesTest::noEnv);
    assertThat(keys(globbed))
        .isEqualTo(
            "ConfigMap/shop/b, ConfigMap/shop/c, Secret/shop/s, apps/Deployment/elsewhere/d");
  }

  @Test
  void aCustomResourceTakesItsScopeFromItsDefinitionInTheSameRelease() throws IOException {
    write(
        "crd.yaml",
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: gadgets.example.com}
        spec:
          group: example.com
          scope: Cluster
          names: {kind: Gadget, plural: gadgets}
          versions: [{name: v1, served: true, storage: true}]
        ---
        apiVersion: example.com/v1
        kind: Gadget
        metadata: {name: g1}
        ---
        apiVersion: example.com/v1
        kind: Widget
        metadata: {name: w1}
        """);

    ReleaseFile f =
        ReleaseFiles.read(dir, new Overrides("shop", "gadgets"), ManifestFilesTest::noEnv);

    assertThat(keys(f))
        .isEqualTo(
            "apiextensions.k8s.io/CustomResourceDefinition//gadgets.example.com,"
                + " example.com/Gadget//g1, example.com/Widget/shop/w1");
  }

  @Test
  void scalarsKeepTheTypeAndFormTheYamlGivesThem() throws IOException {
    write(
        "cm.yaml",
        """
        apiVersion: example.com/v1
        kind: Tuning
        metadata: {name: t}
        spec:
          ratio: 1.10
          exponent: 1e3
          port: 80
          big: 123456789012345678901234567890
          hex: 0x1F
          quoted: "80"
          single: '1.10'
          "yes": "yes"
          "on": true
          octal: 0o17
          nothing: ~
          env: ${HOME}
          text: |
            line
        """);

    ReleaseFile f = ReleaseFiles.read(dir, new Overrides("shop", "t"), ManifestFilesTest::noEnv);

    Manifest m = (Manifest) f.payloads().specs().get(0);
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) requireNonNull(m.content().get("spec"));
    assertThat(spec.get("ratio")).isEqualTo(new BigDecimal("1.10"));
    assertThat(spec.get("exponent")).isEqualTo(new BigDecimal("1e3"));
    assertThat(spec.get("port")).isEqualTo(80);
    assertThat(spec.get("big"))
        .isEqualTo(new java.math.BigInteger("123456789012345678901234567890"));
    assertThat(spec.get("hex")).isEqualTo(31);
    assertThat(spec.get("quoted")).isEqualTo("80");
    assertThat(spec.get("single")).isEqualTo("1.10");
    assertThat(spec.get("yes")).isEqualTo("yes");
    assertThat(spec.get("on")).isEqualTo(true);
    assertThat(spec.get("octal")).isEqualTo(15);
    assertThat(spec).doesNotContainKey("nothing"); // a null field is an absent field
    assertThat(spec.get("env")).isEqualTo("${HOME}");
    assertThat(spec.get("text")).isEqualTo("line\n");
  }

  @Test
  void everyProblemNamesTheEntryTheFileTheDocumentAndTheField() throws IOException {
    write(
        "k8s/a.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: ok}
        ---
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: {labels: {a: b}}
        ---
        - just
        - a list
        ---
        apiVersion: v1
        kind: ConfigMapList
        items:
        - {apiVersion: v1, kind: Secret, metadata: {name: s}}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: Web_1}
        ---
        kind: Service
        metadata: {name: web}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: web}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: waved, annotations: {capstan.dev/wave: "soon"}}
        """);
    write("k8s/b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x\n");
    Path release =
        write(
            "release.yaml",
            RELEASE_HEAD
                + """
                  services:
                  - {name: web, image: "ghcr.io/acme/web:1", ports: [{name: http, port: 80}]}
                  manifests:
                  - path: k8s/*.yaml
                  - path: missing/*.yaml
                  - path: nowhere.yaml
                  - 42
                  - {apiVersion: v1, kind: ConfigMap, metadata: {name: ok}}
                  - {path: k8s, extra: 1}
                """);

    InvalidReleaseFileException e =
        invalid(() -> ReleaseFiles.read(release, Overrides.none(), ManifestFilesTest::noEnv));

    assertThat(e.source()).isEqualTo(release.toString());
    assertThat(e.problems())
        .containsExactly(
            "spec.manifests[1].path: matches no file: 'missing/*.yaml'",
            "spec.manifests[2].path: no such file or directory: 'nowhere.yaml'",
            "spec.manifests[5]: a path entry must hold only path, a string (a file, directory or"
                + " glob)",
            "spec.manifests[0] (k8s/a.yaml#1): metadata.name must be a non-empty string: missing",
            "spec.manifests[0] (k8s/a.yaml#2): a manifest must be a mapping with apiVersion, kind"
                + " and metadata: a list",
            "spec.manifests[0] (k8s/a.yaml#3).items[0]: kind must be ConfigMap in a"
                + " ConfigMapList: 'Secret'",
            "spec.manifests[0] (k8s/a.yaml#4): manifest apps/Deployment: apps/Deployment name"
                + " must be a DNS-1123 subdomain (lower-case alphanumerics, '-' and '.', starting and"
                + " ending with an alphanumeric, at most 253 characters): 'Web_1'",
            "spec.manifests[0] (k8s/a.yaml#5): apiVersion must be a non-empty string: missing",
            "spec.manifests[0] (k8s/a.yaml#6): Service/shop/web is given twice (also at"
                + " spec.services (web))",
            "spec.manifests[0] (k8s/a.yaml#7): ConfigMap/shop/waved: annotation capstan.dev/wave"
                + " must be an integer from -100 to 100: 'soon'",
            // a document that is no valid YAML is reported where it is, with the documents
            // before it in its file read and checked
            "spec.manifests[0] (k8s/b.yaml#0): not valid YAML at line 4, column 1: expected ',' or"
                + " ']', but got <stream end>",
            "spec.manifests[3]: a manifest must be a mapping with apiVersion, kind and metadata:"
                + " '42'",
            "spec.manifests[4]: ConfigMap/shop/ok is given twice (also at spec.manifests[0]"
                + " (k8s/a.yaml#0))");
  }

  @Test
  void secretValuesNeverAppearInProblems() throws IOException {
    write(
        "secret.yaml",
        """
        apiVersion: v1
        kind: Secret
        metadata: {name: creds}
        stringData:
          password: "hunter2-is-secret
        """);
    write(
        "dup.yaml",
        """
        apiVersion: v1
        kind: Secret
        metadata: {name: dup}
        data: {password: aHVudGVyMg==, password: aHVudGVyMw==}
        """);

    InvalidReleaseFileException e =
        invalid(() -> ReleaseFiles.read(dir, new Overrides("shop", "s"), ManifestFilesTest::noEnv));

    assertThat(e.getMessage()).doesNotContain("hunter2", "aHVudGVy");
    assertThat(e.problems())
        .containsExactly(
            "(dup.yaml#0): not valid YAML at line 4, column 32: found duplicate key password",
            "(secret.yaml#0): not valid YAML at line 6, column 1: found unexpected end of"
                + " stream");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          enabled: yes   | 4, column 17: a plain yes, no, on, off, y or n is a boolean to kubectl (YAML 1.1) but a string in YAML 1.2: quote it for a string, or write true or false
          on: x          | 4, column 8: a plain yes, no, on, off, y or n is a boolean to kubectl (YAML 1.1) but a string in YAML 1.2: quote it for a string, or write true or false
          mode: 0440     | 4, column 14: a plain integer with a leading zero is octal to kubectl (YAML 1.1) but decimal in YAML 1.2: write 0o… for octal, drop the zero for decimal, or quote it
          size: 1_000    | 4, column 14: a plain number with underscores is a number to kubectl (YAML 1.1) but a string in YAML 1.2: quote it for a string, or drop the underscores
          ratio: .inf    | 4, column 15: a number must be finite (JSON has no infinity or NaN; quote it for a string): '.inf'
          """)
  void scalarsKubectlReadsOtherwiseAreRefusedNotGuessed(String field, String problem)
      throws IOException {
    write(
        "x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {" + field + "}\n");

    InvalidReleaseFileException e =
        invalid(() -> ReleaseFiles.read(dir, new Overrides("shop", "x"), ManifestFilesTest::noEnv));

    assertThat(e.problems()).containsExactly("(x.yaml#0): not valid YAML at line " + problem);
  }

  @Test
  void plainManifestsNeedAReleaseName() throws IOException {
    write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");

    InvalidReleaseFileException e =
        invalid(() -> ReleaseFiles.read(dir, Overrides.none(), ManifestFilesTest::noEnv));

    assertThat(e.getMessage())
        .isEqualTo(
            dir
                + ": a release of plain manifests needs a name (capstan release cast NAME -f "
                + dir
                + ")");
  }

  @Test
  void aDirectoryOrGlobThatNamesNoFileIsNamedAsTheUserGaveIt() throws IOException {
    Files.createDirectories(dir.resolve("k8s/empty"));

    InvalidReleaseFileException empty =
        invalid(
            () ->
                ReleaseFiles.read(
                    dir.resolve("k8s/empty"),
                    "k8s/empty",
                    new Overrides("shop", "web"),
                    ManifestFilesTest::noEnv));
    InvalidReleaseFileException glob =
        invalid(
            () ->
                ReleaseFiles.read(
                    dir.resolve("k8s/*.yaml"),
                    "k8s/*.yaml",
                    new Overrides("shop", "web"),
                    ManifestFilesTest::noEnv));

    assertThat(empty.problems())
        .containsExactly("directory holds no .yaml, .yml or .json file: 'k8s/empty'");
    assertThat(glob.problems()).containsExactly("matches no file: 'k8s/*.yaml'");
  }

  @Test
  void aFileOverTheSizeLimitIsRefusedWithItsSize() throws IOException {
    Path big = write("big.yaml", "#".repeat(ReleaseFiles.MAX_BYTES + 10));

    InvalidReleaseFileException e =
        invalid(
            () -> ReleaseFiles.read(big, "big.yaml", Overrides.none(), ManifestFilesTest::noEnv));

    assertThat(e.getMessage())
        .isEqualTo("big.yaml: 'big.yaml' is 33554442 bytes; the limit is 33554432 bytes (32 MiB)");
  }

  @Test
  void aReleaseFileParsedFromMemoryCannotNameFiles() {
    String yaml = RELEASE_HEAD + "  manifests: [{path: k8s}]\n";

    InvalidReleaseFileException e =
        invalid(
            () ->
                ReleaseFiles.parse(
                    yaml.getBytes(StandardCharsets.UTF_8),
                    "mem.yaml",
                    Overrides.none(),
                    ManifestFilesTest::noEnv));

    assertThat(e.problems())
        .containsExactly(
            "spec.manifests[0].path: a release file parsed from memory cannot name files; read it"
                + " with ReleaseFiles.read");
  }
}
