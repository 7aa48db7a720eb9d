package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartOutputTooLargeException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.InMemoryCharts;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookDeletePolicy;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.rollout.ConfigRollout;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ChartReleases}: a rendered chart read strictly, its hooks kept apart, its workloads cast
 * as rendered, its chart recorded with the secret values masked.
 */
class ChartReleasesTest {
  private static final String OCI = "oci://registry.example/charts/shop";

  /** A chart shaped like public ones: a Deployment, a Secret from values, hooks and a test. */
  private static final String TEMPLATES =
      """
      ---
      # Source: shop/templates/web.yaml
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web}
      spec:
        replicas: %s
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec:
            containers:
            - name: web
              image: registry.example/web:1
              envFrom: [{secretRef: {name: db}}]
      ---
      # Source: shop/templates/secret.yaml
      apiVersion: v1
      kind: Secret
      metadata: {name: db}
      data:
        password: %s
        url: %s
      ---
      # Source: shop/templates/migrate.yaml
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: migrate
        annotations:
          helm.sh/hook: "pre-upgrade, Pre-Install"
          helm.sh/hook-weight: "5"
          helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: m, image: registry.example/migrate:1}]
      ---
      # Source: shop/templates/seed.yaml
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: seed
        annotations: {helm.sh/hook: post-install, helm.sh/hook-weight: "-1"}
      ---
      # Source: shop/templates/tests/ping.yaml
      apiVersion: v1
      kind: Pod
      metadata:
        name: ping
        annotations: {helm.sh/hook: test}
      spec:
        containers: [{name: ping, image: registry.example/ping:1}]
      ---
      # Source: shop/templates/legacy.yaml
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: legacy
        annotations: {helm.sh/hook: crd-install}
      """;

  private static final InMemoryCharts CHARTS =
      new InMemoryCharts()
          .chart(
              OCI,
              "shop",
              "1.2.0",
              (request, values) -> {
                Map<?, ?> auth = (Map<?, ?>) values.getOrDefault("auth", Map.of());
                String password = String.valueOf(auth.get("password"));
                return TEMPLATES.formatted(
                    values.getOrDefault("replicas", 1),
                    b64(password),
                    b64("postgres://app:" + password + "@db:5432/shop"));
              });

