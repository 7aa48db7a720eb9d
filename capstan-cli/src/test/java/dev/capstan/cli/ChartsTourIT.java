package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.helm.testing.ChartRepositoryServer;
import dev.capstan.helm.testing.HelmBinaries;
import dev.capstan.helm.testing.TestCa;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/charts.md runs: its tour, line by line on the real control plane with real Helm 3, each with
 * the exit code the page gives, and each command the page shows output of printing exactly that;
 * and a chart from an HTTPS chart repository that asks for credentials: a wrong password is one
 * line, exit 2, nothing written.
 */
@ControlPlaneTest
class ChartsTourIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  private static Map<String, @Nullable String> env(ControlPlane plane) {
    Map<String, @Nullable String> env = new HashMap<>();
    env.put("KUBECONFIG", plane.kubeconfig().toString());
    env.put("CAPSTAN_HELM", HelmBinaries.of(3).toString());
    return env;
  }

  @Test
  void theChartsPageTourRunsAsDocumented(ControlPlane plane) throws IOException {
    String page = Files.readString(ROOT.resolve("docs/charts.md"), StandardCharsets.UTF_8);
    Map<String, String> shown = shownOutputs(page.substring(page.indexOf("<!-- charts-tour -->")));
    Map<String, @Nullable String> env = env(plane);
    List<String> ran = new ArrayList<>();
    for (CliRun.TourLine line : CliRun.tour(page, "<!-- charts-tour -->")) {
      String command = line.command();
      CliRun run = CliRun.of(Terminal.none(), env::get, ROOT, line.args());
      assertThat(run.code())
          .as("%s%nstdout:%n%s%nstderr:%n%s", command, run.out(), run.err())
          .isEqualTo(line.exit());
      String output = shown.get(command);
      if (output != null) {
        // what the page shows: standard output, or the one line of a refusal
        assertThat(line.exit() == 0 ? run.out() : lastLine(run.err()))
            .as(command)
            .isEqualTo(output);
      }
      ran.add(command);
    }
    assertThat(ran).hasSize(10);
    assertThat(shown.keySet())
        .as("every command the page shows output of is in the tour")
        .isSubsetOf(ran);
    assertThat(shown).hasSize(5);
  }

  @Test
  void aWrongPasswordForAChartRepositoryIsOneLineExit2AndNothingWritten(
      ControlPlane plane, TestNamespace tns) throws Exception {
    TestCa ca = TestCa.create(dir.resolve("ca"));
    Path home = dir.resolve("helm-home");
    Path charts = Files.createDirectories(dir.resolve("charts"));
    HelmBinaries.packaged(
        ROOT.resolve("release-helm/src/test/resources/charts/cache"), "0.1.0", charts, home);
    try (ChartRepositoryServer repo =
        ChartRepositoryServer.start(charts, ca, "charts", "right-one")) {
      HelmBinaries.helm3(home, "repo", "index", charts.toString(), "--url", repo.url());
      String ns = tns.name();
      List<String> cast =
          List.of(
              "release",
              "cast",
              "web",
              "-n",
              ns,
              "--chart",
              "cache",
              "--repo",
              repo.url(),
              "--username",
              "charts",
              "--password-stdin",
              "--ca-file",
              ca.ca().toString(),
              "--yes");

      CliRun wrong =
          CliRun.of(answering("wrong-one"), env(plane)::get, dir, cast.toArray(String[]::new));

      assertThat(wrong.code()).isEqualTo(ExitCode.INVALID);
      assertThat(wrong.err())
          .isEqualTo(
              "capstan: chart "
                  + repo.url()
                  + " cache: the chart repository refused the credentials of user 'charts' (HTTP"
                  + " 401): check --username and the password given with --password-stdin;"
                  + " nothing was written\n");
      assertThat(wrong.out()).isEmpty();
      CoreV1Api core = new CoreV1Api(plane.client());
      assertThat(core.listNamespacedConfigMap(ns).execute().getItems())
          .noneMatch(c -> String.valueOf(c.getMetadata().getName()).startsWith("web"));
      assertThat(core.listNamespacedSecret(ns).execute().getItems()).isEmpty(); // no record

      CliRun right =
          CliRun.of(answering("right-one"), env(plane)::get, dir, cast.toArray(String[]::new));

      assertThat(right.code()).as(right.err()).isZero();
      assertThat(right.out()).endsWith("Release " + ns + "/web revision 1 deployed.\n");
      assertThat(core.readNamespacedConfigMap("web-cache", ns).execute().getData())
          .containsEntry("size", "1");
      assertThat(repo.requests()).allMatch(r -> r.startsWith("GET /charts/"));
    }
  }

  /** A terminal whose standard input holds one line. */
  private static Terminal answering(String line) {
    return new Terminal() {
      @Override
      public boolean interactive() {
        return false;
      }

      @Override
      public String ask(String question) {
        return line;
      }
    };
  }

  /**
   * The output the page shows of each {@code ./capstan} command in its {@code console} blocks: the
   * lines after {@code $ ./capstan ...} up to the next {@code $} line or the block's end.
   */
  private static Map<String, String> shownOutputs(String page) {
    Map<String, String> out = new HashMap<>();
    Matcher blocks = Pattern.compile("```console\n(.*?)```", Pattern.DOTALL).matcher(page);
    while (blocks.find()) {
      String command = null;
      StringBuilder text = new StringBuilder();
      for (String line : blocks.group(1).lines().toList()) {
        if (line.startsWith("$ ")) {
          if (command != null) {
            out.put(command, text.toString());
          }
          command = line.substring(2).strip();
          text.setLength(0);
        } else {
          text.append(line).append('\n');
        }
      }
      if (command != null) {
        out.put(command, text.toString());
      }
    }
    return out;
  }

  private static String lastLine(String text) {
    String[] lines = text.split("\n", -1);
    int i = lines.length - 1;
    while (i > 0 && lines[i].isEmpty()) {
      i--;
    }
    return lines[i] + "\n";
  }
}
