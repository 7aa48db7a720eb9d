package dev.capstan.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.cli.CliRun;
import dev.capstan.cli.Terminal;
import dev.capstan.cli.demo.DemoPlatform;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.model.VolumeSpec.ReclaimPolicy;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallOutcome;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import dev.capstan.update.result.UpdateResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the root README and the pages under {@code docs/} true: each Java snippet is the code
 * between a pair of markers below (compiled and run here, and shown verbatim on its page: the short
 * one in README.md, the release tours in docs/releases.md and docs/manifests.md, the platform
 * update in docs/platform-updates.md, the test kit in docs/testing.md), and every {@code ./capstan}
 * command of the command-line tour in docs/cli.md runs here, in order, with the exit code the page
 * gives.
 */
class ReadmeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static String readme() throws IOException {
    return Files.readString(ROOT.resolve("README.md"));
  }

  /** A page under {@code docs/}, e.g. {@code "releases.md"}. */
  private static String page(String name) throws IOException {
    return Files.readString(ROOT.resolve("docs").resolve(name));
  }

  @Test
  void shortTourRunsAndTheReadmeShowsIt() throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    // short:start
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();

    ServiceSpec web = ServiceSpec.builder("shop", "web").image("acme/web:1.0").build();
    ReleaseInput v1 = ReleaseInput.of("shop", "web", Payloads.of(web));
    out.print(PlanRenderer.text(releases.plan(v1))); // what the cast will do; changes nothing
    releases.cast(v1); // revision 1: applied in order, healthy, recorded

    ReleaseInput v2 = ReleaseInput.of("shop", "web", Payloads.of(web.withImage("acme/web:1.1")));
    releases.cast(v2); // revision 2: writes the Deployment only
    releases.rollback("shop", "web", 1); // revision 3, with revision 1's objects
    // short:end

    assertThat(printed.toString(UTF_8)).contains("  + create     apps/Deployment/shop/web\n");
    assertThat(cluster.writes())
        .filteredOn(w -> w.startsWith("apply:"))
        .containsOnly("apply:apps/Deployment/shop/web");
    assertThat(releases.history("shop", "web"))
        .extracting(Release::revision)
        .containsExactly(3, 2, 1);
    assertThat(readme()).contains("```java\n" + block("short") + "```\n");
  }

  @Test
  void javaTourRunsAndItsPageShowsIt() throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    // tour:start
    // A cluster: in memory here; on Kubernetes, KubernetesOrchestrator and KubernetesStore.
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();

    // The release: rendered objects, each validated as it is built.
    ServiceSpec web =
        ServiceSpec.builder("shop", "web")
            .image("ghcr.io/acme/web:1.0.0")
            .replicas(2)
            .port("http", 8080)
            .envFromSecret("web-db")
            .mount("web-data", "/var/lib/web")
            .build();
    Payloads v1 =
        Payloads.builder()
            .service(web)
            .secret(SecretSpec.of("shop", "web-db", Map.of("password", "s3cret")))
            .volume(
                VolumeSpec.of("shop", "web-data", "5Gi").withReclaimPolicy(ReclaimPolicy.RETAIN))
            .build();
    ReleaseInput release = ReleaseInput.of("shop", "web", v1).withVersion("1.0.0");

    // Plan (changes nothing), then cast: apply in dependency order, wait for readiness, prune last.
    out.print(PlanRenderer.text(releases.plan(release))); // exactly what the cast below does
    CastResult first = releases.cast(release); // revision 1, DEPLOYED

    // Upgrade: only the changed service is written.
    Payloads v2 = v1.with(web.withImage("ghcr.io/acme/web:1.1.0"));
    CastResult second = releases.cast(ReleaseInput.of("shop", "web", v2).withVersion("1.1.0"));
    out.print(PlanRenderer.text(second.plan())); // ~ update apps/Deployment/shop/web

    // Roll back to revision 1 (as revision 3), then uninstall: web-data is kept, un-stamped.
    releases.rollback("shop", "web", 1);
    releases.uninstall("shop", "web", UninstallOptions.defaults());
    List<Release> history = releases.history("shop", "web"); // newest first
    // tour:end

    assertThat(first.release().revision()).isEqualTo(1);
    assertThat(second.plan().changes()).hasSize(5);
    assertThat(printed.toString(UTF_8)).contains("  ~ update     apps/Deployment/shop/web\n");
    assertThat(history).extracting(Release::revision).containsExactly(3, 2, 1);
    assertThat(cluster.objects())
        .extracting(r -> r.key())
        .containsExactly("PersistentVolumeClaim/shop/web-data");
    assertThat(page("releases.md")).contains(tourFromThisFile());
  }

  @Test
  void diffTourRunsAndItsPageShowsItsOutput() throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    ServiceSpec web =
        ServiceSpec.builder("shop", "web").image("ghcr.io/acme/web:1.0.0").port("http", 80).build();
    Payloads v1 = Payloads.of(web, SecretSpec.of("shop", "web-db", Map.of("password", "s3cret")));
    releases.cast(ReleaseInput.of("shop", "web", v1));
    // diff:start
    // Review before casting: what changes in each object, field by field. On Kubernetes the
    // "after" is a server-side apply dry run, one per changed object (none when nothing changes).
    ServiceSpec web2 = web.toBuilder().image("ghcr.io/acme/web:1.1.0").env("LOG", "debug").build();
    Payloads v2 = Payloads.of(web2, SecretSpec.of("shop", "web-db", Map.of("password", "n3w")));
    ReleaseInput release = ReleaseInput.of("shop", "web", v2);
    Plan plan = releases.planWithDiff(release);
    out.print(PlanRenderer.text(plan)); // the diff below; PlanRenderer.json(plan) has it too
    CastResult cast = releases.cast(release); // the cast plans again, without diffs
    // diff:end

    assertThat(cast.release().revision()).isEqualTo(2);
    assertThat(printed.toString(UTF_8)).doesNotContain("n3w").doesNotContain("s3cret");
    assertThat(page("releases.md")).contains(block("diff")).contains(printed.toString(UTF_8));
  }

  @Test
  void fleetTourRunsAndItsPageShowsIt() throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("tenants");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    Function<String, ReleaseInput> tenant =
        name -> {
          Payloads p =
              Payloads.builder()
                  .service(ServiceSpec.builder("tenants", name).image("acme/app:2.0").build())
                  .build();
          return ReleaseInput.of("tenants", name, p);
        };
    releases.castAll(List.of(tenant.apply("acme"), tenant.apply("globex")), 16);
    cluster.clearOperations();
    // fleet:start
    // Every tenant's app, cast again after a change that reached some of them: the releases
    // already as asked are found by reads shared by all (the records of each namespace, each kind
    // once) and left alone; the others are cast, 16 at once, each failing on its own.
    List<ReleaseInput> fleet =
        List.of(tenant.apply("acme"), tenant.apply("globex"), tenant.apply("initech"));
    for (CastOutcome outcome : releases.castAll(fleet, 16)) {
      if (outcome instanceof CastOutcome.Unchanged unchanged) {
        out.println(
            unchanged.release() + ": as asked, revision " + unchanged.deployed().revision());
      } else if (outcome instanceof CastOutcome.Cast cast) {
        out.println(cast.release() + ": revision " + cast.result().release().revision());
      } else if (outcome instanceof CastOutcome.Failed failed) {
        out.println(failed.release() + ": " + failed.error().getMessage());
      }
    }
    // fleet:end

    assertThat(printed.toString(UTF_8))
        .isEqualTo(
            """
            tenants/acme: as asked, revision 1
            tenants/globex: as asked, revision 1
            tenants/initech: revision 1
            """);
    assertThat(cluster.writes())
        .filteredOn(w -> w.startsWith("apply:"))
        .containsExactly("apply:apps/Deployment/tenants/initech");
    assertThat(page("releases.md")).contains("```java\n" + block("fleet") + "```\n");

    printed.reset();
    // fleet-down:start
    // Every preview environment torn down, 16 at once: each release's objects deleted and its
    // history purged, each failing on its own.
    List<ReleaseRef> previews =
        List.of(
            new ReleaseRef("tenants", "acme"),
            new ReleaseRef("tenants", "globex"),
            new ReleaseRef("tenants", "initech"));
    UninstallOptions purge = UninstallOptions.defaults().withPurge(true);
    for (UninstallOutcome outcome : releases.uninstallAll(previews, purge, 16)) {
      if (outcome instanceof UninstallOutcome.Uninstalled gone) {
        out.println(gone.release() + ": deleted " + gone.result().deleted().size());
      } else if (outcome instanceof UninstallOutcome.Failed failed) {
        out.println(failed.release() + ": " + failed.error().getMessage());
      }
    }
    // fleet-down:end

    assertThat(printed.toString(UTF_8))
        .isEqualTo(
            """
            tenants/acme: deleted 1
            tenants/globex: deleted 1
            tenants/initech: deleted 1
            """);
    assertThat(cluster.objects()).isEmpty();
    assertThat(releases.list("tenants", true)).isEmpty();
    assertThat(page("releases.md")).contains("```java\n" + block("fleet-down") + "```\n");
  }

  @Test
  void reviewedPlanTourRunsAndItsPageShowsIt() throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    ServiceSpec web = ServiceSpec.builder("shop", "web").image("acme/web:1.0.0").build();
    Payloads v1 = Payloads.builder().service(web).build();
    releases.cast(ReleaseInput.of("shop", "web", v1));
    Payloads v2 = v1.with(web.withImage("acme/web:1.1.0"));
    // reviewed:start
    // Plan once, show it, and cast exactly what was shown: no second planner run, and a refusal
    // before any write if the record or a planned object moved in between.
    Plan plan = releases.plan(ReleaseInput.of("shop", "web", v2));
    out.print(PlanRenderer.text(plan)); // a person reviews this
    try {
      releases.cast(plan, v2); // the same payloads: their hashes must match
    } catch (StalePlanException e) {
      out.println(e.getMessage()); // what moved, e.g. "the record moved from revision 1 to 2"
    }
    // reviewed:end

    assertThat(printed.toString(UTF_8))
        .isEqualTo(
            """
            Plan for release shop/web: revision 2 (from 1)
              = reference  Namespace//shop
              ~ update     apps/Deployment/shop/web
            Summary: 1 update, 1 reference
            """);
    assertThat(releases.get("shop", "web").orElseThrow().revision()).isEqualTo(2);
    assertThat(page("releases.md")).contains(block("reviewed"));
  }

  @Test
  void manifestTourRunsAndItsPageShowsIt() throws IOException {
    Function<String, @Nullable String> env = System::getenv;
    // manifests:start
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();

    // Any Kubernetes object, as a tree (parsed YAML or JSON, or built in code), beside typed specs.
    TypeReference<Map<String, Object>> tree = new TypeReference<>() {};
    Map<String, Object> ingress =
        JSON.readValue(
            """
            {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"},
             "spec": {"rules": [{"host": "shop.example.com"}]}}
            """,
            tree);
    Map<String, Object> migration =
        JSON.readValue(
            """
            {"apiVersion": "batch/v1", "kind": "Job",
             "metadata": {"name": "migrate", "annotations": {"capstan.dev/wave": "-1"}},
             "spec": {"template": {"spec": {"restartPolicy": "Never",
               "containers": [{"name": "migrate", "image": "acme/web:1.0.0"}]}}}}
            """,
            tree);
    Payloads payloads =
        Payloads.builder()
            .namespace("shop") // for namespaced manifests that name none
            .service(
                ServiceSpec.builder("shop", "web").image("acme/web:1.0.0").port("http", 80).build())
            .manifest(ingress)
            .manifest(migration) // wave -1: applied, and complete, before wave 0
            .build();
    releases.cast(ReleaseInput.of("shop", "web", payloads));
    // From files (a directory, a glob or a multi-document YAML file, as kubectl apply -f takes):
    ReleaseFile shop =
        ReleaseFiles.read(
            Path.of("src/main/resources/apps/shop"), new Overrides("shop", "shop"), env);
    // manifests:end

    assertThat(shop.payloads().size()).isEqualTo(19);
    // wave by wave, rank by rank; the Service and the Ingress (one rank) are written in parallel
    List<String> writes = cluster.writes();
    assertThat(writes).hasSize(6);
    assertThat(writes.subList(0, 3))
        .containsExactly(
            "apply:batch/Job/shop/migrate", "verify", "apply:apps/Deployment/shop/web");
    assertThat(writes.subList(3, 5))
        .containsExactlyInAnyOrder(
            "apply:Service/shop/web", "apply:networking.k8s.io/Ingress/shop/web");
    assertThat(writes.get(5)).isEqualTo("verify");
    assertThat(page("manifests.md")).contains(block("manifests"));
  }

  @Test
  void updateTourRunsAndItsPageShowsIt() throws IOException {
    Path catalogFile =
        ROOT.resolve(
            "capstan-cli/src/main/resources/dev/capstan/cli/demo/mcp-runtime-catalog.yaml");
    Path manifestFile = ROOT.resolve("examples/platform/v0.5.0.yaml");
    // update:start
    // The host's component catalog: which Deployment, container or env var holds each image.
    Catalog catalog = Catalog.load(Files.readAllBytes(catalogFile), "catalog.yaml");
    // A platform: in memory here, running v0.4.0; on Kubernetes, KubernetesPlatformCluster.
    InMemoryPlatformCluster platform = DemoPlatform.installed(catalog, "v0.4.0");
    // The release manifest, read strictly against the catalog.
    PlatformRelease release =
        PlatformReleases.parse(Files.readAllBytes(manifestFile), "v0.5.0.yaml", catalog);

    InventorySnapshot inventory = platform.inventory(UpdatePlanner.query(catalog, release));
    UpdatePlan plan = UpdatePlanner.plan(inventory, release, catalog, Selection.defaults());
    UpdateResult result = UpdateApplier.apply(platform, plan, ApplyOptions.defaults());
    // result.workloads(): per workload updated | skipped | failed | rolled-back | ...
    // update:end

    assertThat(result.workloads()).isNotEmpty();
    assertThat(platform.writes()).hasSize(4);
    assertThat(result.failed()).isFalse();
    assertThat(page("platform-updates.md")).contains(block("update"));
  }

  @Test
  void theTestKitExampleIsARealTestAndItsPageShowsItWhole() throws IOException {
    String source =
        Files.readString(Path.of("src/test/java/dev/capstan/examples/WebReleaseTest.java"));
    String begin = "// testkit:start\n";
    String example =
        source.substring(source.indexOf(begin) + begin.length(), source.indexOf("// testkit:end"));

    assertThat(example).contains("@CapstanTest").contains("@Test");
    assertThat(page("testing.md")).contains("```java\n" + example + "```\n");
  }

  /** docs/spring-boot.md shows the example application's service as it is. */
  @Test
  void theSpringBootPageShowsTheExampleApplicationsService() throws IOException {
    String source =
        Files.readString(
            ROOT.resolve(
                "spring-boot-example/src/main/java/dev/capstan/examples/spring/ShopReleases.java"));

    assertThat(page("spring-boot.md"))
        .contains("```java\n" + source.substring(source.indexOf("@Service")) + "```\n");
  }

  private static String tourFromThisFile() throws IOException {
    return block("tour");
  }

  private static String block(String name) throws IOException {
    return block("ReadmeTest", name);
  }

  /**
   * The code between the markers {@code // NAME:start} and {@code // NAME:end} of the test class
   * {@code testClass} of this package, less the four spaces of a method body: a page's snippet.
   */
  static String block(String testClass, String name) throws IOException {
    String source =
        Files.readString(Path.of("src/test/java/dev/capstan/examples/" + testClass + ".java"));
    String begin = "// " + name + ":start\n";
    String body =
        source.substring(
            source.indexOf(begin) + begin.length(), source.indexOf("    // " + name + ":end"));
    StringBuilder dedented = new StringBuilder();
    body.lines().forEach(l -> dedented.append(l.length() >= 4 ? l.substring(4) : l).append('\n'));
    return dedented.toString();
  }

  /**
   * Runs the command-line tour of docs/cli.md: every line of the {@code bash} block after {@code
   * <!-- cli-tour -->}, in order. {@code export} lines set the environment (the state file's path
   * within the test's folder); {@code ./capstan} lines run in-process from the repository root, on
   * a fresh state file, in an environment without {@code HOME} or {@code KUBECONFIG}; a trailing
   * {@code # exit N} comment gives the expected exit code (default 0).
   */
  @Test
  void commandLineTourRunsAsDocumented(@TempDir Path dir) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("CAPSTAN_STATE", dir.resolve("state.json").toString());
    int ran = 0;
    for (CliRun.TourLine line : CliRun.tour(page("cli.md"), "<!-- cli-tour -->")) {
      String command = line.command();
      if (command.startsWith("export ")) {
        String[] kv = command.substring("export ".length()).split("=", 2);
        // the tour's state file, in this test's folder rather than the repository
        env.put(kv[0], kv[0].equals("CAPSTAN_STATE") ? dir.resolve(kv[1]).toString() : kv[1]);
        continue;
      }
      CliRun run = CliRun.of(Terminal.none(), env::get, ROOT, line.args());
      assertThat(run.code())
          .as("%s%nstdout:%n%s%nstderr:%n%s", command, run.out(), run.err())
          .isEqualTo(line.exit());
      ran++;
    }
    assertThat(ran).isGreaterThanOrEqualTo(8);
  }
}
