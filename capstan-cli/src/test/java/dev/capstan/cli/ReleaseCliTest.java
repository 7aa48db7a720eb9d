package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives every {@code capstan release} subcommand against the in-memory target. */
class ReleaseCliTest {
  @TempDir Path dir;

  private final Map<String, String> env = Map.of("WEB_DB_PASSWORD", "pw-from-env");
  private final Deque<String> answers = new ArrayDeque<>();
  private boolean interactive;
  private String out = "";
  private String err = "";

  private final Terminal terminal =
      new Terminal() {
        @Override
        public boolean interactive() {
          return interactive;
        }

        @Override
        public @Nullable String ask(String question) {
          return answers.poll();
        }
      };

  @BeforeEach
  void releaseFiles() throws IOException {
    Path examples = Path.of("../examples/releases");
    Files.copy(examples.resolve("web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(examples.resolve("web-v2.yaml"), dir.resolve("web-v2.yaml"));
  }

  private int run(String... args) {
    CliRun run = CliRun.of(terminal, env::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  private JsonNode json() throws IOException {
    return new ObjectMapper().readTree(out);
  }

  @Test
  void planShowsTheFirstInstallAndChangesNothing() {
    assertThat(run("release", "plan", "-f", "web-v1.yaml")).isZero();

    assertThat(out)
        .isEqualTo(
            """
            Plan for release demo/web: revision 1 (first install)
              = reference  Namespace//demo
              + create     PersistentVolumeClaim/demo/web-data
              + create     ConfigMap/demo/web-legacy
              + create     ConfigMap/demo/web-settings
              + create     Secret/demo/web-db
              + create     apps/Deployment/demo/web
              + create     Service/demo/web
            Summary: 6 create, 1 reference
            """);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out).isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");
  }

  /** The Widget CRD with the given versions (YAML flow items), a Widget, and a ConfigMap. */
  private static String widgets(String... versions) {
    return """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example.com
          scope: Namespaced
          names: {kind: Widget, plural: widgets}
          versions: [%s]
        ---
        apiVersion: example.com/v1
        kind: Widget
        metadata: {name: w1}
        spec: {size: 1}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {color: blue}
        """
        .formatted(String.join(", ", versions));
  }

  private static String version(String name, boolean served, boolean storage, String props) {
    return "{name: %s, served: %s, storage: %s, schema: {openAPIV3Schema: {type: object, properties:"
            .formatted(name, served, storage)
        + " {spec: {type: object, properties: {"
        + props
        + "}}}}}}";
  }

  @Test
  void crdChangesThatBreakStoredObjectsAreRefusedOnCastAndRollbackUnlessAllowed()
      throws IOException {
    String both = "size: {type: integer}, color: {type: string}";
    Files.writeString(dir.resolve("w1.yaml"), widgets(version("v1", true, true, both)));
    Files.writeString(
        dir.resolve("w2.yaml"), widgets(version("v1", true, true, "size: {type: integer}")));
    Files.writeString(
        dir.resolve("w3.yaml"),
        widgets(version("v1", true, false, both), version("v2", true, true, both)));
    String[] cast = {"release", "cast", "widgets", "-n", "demo", "--yes", "-f"};
    assertThat(run(concat(cast, "w1.yaml"))).isZero();

    // a schema narrowed: shown in the plan, refused before any write, then allowed
    assertThat(run(concat(cast, "w2.yaml"))).isEqualTo(ExitCode.BLOCKED);
    String narrowed =
        "unsafe CRD change: version v1: schema narrowed: property spec.color removed (objects"
            + " stored: at v1: example.com/Widget/demo/w1); allow unsafe CRD changes"
            + " (allowUnsafeCrdChanges, --allow-unsafe-crd-changes) to apply it anyway";
    assertThat(out)
        .contains(
            "  ✗ conflict   apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com  ("
                + narrowed
                + ")\n");
    assertThat(err)
        .isEqualTo(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: release demo/widgets has unresolved conflicts; nothing was written:"
                + " apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com\n"
                + "  - apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com: "
                + narrowed
                + "\n");
    assertThat(run("release", "history", "widgets", "-n", "demo", "-o", "json")).isZero();
    assertThat(json()).hasSize(1);
    // allowed by the release file's own option, or by the flag
    Files.writeString(
        dir.resolve("w2-release.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: widgets, namespace: demo}
        spec:
          options: {allowUnsafeCrdChanges: true}
          manifests: [{path: w2.yaml}]
        """);
    assertThat(run("release", "plan", "-f", "w2-release.yaml")).isZero();
    assertThat(out)
        .contains(
            "  ~ update     apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com "
                + " (unsafe CRD change, applied because unsafe CRD changes are allowed: version v1:"
                + " schema narrowed: property spec.color removed (objects stored: at v1:"
                + " example.com/Widget/demo/w1))\n");
    assertThat(run(concat(cast, "w2.yaml", "--allow-unsafe-crd-changes"))).isZero();

    // v2 the storage version, v1 kept: stored at both; a rollback to revision 2 drops v2
    assertThat(run(concat(cast, "w3.yaml"))).isZero();
    String[] rollback = {"release", "rollback", "widgets", "-n", "demo", "--to", "2", "--yes"};
    String removedV2 =
        "unsafe CRD change: version v2: stored version removed (status.storedVersions lists it, so"
            + " objects may still be stored at v2 and could no longer be read); version v1: schema"
            + " narrowed: property spec.color removed (objects stored: at v1:"
            + " example.com/Widget/demo/w1); migrate the objects stored at v2 to a version"
            + " the CRD keeps (write each again there, resetting its metadata.managedFields, whose"
            + " entries at v2 would fail every later apply) and remove v2 from its"
            + " status.storedVersions, then cast again (the"
            + " API server refuses the change until then)";
    assertThat(run(rollback)).isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .contains(
            "("
                + removedV2
                + "; and allow unsafe CRD changes (allowUnsafeCrdChanges,"
                + " --allow-unsafe-crd-changes) for the rest)\n");
    // allowed, the narrowed schema would go through; the removed stored version still does not
    assertThat(run(concat(rollback, "--allow-unsafe-crd-changes"))).isEqualTo(ExitCode.BLOCKED);
    assertThat(out).contains("(" + removedV2 + ")\n");
    assertThat(run("release", "history", "widgets", "-n", "demo", "-o", "json")).isZero();
    assertThat(json()).hasSize(3);
  }

  private static String app(String password, String level) {
    return """
        apiVersion: v1
        kind: Secret
        metadata: {name: db}
        stringData: {password: %s}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cfg}
        data: {level: %s}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers:
              - name: web
                image: web:1
                envFrom: [{secretRef: {name: db}}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: worker}
        spec:
          selector: {matchLabels: {app: worker}}
          template:
            metadata: {labels: {app: worker}}
            spec:
              containers:
              - name: worker
                image: worker:1
                env:
                - name: LEVEL
                  valueFrom: {configMapKeyRef: {name: cfg, key: level}}
        """
        .formatted(password, level);
  }

  @Test
  void configChangesRollOutAndSecretValuesCanStayOutOfRecords() throws IOException {
    Files.writeString(dir.resolve("app-v1.yaml"), app("one-S3CR3T", "info"));
    Files.writeString(dir.resolve("app-v2.yaml"), app("two-S3CR3T", "info"));
    Files.writeString(
        dir.resolve("db-v1.yaml"),
        app("one-S3CR3T", "info").substring(0, app("one-S3CR3T", "info").indexOf("---")));
    String[] cast = {"release", "cast", "app", "-n", "demo", "--create-namespace", "--yes"};
    assertThat(run(concat(cast, "-f", "app-v1.yaml", "--no-record-secret-values"))).isZero();
    assertThat(run("release", "plan", "app", "-n", "demo", "-f", "app-v1.yaml")).isZero();
    assertThat(out)
        .endsWith("Summary: 4 unchanged, 1 reference\nNo changes: every object is up to date.\n");

    assertThat(run("release", "plan", "app", "-n", "demo", "-f", "app-v2.yaml")).isZero();
    assertThat(hashesHidden(out))
        .isEqualTo(
            """
            Plan for release demo/app: revision 2 (from 1)
              = reference  Namespace//demo
              ~ update     Secret/demo/db
                  ~ stringData.password: (changed)
              ~ update     apps/Deployment/demo/web  (config changed: Secret/demo/db)
                  - spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
                  + spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
            Summary: 2 update, 2 unchanged, 1 reference
            """);
    assertThat(run(concat(cast, "-f", "app-v2.yaml", "--no-record-secret-values"))).isZero();

    assertThat(run("release", "rollback", "app", "-n", "demo", "--to", "1", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .contains(
            "payloads[Secret/demo/db]: revision 1 of demo/app was recorded without this Secret's"
                + " values (recordSecretValues off); give it again to roll back")
        .doesNotContain("at dev.capstan");
    assertThat(
            run(
                "release",
                "rollback",
                "app",
                "-n",
                "demo",
                "--to",
                "1",
                "--yes",
                "--secrets",
                "db-v1.yaml"))
        .isZero();
    assertThat(out).endsWith("Release demo/app rolled back to revision 1 as revision 3.\n");
    assertThat(run("release", "get", "app", "-n", "demo", "-o", "json")).isZero();
    assertThat(out).doesNotContain("S3CR3T").doesNotContain("secretHashKey");
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void planAndCastShowTheFieldDiffAndJsonCarriesItWithoutSecretValues() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    Files.writeString(
        dir.resolve("web-v3.yaml"),
        Files.readString(dir.resolve("web-v2.yaml"))
            .replace("stringData: {user: web}", "stringData: {user: web-admin-7Q}"));

    String plan =
        """
        Plan for release demo/web: revision 2 (from 1)
          = reference  Namespace//demo
          ~ update     ConfigMap/demo/web-settings
              - data.log-level: "info"
              + data.log-level: "debug"
          ~ update     Secret/demo/web-db
              ~ data.user: (changed)
          ~ update     apps/Deployment/demo/web  (config changed: ConfigMap/demo/web-settings, Secret/demo/web-db)
              - spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
              + spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
              - spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.0.0"
              + spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.1.0"
          - prune      ConfigMap/demo/web-legacy  ⚠ destructive
        Summary: 3 update, 2 unchanged, 1 prune, 1 reference
        """;

    // config hashes cover the Secret's hash keyed per release: a new key every run
    assertThat(run("release", "plan", "-f", "web-v3.yaml")).isZero();
    assertThat(hashesHidden(out)).isEqualTo(plan);
    assertThat(run("release", "cast", "-f", "web-v3.yaml", "--dry-run")).isZero();
    assertThat(hashesHidden(out)).isEqualTo(plan + "Dry run: nothing was applied.\n");
    assertThat(run("release", "plan", "-f", "web-v3.yaml", "-o", "json")).isZero();
    assertThat(out).doesNotContain("web-admin-7Q").doesNotContain("pw-from-env");
    Map<String, String> diffs = new TreeMap<>();
    json()
        .get("changes")
        .forEach(c -> diffs.put(c.get("key").asText(), String.valueOf(c.get("diff"))));
    assertThat(diffs)
        .containsEntry(
            "Secret/demo/web-db", "[{\"op\":\"replace\",\"path\":\"data.user\",\"secret\":true}]")
        .containsEntry(
            "ConfigMap/demo/web-settings",
            "[{\"op\":\"replace\",\"path\":\"data.log-level\",\"before\":\"info\",\"after\":\"debug\"}]")
        .containsEntry("Service/demo/web", "null")
        .containsEntry("ConfigMap/demo/web-legacy", "null");
  }

  @Test
  void castUpgradeHistoryRollbackAndUninstall() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(out).endsWith("Release demo/web revision 1 deployed.\n");
    // the in-memory cluster keeps the cast's intent with its lease: no pending revision first
    assertThat(err)
        .doesNotContain("as pending")
        .contains("capstan: demo/web: create Secret/demo/web-db done")
        .contains("capstan: demo/web: recorded revision 1 as deployed");

    // v2 prunes: no terminal and no --yes refuses, nothing changes
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isEqualTo(ExitCode.NOT_CONFIRMED);
    assertThat(out).contains("  - prune      ConfigMap/demo/web-legacy  ⚠ destructive");
    assertThat(err)
        .contains("confirmation needed and no terminal to ask at; pass --yes to proceed.");
    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out).contains("Revision:    1\n");

    // at a terminal, only the exact answer yes proceeds
    interactive = true;
    answers.add("y");
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isEqualTo(ExitCode.NOT_CONFIRMED);
    answers.add("yes");
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isZero();
    assertThat(out).endsWith("Release demo/web revision 2 deployed.\n");
    interactive = false;

    assertThat(run("release", "history", "web", "-n", "demo")).isZero();
    assertThat(out.lines())
        .hasSize(3)
        .element(1)
        .asString()
        .startsWith("2         deployed    1.1.0    -");
    assertThat(out.lines().toList().get(2)).startsWith("1         superseded  1.0.0    -");

    assertThat(run("release", "rollback", "web", "-n", "demo", "--to", "1", "-o", "json")).isZero();
    JsonNode rolled = json();
    assertThat(rolled.get("release").get("revision").asInt()).isEqualTo(3);
    assertThat(rolled.get("release").get("description").asText()).isEqualTo("rollback to 1");
    assertThat(rolled.get("plan").get("summary").get("create").asInt()).isEqualTo(1);

    assertThat(run("release", "uninstall", "web", "-n", "demo")).isEqualTo(ExitCode.NOT_CONFIRMED);
    assertThat(
            run(
                "release",
                "uninstall",
                "web",
                "-n",
                "demo",
                "--wait-for-deletion",
                "--timeout",
                "1m",
                "--yes"))
        .isZero();
    assertThat(out)
        .isEqualTo(
            """
            deleted  Service/demo/web
            deleted  apps/Deployment/demo/web
            deleted  Secret/demo/web-db
            deleted  ConfigMap/demo/web-legacy
            deleted  ConfigMap/demo/web-settings
            retained PersistentVolumeClaim/demo/web-data (data kept)
            Release demo/web uninstalled (history kept; --purge removes it).
            """);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out.lines()).hasSize(1);
    assertThat(run("release", "list", "-n", "demo", "--all", "-o", "json")).isZero();
    assertThat(json().get(0).get("status").asText()).isEqualTo("uninstalled");
    assertThat(json().get(0).get("retained").get(0).asText())
        .isEqualTo("PersistentVolumeClaim/demo/web-data");

    // the reinstall takes the retained volume back without --adopt (an adoption: confirmed)
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--yes")).isZero();
    assertThat(out)
        .contains(
            "  ↪ adopt      PersistentVolumeClaim/demo/web-data  (re-adopt, retained earlier)");
    assertThat(run("release", "uninstall", "web", "-n", "demo", "--purge", "--yes")).isZero();
    assertThat(run("release", "get", "web", "-n", "demo")).isEqualTo(ExitCode.FAILED);
    assertThat(err).isEqualTo("capstan: release demo/web not found\n");
  }

  @Test
  void castWithYesShowsThePlanItCastsWithoutDiffsUnlessAsked() {
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--yes")).isZero();

    // --yes: the plan made under the lease is shown before the result, without field diffs
    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes")).isZero();
    assertThat(out)
        .startsWith("Plan for release demo/web: revision 2")
        .contains("  ~ update     ConfigMap/demo/web-settings")
        .contains("  - prune      ConfigMap/demo/web-legacy  ⚠ destructive")
        .doesNotContain("data.log-level")
        .endsWith("Release demo/web revision 2 deployed.\n");
    assertThat(out.indexOf("Plan for release")).isLessThan(out.indexOf("Release demo/web"));

    // --yes --diff: the reviewed path, field diffs included
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--yes", "--diff")).isZero();
    assertThat(out)
        .contains("      - data.log-level: \"debug\"")
        .contains("      + data.log-level: \"info\"")
        .endsWith("Release demo/web revision 3 deployed.\n");
  }

  @Test
  void jsonOutputsHaveTheDocumentedShapeAndNoSecrets() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--dry-run", "-o", "json")).isZero();
    assertThat(json().get("dryRun").asBoolean()).isTrue();
    assertThat(json().get("plan").get("changes")).hasSize(7);

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "-o", "json")).isZero();
    JsonNode cast = json();
    assertThat(cast.get("dryRun").asBoolean()).isFalse();
    assertThat(cast.get("release").get("status").asText()).isEqualTo("deployed");
    assertThat(cast.get("release").get("owns")).hasSize(6);
    assertThat(cast.get("release").get("owns").get(3).get("key").asText())
        .isEqualTo("Secret/demo/web-db");
    assertThat(cast.get("release").get("owns").get(3).has("contentHash")).isFalse();

    assertThat(run("release", "get", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().get("revision").asInt()).isEqualTo(1);
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json()).hasSize(1);
    assertThat(run("release", "plan", "-f", "web-v1.yaml", "-o", "json")).isZero();
    assertThat(json().get("changesNothing").asBoolean()).isTrue();
    assertThat(Files.readString(dir.resolve(".capstan/state.json"))).contains("\"web-db\"");
    assertThat(out + err).doesNotContain("pw-from-env");
  }

  @Test
  void aConflictIsRefusedWithExitCode3AndNothingIsApplied() throws IOException {
    Files.writeString(
        dir.resolve("other.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: other, namespace: demo}
        spec:
          configMaps: [{name: web-settings, data: {x: "1"}}]
        """);
    assertThat(run("release", "cast", "-f", "other.yaml")).isZero();

    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isEqualTo(ExitCode.BLOCKED);

    assertThat(out)
        .contains(
            "  ✗ conflict   ConfigMap/demo/web-settings  (owned by release demo/other; never taken"
                + " over)");
    assertThat(err)
        .contains("capstan: release demo/web has unresolved conflicts; nothing was written");
    assertThat(run("release", "plan", "-f", "web-v1.yaml")).isEqualTo(ExitCode.BLOCKED);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out).doesNotContain("web  ");
  }

  @Test
  void badFlagsAndFilesGiveOneClearLineAndExitCode2() throws IOException {
    assertThat(run("release", "cast", "-f", "missing.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: -f: no such file: 'missing.yaml'\n");

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--timeout", "soon"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err.lines().findFirst())
        .contains(
            "capstan: Invalid value for option '--timeout': must be a positive duration such as 90s,"
                + " 15m or 1h30m: 'soon'");

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "-o", "xml"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith(
            "capstan: Invalid value for option '--output': expected one of [text, json, yaml, name,"
                + " wide]");

    Files.writeString(
        dir.resolve("bad.yaml"),
        "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: Web}\n");
    assertThat(run("release", "cast", "-f", "bad.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: bad.yaml: metadata: release name must be a DNS-1123 label of at most 53"
                + " characters (lower-case alphanumerics and '-', starting and ending with an"
                + " alphanumeric): 'Web'\n");

    assertThat(run("release", "rollback", "web", "-n", "demo", "--to", "-1"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(run("release", "frobnicate")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            """
            capstan: unknown command 'frobnicate' for 'capstan release'
            Try 'capstan release --help'.
            """);
    assertThat(Files.exists(dir.resolve(".capstan/state.json"))).isTrue();
    assertThat(run("release", "list", "-n", "demo", "--all")).isZero();
    assertThat(out.lines()).hasSize(1);
  }

  @Test
  void listAllNamespacesNamesAndWideColumns() throws IOException {
    Files.writeString(
        dir.resolve("settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n");
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--yes")).isZero();
    assertThat(run("release", "cast", "app", "-n", "default", "-f", "settings.yaml", "--yes"))
        .isZero();
    assertThat(run("release", "cast", "zed", "-n", "demo", "-f", "settings.yaml", "--yes"))
        .isZero();
    assertThat(run("release", "uninstall", "zed", "-n", "demo", "--yes")).isZero();

    assertThat(run("release", "list", "-A")).isZero();
    assertThat(out.lines().map(l -> l.replaceAll("\\d{4}-\\d\\d-\\d\\dT\\S+", "T")))
        .containsExactly(
            "NAMESPACE  NAME  REVISION  STATUS    VERSION  UPDATED",
            "default    app   1         deployed  -        T",
            "demo       web   1         deployed  1.0.0    T");
    assertThat(run("release", "ls", "--all-namespaces", "--all", "-o", "name")).isZero();
    assertThat(out).isEqualTo("default/app\ndemo/web\ndemo/zed\n");
    assertThat(run("release", "list", "-n", "demo", "-o", "name")).isZero();
    assertThat(out).isEqualTo("web\n");
    assertThat(run("release", "list", "-n", "demo", "--all", "-o", "wide")).isZero();
    // the columns, two spaces apart at least (the times' widths vary)
    assertThat(out.lines().map(l -> l.replaceAll("\\d{4}-\\d\\d-\\d\\dT\\S+", "T").split("  +")))
        .containsExactly(
            new String[] {
              "NAME", "REVISION", "STATUS", "VERSION", "UPDATED", "OBJECTS", "DESCRIPTION"
            },
            new String[] {"web", "1", "deployed", "1.0.0", "T", "6", "-"},
            new String[] {"zed", "1", "uninstalled", "-", "T", "0", "-"});
    assertThat(run("release", "list", "-A", "-o", "json")).isZero();
    assertThat(json())
        .extracting(r -> r.get("namespace").asText() + "/" + r.get("name").asText())
        .containsExactly("default/app", "demo/web");
    assertThat(run("release", "get", "web", "-n", "demo", "-o", "name")).isZero();
    assertThat(out).isEqualTo("web\n");

    assertThat(run("release", "list", "-A", "-n", "demo")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo("capstan: -A lists every namespace and -n names one: pass one of them\n");
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "name"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: -o name: this command prints text, json, yaml; only release list prints"
                + " name and wide, and release get name\n");
    assertThat(run("release", "get", "web", "-n", "demo", "-o", "wide"))
        .isEqualTo(ExitCode.INVALID);
  }

  @Test
  void aDirectoryOfPlainManifestsIsOneReleaseNamedOnTheCommandLine() throws IOException {
    String shop = Path.of("../examples/src/main/resources/apps/shop").toAbsolutePath().toString();

    assertThat(run("release", "plan", "shop", "-n", "shop", "-f", shop, "--create-namespace"))
        .isZero();
    assertThat(out)
        .startsWith(
            """
            Plan for release shop/shop: revision 1 (first install)
              = reference  Namespace//shop  (missing; created because createNamespace is set)
              + create     batch/Job/shop/migrate
              + create     apiextensions.k8s.io/CustomResourceDefinition//widgets.shop.example.com
              + create     rbac.authorization.k8s.io/ClusterRole//shop-metrics-reader
            """)
        .endsWith("Summary: 19 create, 1 reference\n");
    assertThat(run("release", "cast", "shop", "-n", "shop", "-f", shop, "--create-namespace"))
        .isZero();
    assertThat(out).endsWith("Release shop/shop revision 1 deployed.\n");
    assertThat(run("release", "plan", "-n", "shop", "-f", shop, "--release", "shop", "-o", "json"))
        .isZero();
    assertThat(json().get("changesNothing").asBoolean()).isTrue();
    assertThat(out + err).doesNotContain("czNjcmV0LWRiLXBhc3N3b3Jk", "s3cret-db-password");

    assertThat(run("release", "uninstall", "shop", "-n", "shop", "--yes")).isZero();
    assertThat(out)
        .startsWith("deleted  shop.example.com/Widget/shop/blue\n")
        .contains(
            "retained apiextensions.k8s.io/CustomResourceDefinition//widgets.shop.example.com (a"
                + " CRD: kept with its custom resources; --delete-crds deletes it)\n");
    assertThat(run("release", "cast", "-n", "shop", "-f", shop)).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: "
                + shop
                + ": a release of plain manifests needs a name (capstan release cast NAME -f "
                + shop
                + ")\n");
  }

  @Test
  void badManifestsAreEachReportedWithFileDocumentAndFieldBeforeAnyWrite() throws IOException {
    Files.createDirectories(dir.resolve("k8s"));
    Files.writeString(
        dir.resolve("k8s/app.yaml"),
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        ---
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: {annotations: {a: b}}
        ---
        apiVersion: v1
        kind: Secret
        metadata: {name: creds}
        stringData: {password: on}
        """);
    Files.writeString(
        dir.resolve("k8s/more.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n");

    assertThat(run("release", "cast", "app", "-n", "demo", "-f", "k8s"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(err)
        .isEqualTo(
            """
            capstan: k8s: 3 problems:
              - (app.yaml#1): metadata.name must be a non-empty string: missing
              - (app.yaml#2): not valid YAML at line 12, column 24: a plain yes, no, on, off, y or \
            n is a boolean to kubectl (YAML 1.1) but a string in YAML 1.2: quote it for a string, or \
            write true or false
              - (more.yaml#0): ConfigMap/demo/settings is given twice (also at (app.yaml#0))
            """);
    assertThat(run("release", "list", "-n", "demo", "--all")).isZero();
    assertThat(out.lines()).hasSize(1);
  }

  @Test
  void aSecretsValuesShowInNoErrorAndNoPlanWhateverIsWrongWithIt() throws IOException {
    Files.writeString(
        dir.resolve("ro6.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: bo, namespace: demo}
        spec:
          secrets:
          - name: s
            stringData: {password: 424242424242, pin: 0.5, flag: true}
            data: {cert: 31337}
        """);
    String secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\n";
    Files.writeString(
        dir.resolve("field.yaml"), secret + "stringdata: {password: Sup3rS3cretPW8}\n");
    Files.writeString(
        dir.resolve("field2.yaml"), secret + "stringdata: {password: Sup3rS3cretPW8b}\n");
    Files.writeString(dir.resolve("b64.yaml"), secret + "data: {token: NotB64!!Sup3rS3cretPW3}\n");
    Files.writeString(
        dir.resolve("type.yaml"), secret + "type: 42\nstringData: {password: Sup3rS3cretPW9}\n");
    StringBuilder seen = new StringBuilder();

    assertThat(run("release", "plan", "-f", "ro6.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: ro6.yaml: 4 problems:\n"
                + "  - spec.secrets[0].stringData.password: must be a string; quote it to keep the"
                + " text (the value is not shown)\n"
                + "  - spec.secrets[0].stringData.pin: must be a string; quote it to keep the text"
                + " (the value is not shown)\n"
                + "  - spec.secrets[0].stringData.flag: must be a string; quote it to keep the text"
                + " (the value is not shown)\n"
                + "  - spec.secrets[0].data.cert: must be a string; quote it to keep the text (the"
                + " value is not shown)\n");
    seen.append(out).append(err);

    assertThat(run("release", "cast", "s", "-n", "demo", "-f", "field.yaml", "--yes")).isZero();
    seen.append(out).append(err);
    assertThat(run("release", "plan", "s", "-n", "demo", "-f", "field2.yaml")).isZero();
    assertThat(out)
        .isEqualTo(
            """
            Plan for release demo/s: revision 2 (from 1)
              = reference  Namespace//demo
              ~ update     Secret/demo/creds
                  ~ stringdata.password: (changed)
            Summary: 1 update, 1 reference
            """);
    seen.append(out).append(err);
    assertThat(run("release", "plan", "s", "-n", "demo", "-f", "field2.yaml", "-o", "json"))
        .isZero();
    assertThat(json().get("changes").get(1).get("diff").toString())
        .isEqualTo("[{\"op\":\"replace\",\"path\":\"stringdata.password\",\"secret\":true}]");
    seen.append(out).append(err);

    for (String file : new String[] {"b64.yaml", "type.yaml"}) {
      assertThat(run("release", "cast", "s", "-n", "demo", "-f", file, "--yes"))
          .isEqualTo(ExitCode.INVALID);
      assertThat(err)
          .isEqualTo(
              "capstan: working on the in-memory cluster (state in "
                  + dir.resolve(".capstan/state.json")
                  + ")\ncapstan: invalid release demo/s (1 problem; nothing was written):\n  -"
                  + " Secret demo/creds: "
                  + (file.equals("b64.yaml")
                      ? "data['token'] must be base64"
                      : "type must be a string")
                  + " (the value is not shown)\n");
      seen.append(out).append(err);
    }
    assertThat(run("release", "get", "s", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().get("revision").asInt()).isEqualTo(1);

    assertThat(seen.toString()).doesNotContain("4242").doesNotContain("Sup3rS3cret");
  }

  @Test
  void anEnvVarNamedAsASecretShowsItsValueInNoErrorAndNoPlan() throws IOException {
    String head =
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: api, namespace: demo}
        spec:
          services:
          - name: api
            image: acme/api:1.0
        """;
    Files.writeString(
        dir.resolve("bad.yaml"), head + "    env: {DB_PASSWORD: 918273645, LOG_LEVEL: 3}\n");
    Files.writeString(
        dir.resolve("v1.yaml"), head + "    env: {DB_PASSWORD: hunter2-first, LOG_LEVEL: info}\n");
    Files.writeString(
        dir.resolve("v2.yaml"),
        head
            + "    env: {DB_PASSWORD: hunter2-second, LOG_LEVEL: debug, API_TOKEN: hunter2-tok}\n");
    StringBuilder seen = new StringBuilder();

    assertThat(run("release", "plan", "-f", "bad.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: bad.yaml: 2 problems:\n"
                + "  - spec.services[0].env.DB_PASSWORD: must be a string; quote it to keep the"
                + " text (the value is not shown)\n"
                + "  - spec.services[0].env.LOG_LEVEL: must be a string; quote it to keep the"
                + " text: \"3\"\n");
    seen.append(out).append(err);
    assertThat(run("release", "cast", "-f", "v1.yaml", "--yes")).isZero();
    seen.append(out).append(err);
    assertThat(run("release", "plan", "-f", "v2.yaml")).isZero();
    assertThat(out)
        .isEqualTo(
            """
            Plan for release demo/api: revision 2 (from 1)
              = reference  Namespace//demo
              ~ update     apps/Deployment/demo/api
                  ~ spec.template.spec.containers[name=api].env[name=API_TOKEN]: (added)
                  ~ spec.template.spec.containers[name=api].env[name=DB_PASSWORD].value: (changed)
                  - spec.template.spec.containers[name=api].env[name=LOG_LEVEL].value: "info"
                  + spec.template.spec.containers[name=api].env[name=LOG_LEVEL].value: "debug"
            Summary: 1 update, 1 reference
            """);
    seen.append(out).append(err);
    assertThat(run("release", "plan", "-f", "v2.yaml", "-o", "json")).isZero();
    String env = "spec.template.spec.containers[name=api].env";
    assertThat(json().get("changes").get(1).get("diff").toString())
        .isEqualTo(
            "[{\"op\":\"add\",\"path\":\""
                + env
                + "[name=API_TOKEN]\",\"secret\":true},{\"op\":\"replace\",\"path\":\""
                + env
                + "[name=DB_PASSWORD].value\",\"secret\":true},{\"op\":\"replace\",\"path\":\""
                + env
                + "[name=LOG_LEVEL].value\",\"before\":\"info\",\"after\":\"debug\"}]");
    seen.append(out).append(err);
    assertThat(run("release", "plan", "-f", "v2.yaml", "--out", "v2.plan.json")).isZero();
    seen.append(out).append(err).append(Files.readString(dir.resolve("v2.plan.json")));
    assertThat(run("release", "cast", "-f", "v2.yaml", "--yes", "--debug")).isZero();
    seen.append(out).append(err);
    assertThat(run("release", "get", "api", "-n", "demo", "-o", "json")).isZero();
    seen.append(out).append(err);

    assertThat(seen.toString()).doesNotContain("918273645").doesNotContain("hunter2");
  }

  @Test
  void aHeldLeaseGivesExitCode4() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    Path state = dir.resolve(".capstan/state.json");
    ObjectMapper mapper = new ObjectMapper();
    var root = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(state.toFile());
    var cluster =
        dev.capstan.release.memory.InMemoryCluster.importState(
            mapper.writeValueAsBytes(root.get("releases")));
    java.time.Instant now = java.time.Instant.now();
    cluster.putLease(
        "demo", "web", new dev.capstan.release.model.Lease("ci-job-42", now, now.plusSeconds(600)));
    root.set("releases", mapper.readTree(cluster.exportState()));
    mapper.writeValue(state.toFile(), root);

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes")).isEqualTo(ExitCode.LOCKED);
    assertThat(err).contains("capstan: release demo/web is locked by ci-job-42 (renewed ");
  }

  @Test
  void aLoadBalancerServiceWithoutAnAddressFailsTheCastUnlessNoWaitForLoadBalancerIsGiven()
      throws IOException {
    assertThat(run("release", "list", "-n", "demo")).isZero();
    Path state = dir.resolve(".capstan/state.json");
    ObjectMapper mapper = new ObjectMapper();
    var root = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(state.toFile());
    var cluster =
        dev.capstan.release.memory.InMemoryCluster.importState(
            mapper.writeValueAsBytes(root.get("releases")));
    // what a cluster without a load balancer controller reports: no address, ever
    cluster.reportStatus(
        dev.capstan.release.model.ResourceRef.of(
            dev.capstan.release.model.Kind.SERVICE, "demo", "edge"),
        Map.of("loadBalancer", Map.of()));
    root.set("releases", mapper.readTree(cluster.exportState()));
    mapper.writeValue(state.toFile(), root);
    Files.writeString(
        dir.resolve("edge.yaml"),
        """
        apiVersion: v1
        kind: Service
        metadata: {name: edge}
        spec: {type: LoadBalancer, selector: {app: edge}, ports: [{port: 80}]}
        """);

    assertThat(run("release", "cast", "edge", "-n", "demo", "-f", "edge.yaml", "--timeout", "2m"))
        .isEqualTo(ExitCode.FAILED);
    assertThat(err)
        .contains(
            "verify failed: not ready after 2m: Service demo/edge: type LoadBalancer has no"
                + " address yet (status.loadBalancer.ingress)");

    assertThat(
            run(
                "release",
                "cast",
                "edge",
                "-n",
                "demo",
                "-f",
                "edge.yaml",
                "--no-wait-for-load-balancer"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release demo/edge revision 2 deployed.\n");
  }

  private void deployment(String app) throws IOException {
    Files.writeString(
        dir.resolve("api.yaml"),
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: api}
        spec:
          selector: {matchLabels: {app: APP}}
          template:
            metadata: {labels: {app: APP}}
            spec: {containers: [{name: api, image: "acme/api:1"}]}
        """
            .replace("APP", app));
  }

  @Test
  void whatTheServerRefusesIsAConflictOfThePlanUnlessNoVerifyIsGiven() throws IOException {
    deployment("api");
    assertThat(run("release", "cast", "api", "-n", "demo", "-f", "api.yaml", "--yes"))
        .as(err)
        .isZero();
    deployment("api-v2"); // a selector is immutable: the server refuses the update

    assertThat(run("release", "plan", "api", "-n", "demo", "-f", "api.yaml"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out)
        .contains(
            "  ✗ conflict   apps/Deployment/demo/api  (refused by the API server's dry run:"
                + " dry-run apply Deployment demo/api failed (HTTP 422): Deployment \"api\" is"
                + " invalid: spec.selector: field is immutable)\n");
    assertThat(run("release", "cast", "api", "-n", "demo", "-f", "api.yaml", "--yes"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(err).contains("nothing was written");
    // --atomic casts unverified unless --verify: the write itself is refused
    assertThat(run("release", "plan", "api", "-n", "demo", "-f", "api.yaml", "--atomic")).isZero();
    assertThat(
            run("release", "plan", "api", "-n", "demo", "-f", "api.yaml", "--atomic", "--verify"))
        .isEqualTo(ExitCode.BLOCKED);

    assertThat(
            run("release", "cast", "api", "-n", "demo", "-f", "api.yaml", "--yes", "--no-verify"))
        .isEqualTo(ExitCode.FAILED);
    assertThat(err).contains("spec.selector: field is immutable; the API server cannot update");
  }

  @Test
  void aCastThatTakesOverFromADeadCasterPlansAgainAndDeploys() throws IOException {
    leaveADeadCasterOfV2();

    // the next reviewed cast (--diff: the plan is made first, then cast) plans on the pending
    // revision 2, takes the lapsed lease over and records revision 2 failed: its plan is stale, so
    // it plans again and deploys revision 3 (a plain --yes cast plans under the lease: no re-plan)
    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes", "--diff", "--wait", "1s"))
        .isZero();

    assertThat(err)
        .contains(
            ", taking over from killed-caster (expired ",
            "\ncapstan: demo/web: recorded revision 2 as failed\n"
                + "capstan: demo/web: the release moved since the plan; planning again: the record"
                + " of revision 2 changed since the plan (version 2 → 3, now failed)\n"
                + "capstan: demo/web: update ConfigMap/demo/web-settings done\n");
    // the plan shown again is the plan cast: it finishes the failed revision 2
    assertThat(out.split("Plan for release demo/web: revision 3 \\(from 2\\)\n", -1)).hasSize(3);
    assertThat(out)
        .contains(
            "  ~ update     ConfigMap/demo/web-settings  (finishes failed revision 2: the live"
                + " object still holds what revision 1 applied)\n")
        .endsWith("Release demo/web revision 3 deployed.\n");
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().findValuesAsText("status"))
        .containsExactly("deployed", "failed", "superseded");
  }

  @Test
  void aYesCastTakesOverFromADeadCasterUnderTheLeaseWithoutPlanningAgain() throws IOException {
    leaveADeadCasterOfV2();

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes", "--wait", "1s")).isZero();

    // the lease first: the dead caster's revision 2 is recorded failed before the plan is made
    assertThat(err)
        .contains(
            ", taking over from killed-caster (expired ",
            """

            capstan: demo/web: recorded revision 2 as failed
            capstan: demo/web: update ConfigMap/demo/web-settings done
            """)
        .doesNotContain("planning again");
    assertThat(out.split("Plan for release demo/web: revision 3 \\(from 2\\)\n", -1)).hasSize(2);
    assertThat(out).endsWith("Release demo/web revision 3 deployed.\n");
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().findValuesAsText("status"))
        .containsExactly("deployed", "failed", "superseded");
  }

  @Test
  void aCastTakesOverFromACasterKilledMidCastWhoseLeaseNamedItsIntent() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    // a caster of v2 dies (kill -9) after its first write, a minute ago: its lease names the
    // cast, and no record says so
    var cluster = stateCluster();
    java.time.Instant past = java.time.Instant.now().minusSeconds(60);
    castV2Dying(
        dev.capstan.release.ReleaseController.builder(cluster, cluster)
            .clock(java.time.Clock.fixed(past, java.time.ZoneOffset.UTC))
            .holder("killed-caster")
            .listener(
                e -> {
                  if (e instanceof dev.capstan.release.event.ReleaseEvent.Done) {
                    throw new ProcessDied();
                  }
                })
            .build());
    assertThat(cluster.leaseIntent("demo", "web")).isPresent();
    saveState(cluster);
    assertThat(run("release", "get", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().get("status").asText()).isEqualTo("deployed");
    assertThat(json().get("inProgress").get("operation").asText()).isEqualTo("cast");
    assertThat(json().get("inProgress").get("holder").asText()).isEqualTo("killed-caster");
    assertThat(json().get("inProgress").get("expired").asBoolean()).isTrue();
    assertThat(run("release", "status", "web", "-n", "demo")).isZero();
    assertThat(out)
        .containsPattern(
            "\nLease: +cast by killed-caster stopped: its lease expired at [0-9T:.\\-]+Z; the next"
                + " cast or uninstall takes it over\n");

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes", "--wait", "1s")).isZero();

    assertThat(err)
        .contains(
            ", taking over from killed-caster (expired ",
            "\ncapstan: demo/web: recorded revision 2 as failed\ncapstan: demo/web: update ");
    assertThat(out).endsWith("Release demo/web revision 3 deployed.\n");
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().findValuesAsText("status"))
        .containsExactly("deployed", "failed", "superseded");
    assertThat(json().get(1).get("failure").asText())
        .startsWith("interrupted: the lease of killed-caster expired at ")
        .endsWith(" before the cast finished");
  }

  /**
   * Casts v1, then leaves what a caster of v2 killed right after recording revision 2 pending
   * leaves (a caster over a store that keeps no lease intents, or a detached one): the pending
   * record and a lease that expired a minute ago.
   */
  private void leaveADeadCasterOfV2() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    // a caster of v2 dies (kill -9) right after recording revision 2 as pending: the record stays
    // pending and its lease held until it expires
    var cluster = stateCluster();
    castV2Dying(
        dev.capstan.release.ReleaseController.builder(cluster, withoutLeaseIntents(cluster))
            .listener(
                e -> {
                  if (e instanceof dev.capstan.release.event.ReleaseEvent.RecordSaved r
                      && r.status() == dev.capstan.release.model.ReleaseStatus.PENDING) {
                    throw new ProcessDied();
                  }
                })
            .build());
    java.time.Instant past = java.time.Instant.now().minusSeconds(60);
    cluster.putLease(
        "demo",
        "web",
        new dev.capstan.release.model.Lease("killed-caster", past, past.plusSeconds(15)));
    saveState(cluster);
  }

  /** The CLI's in-memory state, as a cluster. */
  private dev.capstan.release.memory.InMemoryCluster stateCluster() throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    return dev.capstan.release.memory.InMemoryCluster.importState(
        mapper.writeValueAsBytes(
            mapper.readTree(dir.resolve(".capstan/state.json").toFile()).get("releases")));
  }

  /** Saves {@code cluster} as the CLI's in-memory state. */
  private void saveState(dev.capstan.release.memory.InMemoryCluster cluster) throws IOException {
    Path state = dir.resolve(".capstan/state.json");
    ObjectMapper mapper = new ObjectMapper();
    var root = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(state.toFile());
    root.set("releases", mapper.readTree(cluster.exportState()));
    mapper.writeValue(state.toFile(), root);
  }

  /** Casts web-v2.yaml with {@code dead}, a controller whose process dies midway. */
  private void castV2Dying(dev.capstan.release.ReleaseController dead) throws IOException {
    var v2 =
        dev.capstan.release.file.ReleaseFiles.read(
            dir.resolve("web-v2.yaml"), dev.capstan.release.file.Overrides.none(), env::get);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                dead.cast(
                    v2.toSpec().withOptions(dev.capstan.release.model.ReleaseOptions.defaults()),
                    v2.payloads()))
        .isInstanceOf(ProcessDied.class);
  }

  /** {@code store} as a store that keeps no lease intents: a cast records {@code PENDING} first. */
  private static dev.capstan.release.port.Store withoutLeaseIntents(
      dev.capstan.release.port.Store store) {
    return (dev.capstan.release.port.Store)
        java.lang.reflect.Proxy.newProxyInstance(
            dev.capstan.release.port.Store.class.getClassLoader(),
            new Class<?>[] {dev.capstan.release.port.Store.class},
            (proxy, method, args) -> {
              if (method.getName().equals("keepsLeaseIntents")) {
                return false;
              }
              try {
                return method.invoke(store, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** What a caster killed at a chosen point leaves behind: nothing catches it. */
  private static final class ProcessDied extends Error {
    private static final long serialVersionUID = 1L;
  }

  @Test
  void demoRunsTheReleaseAndThePlatformUpdateDemos() {
    assertThat(run("demo")).isZero();

    assertThat(out)
        .contains("== 7. History, newest first")
        .contains("== Platform update: MCP Runtime v0.4.0 -> v0.5.0 (runtime-api never gets ready)")
        .contains("rolled-back")
        .contains("Manual recovery commands")
        .contains("\"dryRun\": false");
    assertThat(Files.exists(dir.resolve(".capstan"))).isFalse();
  }

  /** The output with every sha256 value shown as {@code sha256:…}. */
  static String hashesHidden(String output) {
    return output.replaceAll("sha256:[0-9a-f]{64}", "sha256:…");
  }
}
