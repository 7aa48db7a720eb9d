package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hook objects of an import of Helm release {@code shop/web}, whose deployed revision has the
 * hook Job {@code web-migrate}: looked at as the plan does, then marked as the run does, on the
 * in-memory cluster.
 */
class HookMarkingTest {
  /** The release the import casts: its marks name it and carry its id. */
  private static final ReleaseIdentity WEB = new ReleaseIdentity("shop", "web", "id-web");

  private static final String MIGRATE =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: web-migrate
        annotations:
          helm.sh/hook: pre-upgrade
          helm.sh/hook-delete-policy: before-hook-creation
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
              - name: migrate
                image: registry.example/web:1.0
      """;

  private static final HelmRevision DEPLOYED =
      new HelmRevision(
          new HelmRecord(
              HelmRecord.Driver.SECRET,
              "shop",
              "sh.helm.release.v1.web.v1",
              HelmRecords.SECRET_TYPE,
              Map.of(),
              ""),
          "web",
          "shop",
          1,
          HelmStatus.DEPLOYED,
          "web",
          "0.1.0",
          null,
          "Install complete",
          Instant.parse("2026-11-30T09:00:00Z"),
          Instant.parse("2026-11-30T09:00:00Z"),
          "",
          List.of(
              new HelmHook(
                  "web-migrate",
                  "Job",
                  "web/templates/migrate.yaml",
                  MIGRATE,
                  List.of("pre-upgrade"))));

  private static final ResourceRef JOB = helmHook().ref();

  private static final OwnershipStamp OTHER_RELEASE =
      OwnershipStamp.of(new ReleaseIdentity("shop", "other", "id-other"), 3, "hash-other");

  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
  private final HookMarking marking = new HookMarking(cluster, "shop", "web");

  /** The hook object as Helm rendered it: what Helm created. */
  private static Manifest helmHook() {
    return HookMarking.payloads(DEPLOYED.hooks().get(0), DEPLOYED, "shop", "web")
        .hooks()
        .get(0)
        .object();
  }

  private String render(List<HelmImportPlan.HookObject> hooks) {
    ReleaseSpec spec = ReleaseSpec.of("shop", "web", Payloads.empty()).withAdopt(true);
    return new HelmImportPlan(
            List.of(DEPLOYED),
            DEPLOYED,
            List.of(),
            false,
            spec,
            Payloads.empty(),
            ReleaseController.builder(cluster, cluster)
                .build()
                .plan(new ReleaseInput(spec, Payloads.empty())),
            hooks)
        .render();
  }

  private static String rendered(String hookLine, String summary) {
    return "Helm release shop/web: 1 revision, revision 1 deployed (chart web-0.1.0, Secret"
        + " driver)\n"
        + "history: Helm revisions 1 become Capstan revisions (imported)\n"
        + "cast: Capstan revision 2, stamps only\n"
        + "  = reference Namespace//shop\n"
        + "hook objects (Helm does not track them; the present ones marked as this release's"
        + " hooks, not owned, unless they are not its Helm hooks):\n"
        + hookLine
        + "\n"
        + "summary: 0 to adopt, 0 missing, 1 hook object"
        + summary
        + "\n";
  }

  @Test
  void theHelmReleasesHookIsMarkedUnderThePreconditionOfTheLook() {
    cluster.put(helmHook());
    cluster.clearOperations();

    List<HelmImportPlan.HookObject> looked = marking.look(DEPLOYED);
    List<HelmImportPlan.HookObject> left = marking.mark(DEPLOYED, looked, WEB);

    assertThat(render(looked))
        .isEqualTo(rendered("  · present   batch/Job/shop/web-migrate  (pre-upgrade)", ""));
    assertThat(left).isEqualTo(looked);
    assertThat(left).singleElement().satisfies(h -> assertThat(h.marked()).isTrue());
    assertThat(cluster.writes()).containsExactly("apply:batch/Job/shop/web-migrate");
    assertThat(cluster.object(JOB))
        .contains(
            helmHook()
                .withEntry("metadata.annotations", Hook.HOOK_OF, "shop/web")
                .withEntry("metadata.annotations", Hook.HOOK_OF_ID, "id-web"));
    assertThat(cluster.stamp(JOB)).isEmpty();
  }

  @Test
  void anotherReleasesObjectAtTheHooksNameIsLeftAsItIs() {
    Manifest theirs = helmHook().withEntry("metadata.labels", "team", "other");
    cluster.put(theirs, OTHER_RELEASE);
    cluster.clearOperations();

    List<HelmImportPlan.HookObject> looked = marking.look(DEPLOYED);
    List<HelmImportPlan.HookObject> left = marking.mark(DEPLOYED, looked, WEB);

    String why =
        "not marked as a hook of shop/web: it is not this Helm release's hook (owned by release"
            + " shop/other)";
    assertThat(render(looked))
        .isEqualTo(
            rendered(
                "  · untouched batch/Job/shop/web-migrate  (pre-upgrade; " + why + ")",
                " (1 left as it is)"));
    assertThat(left).extracting(HelmImportPlan.HookObject::leftAsIs).containsExactly(why);
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(JOB)).contains(theirs);
    assertThat(cluster.stamp(JOB)).contains(OTHER_RELEASE);
  }

  @Test
  void anObjectWithoutHelmsHookAnnotationAtTheHooksNameIsLeftAsItIs() {
    Manifest someones = helmHook().with("metadata.annotations", Map.of("team", "payments"));
    cluster.put(someones);
    cluster.clearOperations();

    List<HelmImportPlan.HookObject> looked = marking.look(DEPLOYED);
    List<HelmImportPlan.HookObject> left = marking.mark(DEPLOYED, looked, WEB);

    String why =
        "not marked as a hook of shop/web: it is not this Helm release's hook (no helm.sh/hook"
            + " annotation)";
    assertThat(render(looked))
        .isEqualTo(
            rendered(
                "  · untouched batch/Job/shop/web-migrate  (pre-upgrade; " + why + ")",
                " (1 left as it is)"));
    assertThat(left).extracting(HelmImportPlan.HookObject::leftAsIs).containsExactly(why);
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(JOB)).contains(someones);
    assertThat(cluster.stamp(JOB)).isEmpty();
  }

  @Test
  void anObjectReplacedBetweenTheLookAndTheMarkIsNotWritten() {
    cluster.put(helmHook());
    List<HelmImportPlan.HookObject> looked = marking.look(DEPLOYED);
    Manifest theirs = helmHook().withEntry("metadata.labels", "team", "other");
    cluster.deleteOutOfBand(JOB).put(theirs, OTHER_RELEASE);
    cluster.clearOperations();

    List<HelmImportPlan.HookObject> left = marking.mark(DEPLOYED, looked, WEB);

    assertThat(left)
        .extracting(HelmImportPlan.HookObject::leftAsIs)
        .containsExactly("not marked as a hook of shop/web: it changed since it was looked at");
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(JOB)).contains(theirs);
    assertThat(cluster.stamp(JOB)).contains(OTHER_RELEASE);
  }

  @Test
  void anAbsentHookObjectIsNotCreated() {
    List<HelmImportPlan.HookObject> looked = marking.look(DEPLOYED);
    List<HelmImportPlan.HookObject> left = marking.mark(DEPLOYED, looked, WEB);

    assertThat(render(left))
        .isEqualTo(rendered("  · absent    batch/Job/shop/web-migrate  (pre-upgrade)", ""));
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.object(JOB)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      textBlock =
          """
          capstan.dev/hook-of            | shop/web   | -
          capstan.dev/hook-of            | shop/other | a hook object of release shop/other (capstan.dev/hook-of)
          meta.helm.sh/release-name      | web        | -
          meta.helm.sh/release-name      | api        | Helm's annotations name release shop/api
          meta.helm.sh/release-namespace | shop       | -
          meta.helm.sh/release-namespace | staging    | Helm's annotations name release staging/web
          """)
  void anObjectIsThisHelmReleasesHookByItsAnnotations(
      String annotation, String value, @org.jspecify.annotations.Nullable String notOurs) {
    cluster.put(helmHook().withEntry("metadata.annotations", annotation, value));

    assertThat(
            marking.notThisReleasesHook(
                cluster.observe(JOB.kind(), "shop", java.util.Set.of("web-migrate")).get(0)))
        .isEqualTo(notOurs);
  }
}
