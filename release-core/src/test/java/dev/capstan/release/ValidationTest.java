package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input is rejected before the first write, naming the field, the rule and the value. */
class ValidationTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  static Stream<Arguments> badValues() {
    return Stream.of(
        Arguments.of(
            (Runnable) () -> ResourceRef.of(Kind.CONFIG_MAP, NS, "Bad_Name"),
            "ConfigMap name must be a DNS-1123 subdomain (lower-case alphanumerics, '-' and '.',"
                + " starting and ending with an alphanumeric, at most 253 characters): 'Bad_Name'"),
        Arguments.of(
            (Runnable) () -> ResourceRef.of(Kind.SERVICE, NS, "1web"),
            "Service name must be a DNS-1035 label (lower-case alphanumerics and '-', starting with a"
                + " letter, ending with an alphanumeric, at most 63 characters): '1web'"),
        Arguments.of(
            (Runnable) () -> ResourceRef.of(Kind.SECRET, "Prod", "x"),
            "Secret 'x': namespace must be a DNS-1123 label (lower-case alphanumerics and '-',"
                + " starting and ending with an alphanumeric, at most 63 characters): 'Prod'"),
        Arguments.of(
            (Runnable) () -> new ResourceRef(Kind.STORAGE_CLASS, "default", "fast"),
            "storage.k8s.io/StorageClass 'fast' is cluster-scoped; namespace must be empty:"
                + " 'default'"),
        Arguments.of(
            (Runnable) () -> ResourceRef.parse("Deployment/web"),
            "resource key must have the form [group/]Kind/namespace/name: 'Deployment/web'"),
        Arguments.of(
            (Runnable) () -> ResourceRef.parse("deployment/default/web"),
            "kind must start with an upper-case letter and hold only letters and digits (at most"
                + " 63): 'deployment'"),
        Arguments.of(
            (Runnable) () -> ReleaseSpec.of(NS, "App", Payloads.empty()),
            "release name must be a DNS-1123 label of at most 53 characters (lower-case"
                + " alphanumerics and '-', starting and ending with an alphanumeric): 'App'"),
        Arguments.of(
            (Runnable) () -> ServiceSpec.builder(NS, "web").image("web 1").build(),
            "service default/web: image must be a non-empty reference without whitespace: 'web 1'"),
        Arguments.of(
            (Runnable) () -> ServiceSpec.builder(NS, "web").image("web:1").replicas(-1).build(),
            "service default/web: replicas must be at least 0: -1"),
        Arguments.of(
            (Runnable) () -> ServiceSpec.builder(NS, "web").image("w").env("1BAD", "x").build(),
            "service default/web: env name must match [-._a-zA-Z][-._a-zA-Z0-9]*: '1BAD'"),
        Arguments.of(
            (Runnable) () -> ServiceSpec.builder(NS, "web").image("w").port("http", 70000).build(),
            "port 'http' must be between 1 and 65535: 70000"),
        Arguments.of(
            (Runnable)
                () ->
                    ServiceSpec.builder(NS, "web")
                        .image("w")
                        .label("capstan.dev/owner", "me")
                        .build(),
            "service default/web: labels key must not use the prefix reserved for the ownership"
                + " stamp (capstan.dev/): 'capstan.dev/owner'"),
        Arguments.of(
            (Runnable) () -> VolumeSpec.of(NS, "data", "lots"),
            "volume default/data: size must be a quantity such as 10Gi or 500Mi: 'lots'"),
        Arguments.of(
            (Runnable) () -> Payloads.of(configMap("a", "1"), configMap("a", "2")),
            "payloads must have unique objects: duplicate 'ConfigMap/default/a'"),
        Arguments.of(
            (Runnable)
                () ->
                    new ReleaseSpec(
                        NS,
                        "app",
                        List.of(
                            new DesiredResource(
                                ResourceRef.parse("ConfigMap/default/a"),
                                "sha256:" + "a".repeat(64)),
                            new DesiredResource(
                                ResourceRef.parse("ConfigMap/default/a"),
                                "sha256:" + "b".repeat(64))),
                        List.of(),
                        ReleaseOptions.defaults(),
                        null,
                        null),
            "resources must have unique refs: duplicate 'ConfigMap/default/a'"),
        Arguments.of(
            (Runnable)
                () -> new DesiredResource(ResourceRef.parse("ConfigMap/default/a"), "md5:abc"),
            "resources[ConfigMap/default/a].contentHash must be sha256: and 64 hex digits: 'md5:abc'"));
  }

  @ParameterizedTest
  @MethodSource("badValues")
  void badValueIsRejectedWithFieldRuleAndValue(Runnable build, String message) {
    assertThatThrownBy(build::run).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void payloadsThatDoNotMatchTheSpecAreRejectedBeforeAnyWrite() {
    Payloads declared = payloads(configMap("a", "1"), configMap("b", "1"));
    Payloads given = payloads(configMap("a", "changed"), configMap("c", "1"));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(spec("app", declared), given))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "resources[ConfigMap/default/a].contentHash must equal the payload's hash:"
                            + " spec has "
                            + declared.hash(ResourceRef.parse("ConfigMap/default/a")).orElseThrow()
                            + ", payload has "
                            + given.hash(ResourceRef.parse("ConfigMap/default/a")).orElseThrow(),
                        "resources[ConfigMap/default/b]: no payload was given for it",
                        "payloads[ConfigMap/default/c]: not among the spec's resources"));
    assertThat(h.cluster.operations()).isEmpty();
  }

  @Test
  void unknownReferencesAreRejectedBeforeAnyWrite() {
    ServiceSpec web =
        ServiceSpec.builder(NS, "web")
            .image("web:1")
            .envFromSecret("missing")
            .envFromConfigMap("settings")
            .mount("nodata", "/data")
            .build();
    Payloads p = payloads(web, configMap("settings", "x"));

    assertThatThrownBy(() -> h.cast("app", p))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e -> {
              assertThat(e.problems())
                  .containsExactly(
                      "payloads[apps/Deployment/default/web].envFrom[0] refers to Secret/default/missing,"
                          + " which is neither in this release nor among its references",
                      "payloads[apps/Deployment/default/web].volumeMounts[0] refers to PersistentVolumeClaim/default/nodata,"
                          + " which is neither in this release nor among its references");
              assertThat(e.getMessage())
                  .startsWith("invalid release default/app (2 problems; nothing was written):");
            });
    assertThat(h.cluster.writes()).isEmpty();

    // declaring the external secret as a reference makes it a checked reference instead
    ReleaseSpec withRef = spec("app", p).withReference(ResourceRef.of(Kind.SECRET, NS, "missing"));
    assertThatThrownBy(() -> h.controller.cast(withRef, p))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessageContaining("volumeMounts[0]")
        .hasMessageNotContaining("envFrom[0]");
  }

  @Test
  void anExistingExternalSecretIsAReferenceAndNeverOwned() {
    h.cluster.put(creds("theirs"));
    Payloads p = payloads(web("web:1"));

    CastResult r = h.controller.cast(spec("app", p).withReference(Fixtures.CREDS), p);

    assertThat(r.release().references()).contains(Fixtures.CREDS);
    assertThat(r.release().owns())
        .extracting(o -> o.ref())
        .containsExactly(Fixtures.WEB, Fixtures.WEB_SERVICE);
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    assertThat(h.cluster.object(Fixtures.CREDS)).contains(obj(creds("theirs")));
  }

  @Test
  void controllerBuilderRejectsBadSettings() {
    var b = ReleaseController.builder(h.cluster, h.cluster);
    assertThatThrownBy(() -> b.maxHistory(0)).hasMessage("maxHistory must be at least 1: 0");
    assertThatThrownBy(() -> b.parallelism(0)).hasMessage("parallelism must be at least 1: 0");
    assertThatThrownBy(() -> b.deleteParallelism(0))
        .hasMessage("deleteParallelism must be at least 1: 0");
    assertThatThrownBy(() -> b.leaseDuration(java.time.Duration.ofMillis(10)))
        .hasMessage("leaseDuration must be at least 1 second: 10ms");
  }
}
