package dev.capstan.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.DetachedCast;
import dev.capstan.release.result.UninstallResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The single-argument API: a release's payloads are given once ({@link ReleaseInput}), {@code
 * plan(input)} is the plan {@code cast(input)} executes, and results print in one line.
 */
class ReleaseInputTest {
  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
  private final ReleaseController releases =
      ReleaseController.builder(cluster, cluster).parallelism(1).build();

  private static Payloads shop(String level, String image) {
    return Payloads.builder()
        .configMap(ConfigMapSpec.of("shop", "web-config", Map.of("level", level)))
        .secret(SecretSpec.of("shop", "db", Map.of("password", "s3cret-value")))
        .service(
            ServiceSpec.builder("shop", "web")
                .image(image)
                .port("http", 8080)
                .envFromConfigMap("web-config")
                .envFromSecret("db")
                .build())
        .build();
  }

  private static List<String> lines(Plan plan) {
    return plan.changes().stream()
        .filter(c -> c.action() != Action.UNCHANGED && c.action() != Action.REFERENCE)
        .map(ReleaseInputTest::line)
        .toList();
  }

  private static String line(PlannedChange c) {
    return c.action().name().toLowerCase(Locale.ROOT)
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  @Test
  void theCastTakesItsPayloadsOnceAndThePlanShowsExactlyWhatItDoes() {
    ReleaseInput v1 = ReleaseInput.of("shop", "web", shop("info", "acme/web:1.0"));
    CastResult first = releases.cast(v1);
    assertThat(first.release().revision()).isEqualTo(1);
    assertThat(first.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    cluster.clearOperations();

    // a config change rolls the reader out: the plan knows it because it has the payloads
    ReleaseInput v2 = ReleaseInput.of("shop", "web", shop("debug", "acme/web:1.0"));
    Plan planned = releases.plan(v2);
    assertThat(lines(planned))
        .containsExactly(
            "update ConfigMap/shop/web-config",
            "update apps/Deployment/shop/web (config changed: ConfigMap/shop/web-config)");
    assertThat(cluster.writes()).isEmpty();

    CastResult second = releases.cast(v2);

    assertThat(second.plan().changes()).isEqualTo(planned.changes());
    assertThat(cluster.writes())
        .containsExactly(
            "apply:ConfigMap/shop/web-config", "apply:apps/Deployment/shop/web", "verify");
    assertThat(releases.plan(v2).changesNothing()).isTrue();
  }

  @Test
  void theInputsWithersChangeTheSpecAndKeepThePayloads() {
    Payloads payloads = shop("info", "acme/web:1.0");
    ReleaseInput input =
        ReleaseInput.of("shop", "web", payloads)
            .withVersion("1.0.0")
            .withSource("git@example.com:shop")
            .withOptions(ReleaseOptions.defaults().withAtomic(true));

    assertThat(input.payloads()).isSameAs(payloads);
    assertThat(input.spec().version()).isEqualTo("1.0.0");
    assertThat(input.spec().source()).isEqualTo("git@example.com:shop");
    assertThat(input.spec().options().atomic()).isTrue();
    assertThat(input.withSpec(s -> s.withAdopt(true)).spec().options().adopt()).isTrue();
    assertThat(releases.cast(input).release().version()).isEqualTo("1.0.0");
    assertThatThrownBy(() -> ReleaseInput.of("shop", "Web", payloads))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("release name must be a DNS-1123 label");
  }

  @Test
  void aDetachedCastTakesTheInputToo() throws Exception {
    DetachedCast detached =
        releases.castDetached(
            ReleaseInput.of("shop", "web", shop("info", "acme/web:1.0")), Runnable::run);

    assertThat(detached.completion().get().release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(detached.toString())
        .isEqualTo("DetachedCast[shop/web revision 1 pending: 4 create, 1 reference; done]");
  }

  @Test
  void resultsPrintInOneLineAndNeverTheirContent() {
    ReleaseInput input = ReleaseInput.of("shop", "web", shop("info", "acme/web:1.0"));
    CastResult cast = releases.cast(input.withVersion("1.0.0"));
    Plan again = releases.plan(input);
    UninstallResult gone = releases.uninstall("shop", "web", UninstallOptions.defaults());

    assertThat(input).hasToString("ReleaseInput[shop/web: 4 objects]");
    assertThat(input.spec().withVersion("1.0.0"))
        .hasToString("ReleaseSpec[shop/web 1.0.0: 4 objects, 1 reference]");
    assertThat(cast).hasToString("CastResult[shop/web revision 1 deployed: 4 create, 1 reference]");
    assertThat(cast.release()).hasToString("Release[shop/web revision 1 deployed]");
    assertThat(again).hasToString("Plan[shop/web revision 2: 4 unchanged, 1 reference]");
    assertThat(gone)
        .hasToString("UninstallResult[shop/web revision 1 uninstalled: 4 deleted, 0 retained]");
    for (Object result : List.of(input, input.spec(), cast, cast.release(), again, gone)) {
      assertThat(result.toString()).hasSizeLessThan(100).doesNotContain("s3cret");
    }
  }
}
