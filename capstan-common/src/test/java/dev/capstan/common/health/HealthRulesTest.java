package dev.capstan.common.health;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The health rules over the fixtures in {@code src/test/resources/health}: one YAML file per case,
 * holding the object, its pods, the claim binding when it matters, and the exact verdict.
 */
class HealthRulesTest {

  /** One fixture file. */
  record Case(
      String file,
      Map<String, Object> object,
      List<Map<String, Object>> pods,
      HealthRules.VolumeBinding claimBinding,
      boolean waitForLoadBalancer,
      Health expected) {
    @Override
    public String toString() {
      return file;
    }
  }

  static Stream<Case> fixtures() throws IOException, URISyntaxException {
    Path dir = Path.of(requireNonNull(HealthRulesTest.class.getResource("/health")).toURI());
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().map(HealthRulesTest::read).toList().stream();
    }
  }

  @SuppressWarnings("unchecked")
  private static Case read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Object> doc =
        (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    String expect = (String) requireNonNull(doc.get("expect"), file + ": expect");
    String reason = (String) doc.getOrDefault("reason", "");
    Health expected =
        switch (expect) {
          case "Current" -> Health.current();
          case "InProgress" -> Health.inProgress(reason);
          case "Failed" -> Health.failed(reason);
          default -> throw new IllegalArgumentException(file + ": expect " + expect);
        };
    return new Case(
        file.getFileName().toString(),
        (Map<String, Object>) requireNonNull(doc.get("object"), file + ": object"),
        (List<Map<String, Object>>) doc.getOrDefault("pods", List.of()),
        HealthRules.VolumeBinding.valueOf((String) doc.getOrDefault("claimBinding", "IMMEDIATE")),
        (Boolean) doc.getOrDefault("waitForLoadBalancer", true),
        expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void judgesTheFixtureAsExpected(Case c) {
    assertThat(HealthRules.of(c.object(), c.pods(), c.claimBinding(), c.waitForLoadBalancer()))
        .isEqualTo(c.expected());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void fixturesWithTheDefaultsGiveTheSameVerdictWithoutTheArguments(Case c) {
    if (c.claimBinding() == HealthRules.VolumeBinding.IMMEDIATE && c.waitForLoadBalancer()) {
      assertThat(HealthRules.of(c.object(), c.pods())).isEqualTo(c.expected());
      assertThat(HealthRules.of(c.object(), c.pods(), c.claimBinding())).isEqualTo(c.expected());
    }
  }

  @Test
  void everyRuleHasFixturesOfEveryVerdictItCanGive() throws Exception {
    Map<String, List<String>> verdictsByPrefix = new LinkedHashMap<>();
    fixtures()
        .forEach(
            c ->
                verdictsByPrefix
                    .computeIfAbsent(
                        c.file().substring(0, c.file().indexOf('-')), k -> new ArrayList<>())
                    .add(c.expected().getClass().getSimpleName()));
    assertThat(verdictsByPrefix.get("deployment")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("statefulset")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("daemonset")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("replicaset")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("job")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("pod")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("pvc")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("crd")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("generic")).contains("Current", "InProgress", "Failed");
    assertThat(verdictsByPrefix.get("service")).contains("Current", "InProgress");
    // an APIService fails only by staying unavailable, which WaveHealth judges over time
    assertThat(verdictsByPrefix.get("apiservice")).containsOnly("Current", "InProgress");
  }

  @ParameterizedTest(name = "{0}/{1}: {2}")
  @CsvSource({
    "'', ConfigMap, false",
    "'', Secret, false",
    "'', ServiceAccount, false",
    "'', Namespace, false",
    "rbac.authorization.k8s.io, ClusterRole, false",
    "rbac.authorization.k8s.io, RoleBinding, false",
    "networking.k8s.io, NetworkPolicy, false",
    "networking.k8s.io, Ingress, false",
    "batch, CronJob, false",
    "storage.k8s.io, StorageClass, false",
    "apps, Deployment, true",
    "apps, StatefulSet, true",
    "apps, DaemonSet, true",
    "apps, ReplicaSet, true",
    "batch, Job, true",
    "'', Pod, true",
    "'', PersistentVolumeClaim, true",
    "'', Service, true",
    "apiextensions.k8s.io, CustomResourceDefinition, true",
    "apiregistration.k8s.io, APIService, true",
    "autoscaling, HorizontalPodAutoscaler, true",
    "policy, PodDisruptionBudget, true",
    "example.com, Widget, true",
    "example.com, ConfigMap, true",
  })
  void tellsWhichKindsHaveARuleBeyondReadyWhenApplied(String group, String kind, boolean rule) {
    assertThat(HealthRules.hasRule(group, kind)).isEqualTo(rule);
  }

  @Test
  void kindsWithoutARuleAreCurrentWhateverTheirTreeSays() {
    Map<String, Object> secret =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Secret",
            "metadata",
            Map.of("name", "db", "namespace", "shop", "deletionTimestamp", "now"),
            "status",
            Map.of("conditions", List.of(Map.of("type", "Stalled", "status", "True"))));
    assertThat(HealthRules.of(secret, List.of())).isEqualTo(Health.current());
  }

  @Test
  void escapesTheIdentityOfTheObject() {
    Map<String, Object> widget =
        Map.of(
            "apiVersion",
            "example.com/v1",
            "kind",
            "Wid\u001bget",
            "metadata",
            Map.of("name", "w\nx", "namespace", "sh\top"),
            "status",
            Map.of("conditions", List.of(Map.of("type", "Ready", "status", "False"))));
    assertThat(HealthRules.of(widget, List.of()))
        .isEqualTo(Health.inProgress("Wid\\u001bget sh\\top/w\\nx: Ready=False"));
  }

  @Test
  void rejectsAnObjectWithoutApiVersion() {
    assertThatThrownBy(
            () -> HealthRules.of(Map.of("kind", "Pod", "metadata", Map.of("name", "p")), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("apiVersion must be a non-empty string to judge an object's health: null");
  }

  @Test
  void rejectsAnObjectWithoutKind() {
    assertThatThrownBy(
            () ->
                HealthRules.of(
                    Map.of("apiVersion", "v1", "kind", "", "metadata", Map.of("name", "p")),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("kind must be a non-empty string to judge an object's health: ''");
  }

  @Test
  void rejectsAnObjectWithoutNameShowingTheValueEscaped() {
    assertThatThrownBy(
            () ->
                HealthRules.of(
                    Map.of("apiVersion", "v1", "kind", "Pod", "metadata", Map.of("name", 7)),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metadata.name must be a non-empty string to judge an object's health: '7'");
    assertThatThrownBy(() -> HealthRules.of(Map.of("apiVersion", "v1", "kind", "Pod"), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("metadata.name must be a non-empty string to judge an object's health: null");
  }

  @Test
  void readsNumbersOfAnyJsonNumberType() {
    Map<String, Object> deployment =
        Map.of(
            "apiVersion", "apps/v1",
            "kind", "Deployment",
            "metadata", Map.of("name", "web", "namespace", "shop", "generation", 2L),
            "spec", Map.of("replicas", new BigDecimal("3")),
            "status",
                Map.of(
                    "observedGeneration",
                    2,
                    "replicas",
                    3.0,
                    "updatedReplicas",
                    BigInteger.valueOf(3),
                    "availableReplicas",
                    1L));
    assertThat(HealthRules.of(deployment, List.of()))
        .isEqualTo(Health.inProgress("Deployment shop/web: 1 of 3 updated replicas are available"));
  }

  private static Map<String, Object> pod(String field, List<Map<String, Object>> status) {
    return Map.of(
        "apiVersion",
        "v1",
        "kind",
        "Pod",
        "metadata",
        Map.of("name", "web-1", "namespace", "shop"),
        "status",
        Map.of(field, status));
  }

  private static Map<String, Object> waiting(String reason) {
    return Map.of("name", "web", "state", Map.of("waiting", Map.of("reason", reason)));
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource({
    "containerStatuses, CrashLoopBackOff, true",
    "containerStatuses, ImagePullBackOff, true",
    "containerStatuses, ErrImagePull, true",
    "containerStatuses, CreateContainerConfigError, true",
    "initContainerStatuses, CrashLoopBackOff, true",
    "containerStatuses, ContainerCreating, false",
    "containerStatuses, PodInitializing, false",
  })
  void tellsAPodThatCannotBecomeReadyByItsWaitingContainers(
      String field, String reason, boolean cannot) {
    assertThat(HealthRules.podCannotBecomeReady(pod(field, List.of(waiting(reason)))))
        .isEqualTo(cannot);
  }

  @Test
  void anUnschedulablePodCanStillBecomeReadyAndIsNamedInTheVerdictARunningOneIsNot() {
    Map<String, Object> unschedulable =
        pod(
            "conditions",
            List.of(
                Map.of(
                    "type", "PodScheduled",
                    "status", "False",
                    "reason", "Unschedulable",
                    "message", "0/4 nodes are available")));
    Map<String, Object> running =
        pod(
            "containerStatuses",
            List.of(Map.of("name", "web", "ready", true, "state", Map.of("running", Map.of()))));
    assertThat(HealthRules.podCannotBecomeReady(unschedulable)).isFalse();
    assertThat(HealthRules.podNamedInVerdict(unschedulable)).isTrue();
    assertThat(PodPending.of(unschedulable))
        .isEqualTo(new PodPending("Unschedulable", "0/4 nodes are available"));
    assertThat(HealthRules.podCannotBecomeReady(running)).isFalse();
    assertThat(HealthRules.podNamedInVerdict(running)).isFalse();
    assertThat(PodPending.of(running)).isNull();
    assertThat(
            HealthRules.podNamedInVerdict(
                pod("containerStatuses", List.of(waiting("ErrImagePull")))))
        .isTrue();
  }
}
