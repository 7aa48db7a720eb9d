package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code release cast --chart} and {@code release get --values} on the in-memory cluster, with a
 * stand-in {@code helm} ({@code $CAPSTAN_HELM}, a script that renders a ConfigMap and a Secret from
 * a password value): the flags reach the render, the record masks the password, and bad input is
 * one line with exit 2 before anything is read. ChartsTourIT runs real Helm on a real cluster.
 */
class ChartCliTest {
  @TempDir Path dir;

  private final Map<String, @Nullable String> env = new HashMap<>();
  private String out = "";
  private String err = "";

  @BeforeEach
  void helm() throws IOException {
    Path chart = Files.createDirectories(dir.resolve("charts/web"));
    Files.writeString(chart.resolve("Chart.yaml"), "apiVersion: v2\nname: web\nversion: 1.4.0\n");
    Path script = dir.resolve("helm");
    Files.writeString(
        script,
        """
        #!/bin/bash
        printf '%%s\\n' "$*" >> %s/calls.txt
        case "$1" in
          version) printf v3.22.0 ;;
          template)
            if [ "$2" = values ]; then
              printf '{"auth":{"password":"hunter2-value"},"replicas":2}\\n'
            else
              printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: web}\\ndata: {replicas: "2"}\\n'
              printf -- '---\\napiVersion: v1\\nkind: Secret\\nmetadata: {name: web-auth}\\n'
              printf 'data: {password: aHVudGVyMi12YWx1ZQ==}\\n'
            fi ;;
        esac
        """
            .formatted(dir),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    Files.writeString(dir.resolve("values.yaml"), "auth: {password: hunter2-value}\n");
    env.put("CAPSTAN_HELM", script.toString());
  }

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void aChartIsCastWithItsValuesAndGetValuesShowsThemMasked() throws IOException {
    assertThat(
            run(
                "release",
                "cast",
                "web",
                "-n",
                "shop",
                "--create-namespace",
                "--chart",
                "charts/web",
                "-f",
                "values.yaml",
                "--set",
                "replicas=2",
                "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release shop/web revision 1 deployed.\n");
    assertThat(
            Files.readAllLines(dir.resolve("calls.txt")).stream()
                .map(l -> l.replaceAll("\\S*capstan-helm-[^/ ]*/values/0\\.yaml", "VALUES0"))
                .map(l -> l.replaceAll("\\S*capstan-helm-[^/ ]*/values-chart", "VALUESCHART"))
                .toList())
        .containsExactly(
            "version --template {{.Version}}",
            "template web "
                + dir.resolve("charts/web")
                + " --namespace shop --include-crds --values "
                + "VALUES0 --set replicas=2",
            "template values VALUESCHART --values VALUES0 --set replicas=2");

    assertThat(run("release", "get", "web", "-n", "shop", "--values")).isZero();
    assertThat(out)
        .isEqualTo(
            """
            # shop/web revision 1: chart web 1.4.0
            # masked (secret, not recorded): auth.password
            auth:
              password: (masked)
            replicas: 2
            """);
    assertThat(run("release", "get", "web", "-n", "shop", "-o", "json")).isZero();
    assertThat(out)
        .contains("\"chart\" : {")
        .contains("\"name\" : \"web\"")
        .doesNotContain("hunter2");
  }

  @Test
  void badInputIsOneLineWithExit2BeforeAnythingIsRead() {
    env.remove("CAPSTAN_HELM");
    env.put("PATH", dir.resolve("nowhere").toString());

    assertThat(run("release", "cast", "web", "--chart", "charts/web", "--yes")).isEqualTo(2);
    assertThat(err)
        .isEqualTo(
            "capstan: no Helm binary: 'helm' is not on PATH and CAPSTAN_HELM is not set; install"
                + " Helm 3.13 or later, or 4 (https://helm.sh/docs/intro/install/), or name the"
                + " binary with CAPSTAN_HELM=/path/to/helm\n");
    assertThat(run("release", "plan", "web", "-f", "values.yaml", "--set", "a=b")).isEqualTo(2);
    assertThat(err).isEqualTo("capstan: --set is for a chart: give --chart REF too\n");
    assertThat(run("release", "plan", "web", "--chart", "charts/web", "--username", "bot"))
        .isEqualTo(2);
    assertThat(err)
        .isEqualTo("capstan: --username needs the password on standard input: --password-stdin\n");
    assertThat(run("release", "plan", "web", "-f", "a.yaml", "-f", "b.yaml")).isEqualTo(2);
    assertThat(err)
        .isEqualTo(
            "capstan: -f names one release file or manifests (a directory or a glob for several);"
                + " several -f are values files, with --chart\n");
    assertThat(run("release", "plan", "--chart", "charts/web")).isEqualTo(2);
    assertThat(err)
        .isEqualTo(
            "capstan: a chart's release needs a name: capstan release cast NAME --chart"
                + " charts/web\n");
    assertThat(run("release", "list", "-A")).isZero();
    assertThat(out).doesNotContain("web");
  }
}