  private static String b64(String text) {
    return Base64.getEncoder()
        .encodeToString(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static ChartRequest request(ChartValues values) {
    return ChartRequest.of(new ChartReference.Oci(OCI), "shop", "web").withValues(values);
  }

  private static final ChartValues VALUES =
      ChartValues.none()
          .withFile(
              "values.yaml",
              "replicas: 3\nauth: {user: app, password: correct-horse}\ningress: {host: shop.example}\n")
          .withSet("apiToken=abc,tokenEnabled=true,existingSecretName=db-creds");

  @Test
  void theObjectsAreTheChartsOwnWithHooksAndTestsApartAndUnknownHooksSkippedAsHelmDoes() {
    ChartRelease release = ChartReleases.render(CHARTS, request(VALUES));

    assertThat(release.input().payloads().refs())
        .extracting(ResourceRef::key)
        .containsExactly("Secret/shop/db", "apps/Deployment/shop/web");
    assertThat(release.hooks())
        .extracting(Hook::describe)
        .containsExactly(
            "ConfigMap/shop/seed (post-install)",
            "batch/Job/shop/migrate (pre-install, pre-upgrade)");
    assertThat(release.hooks().get(1).weight()).isEqualTo(5);
    assertThat(release.hooks().get(1).deletePolicies())
        .containsExactly(HookDeletePolicy.BEFORE_HOOK_CREATION, HookDeletePolicy.HOOK_SUCCEEDED);
    assertThat(release.tests()).extracting(Hook::describe).containsExactly("Pod/shop/ping (test)");
    assertThat(release.skipped())
        .containsExactly(
            "ConfigMap/shop/legacy: skipped, as Helm skips it: helm.sh/hook names no hook event"
                + " Helm knows: 'crd-install'");
  }

  @Test
  void theSpecRecordsTheChartWithTheSecretValuesMasked() {
    ChartRelease release = ChartReleases.render(CHARTS, request(VALUES));
    ReleaseSpec spec = release.input().spec();
    ChartOrigin chart = release.chart();

    assertThat(spec.source()).isEqualTo("chart " + OCI);
    assertThat(spec.version()).isEqualTo("1.2.0");
    assertThat(chart.name()).isEqualTo("shop");
    assertThat(chart.version()).isEqualTo("1.2.0");
    assertThat(chart.renderer()).isEqualTo("in-memory");
    assertThat(chart.values())
        .isEqualTo(
            Map.of(
                "replicas",
                3L,
                "auth",
                Map.of("user", "app", "password", ChartOrigin.MASKED),
                "ingress",
                Map.of("host", "shop.example"),
                "apiToken",
                ChartOrigin.MASKED,
                "tokenEnabled",
                true,
                "existingSecretName",
                "db-creds"));
    assertThat(chart.maskedValues()).containsExactly("apiToken", "auth.password");
    assertThat(spec.toString() + chart + release.input()).doesNotContain("correct-horse");
  }

  @Test
  void aValueFoundInARenderedSecretIsMaskedWhateverItsKey() {
    ChartValues values =
        ChartValues.none()
            .withSet("auth.pw=s3cr3t-value,db.name=shop")
            .withSetString("auth.password=x");

    ChartOrigin chart = ChartReleases.render(CHARTS, request(values)).chart();

    // "x" is the Secret's password (masked by its key and its value); "s3cr3t-value" is not
    // rendered into any Secret; "shop" is inside the url, but shorter than 6 characters
    assertThat(chart.maskedValues()).containsExactly("auth.password");
    assertThat(chart.values().get("db")).isEqualTo(Map.of("name", "shop"));

    ChartValues inUrl = ChartValues.none().withSetString("auth.password=hunter22,db.pw=hunter22");
    assertThat(ChartReleases.render(CHARTS, request(inUrl)).chart().maskedValues())
        .containsExactly("auth.password", "db.pw");
  }

  @Test
  void everyValueAValuesFileFromASecretGivesIsMaskedWhateverItsKeyButBooleans() {
    ChartValues values =
        ChartValues.none()
            .withFile("values.yaml", "replicas: 2\ningress: {host: shop.example}\n")
            .withSecretFile(
                "Secret shop/db-values key values.yaml",
                "db: {host: db.internal.example, port: 5432, tls: true}\nreplicas: 4\n");

    ChartOrigin chart = ChartReleases.render(CHARTS, request(values)).chart();

    assertThat(chart.values())
        .isEqualTo(
            Map.of(
                "replicas",
                ChartOrigin.MASKED,
                "ingress",
                Map.of("host", "shop.example"),
                "db",
                Map.of("host", ChartOrigin.MASKED, "port", ChartOrigin.MASKED, "tls", true)));
    assertThat(chart.maskedValues()).containsExactly("db.host", "db.port", "replicas");
    assertThat(chart.toString() + chart.values()).doesNotContain("db.internal.example");
    assertThat(values.files().get(1).toString())
        .isEqualTo("File[Secret shop/db-values key values.yaml, secret]");
  }

  @Test
  void aValueFromASecretThatHelmsFailureQuotesIsMaskedInTheMessage() {
    // Helm 3.22 and 4.3 quote (as Go's %q) a value tpl cannot parse; a chart's fail or required
    // may print any value
    ChartValues values =
        ChartValues.none()
            .withFile("values.yaml", "ingress: {host: 'shop.example/{{x'}\n")
            .withSecretFile(
                "Secret shop/db-values key values.yaml",
                "auth: {password: 'Hunter2-{{s3\"cret', user: app}\nreplicas: 4\n");
    ChartRenderer helmLike =
        (request, limits) -> {
          throw new ChartException(
              "chart oci://registry.example/charts/shop: helm template failed: template:"
                  + " shop/templates/t.yaml:4:13: executing \"shop/templates/t.yaml\" at <tpl"
                  + " .Values.auth.password .>: error calling tpl: cannot parse template"
                  + " \"Hunter2-{{s3\\\"cret\": template: gotpl:1: function \"s3\" not defined;"
                  + " also \"Hunter2-{{s3\"cret\" and \"shop.example/{{x\"; nothing was written");
        };

    assertThatThrownBy(() -> ChartReleases.render(helmLike, request(values)))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart oci://registry.example/charts/shop: helm template failed: template:"
                + " shop/templates/t.yaml:4:13: executing \"shop/templates/t.yaml\" at <tpl"
                + " .Values.auth.password .>: error calling tpl: cannot parse template"
                + " \"(masked)\": template: gotpl:1: function \"s3\" not defined; also"
                + " \"(masked)\" and \"shop.example/{{x\"; nothing was written");
  }

  @Test
  void aValueGivenUnderASecretKeyThatHelmsFailureQuotesIsMaskedInTheMessage() {
    ChartValues values =
        ChartValues.none()
            .withFile("values.yaml", "db: {auth: {token: 'Tok3n-{{x'}, host: 'db-{{host'}\n")
            .withSet("replicas=2,dbPassword=LeakMe{{ .Nope.x")
            .withSetString("api.key=k,tls.privateKey=PEM\\,with-comma");
    ChartRenderer helmLike =
        (request, limits) -> {
          throw new ChartException(
              "chart shop: helm template failed: cannot parse template \"LeakMe{{ .Nope.x\","
                  + " \"Tok3n-{{x\", \"PEM,with-comma\" and \"db-{{host\"; nothing was written");
        };

    assertThatThrownBy(() -> ChartReleases.render(helmLike, request(values)))
        .isInstanceOf(ChartException.class)
        .hasMessage(
            "chart shop: helm template failed: cannot parse template \"(masked)\","
                + " \"(masked)\", \"(masked)\" and \"db-{{host\"; nothing was written");
  }

  @Test
  void workloadsAreCastAsRenderedWithoutCapstansConfigHash() {
    ChartRelease release = ChartReleases.render(CHARTS, request(VALUES));

    assertThat(
            release
                .input()
                .payloads()
                .get(ResourceRef.parse("apps/Deployment/shop/web"))
                .orElseThrow()
                .annotations())
        .containsEntry(ConfigRollout.OPT_OUT, "false");
  }

  @Test
  void aChartsHooksAreTheReleasesHooksAndNoHooksLeavesThemOut() {
    ChartRelease release = ChartReleases.render(CHARTS, request(VALUES));

    assertThat(release.hooks())
        .extracting(Hook::describe)
        .containsExactly(
            "ConfigMap/shop/seed (post-install)",
            "batch/Job/shop/migrate (pre-install, pre-upgrade)");
    assertThat(release.input().payloads().hooks())
        .extracting(h -> h.ref().key() + " " + h.phases())
        .containsExactly(
            "ConfigMap/shop/seed [post-install]",
            "Pod/shop/ping [test]",
            "batch/Job/shop/migrate [pre-install, pre-upgrade]");
    assertThat(release.input().spec().resources())
        .extracting(d -> d.ref().key())
        .doesNotContain("ConfigMap/shop/seed", "batch/Job/shop/migrate");
    ReleaseInput without = release.inputWithoutHooks();
    assertThat(without.payloads().hooks()).isEmpty();
    assertThat(without.payloads().objects()).isEqualTo(release.input().payloads().objects());
  }

  @Test
  void whatTheChartRendersIsReadStrictlyNamingTheDocumentAndNeverAValue() {
    InMemoryCharts broken =
        new InMemoryCharts()
            .chart(
                OCI,
                "shop",
                "1.2.0",
                (request, values) ->
                    """
                    apiVersion: v1
                    kind: Secret
                    metadata: {name: db}
                    data: {password: hunter2}
                    ---
                    apiVersion: v1
                    kind: ConfigMap
                    metadata: {name: a, name: b}
                    """);

    assertThatThrownBy(() -> ChartReleases.render(broken, request(ChartValues.none())))
        .isInstanceOf(InvalidReleaseFileException.class)
        .hasMessageContaining("chart shop 1.2.0")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void aChartThatRendersNothingButHooksCastsNoObject() {
    InMemoryCharts hooksOnly =
        new InMemoryCharts()
            .chart(
                OCI,
                "shop",
                "1.2.0",
                (request, values) ->
                    "apiVersion: v1\nkind: Pod\nmetadata: {name: t, annotations: {helm.sh/hook:"
                        + " test}}\nspec: {containers: [{name: t, image: x}]}\n");

    ChartRelease release = ChartReleases.render(hooksOnly, request(ChartValues.none()));

    assertThat(release.input().payloads().size()).isZero();
    assertThat(release.tests()).hasSize(1);
    assertThat(release.input().payloads().hooks(HookPhase.TEST))
        .extracting(h -> h.ref().key())
        .containsExactly("Pod/shop/t");
  }

  @Test
  void theRendererIsHeldToTheBudgetsTextAndAQuarterOfItsNodesAndTheReleaseFilesLimitWithout() {
    List<RenderLimits> given = new ArrayList<>();
    ChartRenderer recording =
        (request, limits) -> {
          given.add(limits);
          return CHARTS.render(request, limits);
        };

    ChartReleases.render(recording, request(VALUES), new HeapBudget(72L << 20, 128, 8));
    ChartReleases.render(recording, request(VALUES));

    assertThat(given)
        .containsExactly(new RenderLimits(9L << 20, (72L << 20) / 128 / 4), RenderLimits.DEFAULT);
  }

  @Test
  void aRendererStoppedForItsOutputIsARefusalForTheBudgetNamingWhatItPrinted() {
    HeapBudget budget = new HeapBudget(1L << 20, 128, 8);
    ChartRenderer printing =
        (request, limits) -> {
          throw ChartOutputTooLargeException.output(
              "helm", limits.maxOutputBytes() + 4096, limits.maxOutputBytes());
        };

    assertThatThrownBy(() -> ChartReleases.render(printing, request(VALUES), budget))
        .isInstanceOfSatisfying(
            ReleaseTooLargeException.class,
            e -> {
              assertThat(e.at()).isEqualTo("(rendered output)");
              assertThat(e.chars()).isEqualTo((128L << 10) + 4096);
              assertThat(e.nodes()).isZero();
              assertThat(e.estimate()).isGreaterThan(budget.bytes());
            })
        .hasMessage(
            "chart oci://registry.example/charts/shop: (rendered output): reading the release"
                + " would take at least 1081344 bytes of heap (135168 characters of text at 8"
                + " bytes each and 0 nodes, mappings, sequences, keys and scalars, at 128 bytes"
                + " each); the limit is 1048576 bytes per release");
  }

  @Test
  void valuesOverTheirQuarterAndOutputWithoutABudgetStayTheRenderersRefusals() {
    ChartRenderer values =
        (request, limits) -> {
          throw ChartOutputTooLargeException.values("shop", limits);
        };

    assertThatThrownBy(
            () -> ChartReleases.render(values, request(VALUES), new HeapBudget(1L << 20, 128, 8)))
        .isExactlyInstanceOf(ChartOutputTooLargeException.class)
        .hasMessage(
            "chart shop: the values hold more than 2048 nodes (mappings, lists, keys and values),"
                + " over the limit of what this release's rendering may read; give fewer values;"
                + " nothing was written");
    ChartRenderer printing =
        (request, limits) -> {
          throw ChartOutputTooLargeException.output("helm", 70L << 20, 64L << 20);
        };
    assertThatThrownBy(() -> ChartReleases.render(printing, request(VALUES)))
        .isExactlyInstanceOf(ChartOutputTooLargeException.class)
        .hasMessage("helm printed more than 64 MiB, over the limit of a release's manifests");
  }

  @Test
  void aRendererWithoutLimitsOfItsOwnIsHeldToThemOnceItHasRendered() {
    RenderLimits limits = new RenderLimits(100, Long.MAX_VALUE);

    assertThatThrownBy(() -> CHARTS.render(request(VALUES), limits))
        .isInstanceOfSatisfying(
            ChartOutputTooLargeException.class, e -> assertThat(e.bytes()).isGreaterThan(100))
        .hasMessage(
            "the renderer of chart shop printed more than 100 bytes, over the limit of what this"
                + " release's rendering may print");
  }
}
