package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.port.StoredRelease;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A record is as trusted as whoever may write it: a forged record whose delete or test hook is a
 * ClusterRoleBinding is listed by the uninstall's and test's hook plans, and the operation refuses
 * it, writing nothing, unless the caller names it.
 */
class RecordedHooksTrustTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private static final ResourceRef GRANT =
      ResourceRef.parse("rbac.authorization.k8s.io/ClusterRoleBinding//grant");

  private static Manifest grant(String phase) {
    return yaml(
        """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata:
          name: grant
          annotations: {helm.sh/hook: %s}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
        subjects: [{kind: ServiceAccount, name: tenant, namespace: default}]
        """
            .formatted(phase));
  }

  /**
   * Casts web with a ConfigMap, then rewrites its record, as a tenant who may write the store's
   * records could, to the record of a cast that also carries {@code hook}.
   */
  private void forgeRecordWith(Manifest hook) {
    h.cast("web", Payloads.of(configMap("settings", "1")));
    Fixtures.Harness forger = new Fixtures.Harness();
    forger.cast("web", Payloads.of(configMap("settings", "1"), hook));
    StoredRelease real = h.cluster.latestRecord(NS, "web").orElseThrow();
    h.cluster.updateRecord(
        forger.cluster.latestRecord(NS, "web").orElseThrow().release(), real.version());
  }

  @Test
  void theUninstallPlanListsAForgedClusterScopedPreDeleteHookAndTheUninstallRefusesIt() {
    forgeRecordWith(grant("pre-delete"));
    int writes = h.cluster.writes().size();

    HookPlan plan = h.controller.planUninstallHooks(NS, "web");
    ReleaseException e =
        catchThrowableOfType(
            ReleaseException.class,
            () -> h.controller.uninstall(NS, "web", UninstallOptions.defaults()));

    assertThat(plan.text("uninstall"))
        .isEqualTo(
            """
            Hooks the uninstall runs, from revision 1's record, written with your rights:
              ⚓ pre-delete rbac.authorization.k8s.io/ClusterRoleBinding//grant (weight 0; delete\
             before-hook-creation)  ⚠ cluster-scoped
            """);
    assertThat(plan.outside()).extracting(p -> p.ref()).containsExactly(GRANT);
    assertThat(e)
        .hasMessage(
            "uninstall of default/web refused: revision 1's record lists pre-delete hook"
                + " rbac.authorization.k8s.io/ClusterRoleBinding//grant (cluster-scoped), outside"
                + " the release's namespace default; a record is as trusted as whoever may write"
                + " the release's records, and a hook is written with your rights: check it, then"
                + " name it to run it (--allow-hook KEY; withAllowedHooks); nothing was"
                + " uninstalled");
    assertThat(h.cluster.writes()).hasSize(writes);
    assertThat(h.cluster.object(GRANT)).isEmpty();
    assertThat(h.controller.get(NS, "web").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aNamedClusterScopedDeleteHookRunsAsTheUninstallsFirstWrite() {
    forgeRecordWith(grant("pre-delete"));
    int writes = h.cluster.writes().size();

    h.controller.uninstall(NS, "web", UninstallOptions.defaults().withAllowedHooks(Set.of(GRANT)));

    assertThat(h.cluster.writes().subList(writes, writes + 2))
        .containsExactly(
            "apply:rbac.authorization.k8s.io/ClusterRoleBinding//grant",
            "delete:ConfigMap/default/settings");
  }

  @Test
  void aForgedClusterScopedTestHookIsListedAndRefusedUnlessNamed() {
    forgeRecordWith(grant("test"));
    int writes = h.cluster.writes().size();

    HookPlan plan = h.controller.planTestHooks(NS, "web");
    ReleaseException e =
        catchThrowableOfType(
            ReleaseException.class,
            () -> h.controller.test(NS, "web", Duration.ofSeconds(5), List.of()));

    assertThat(plan.hooks())
        .extracting(p -> p.describe())
        .containsExactly(
            "test rbac.authorization.k8s.io/ClusterRoleBinding//grant (weight 0; delete"
                + " before-hook-creation)");
    assertThat(e)
        .hasMessage(
            "test of default/web refused: revision 1's record lists test hook"
                + " rbac.authorization.k8s.io/ClusterRoleBinding//grant (cluster-scoped), outside"
                + " the release's namespace default; a record is as trusted as whoever may write"
                + " the release's records, and a hook is written with your rights: check it, then"
                + " name it to run it (--allow-hook KEY; withAllowedHooks); nothing was run");
    assertThat(h.cluster.writes()).hasSize(writes);

    assertThat(h.controller.test(NS, "web", Duration.ofSeconds(5), List.of(GRANT)).passed())
        .isTrue();
    assertThat(h.cluster.object(GRANT)).isPresent();
  }
}
