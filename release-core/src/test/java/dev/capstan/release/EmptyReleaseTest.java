package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Plan;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cast that wants no object over a release that owns some (a release file without {@code spec}, a
 * truncated file) is refused before any write, lease included, unless {@code dangerousAllowEmpty};
 * the refusal's advice works when followed.
 */
class EmptyReleaseTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private final Payloads owned =
      Payloads.of(
          configMap("a", "1"), configMap("b", "1"), configMap("c", "1"), configMap("d", "1"));

  private static final String REFUSAL =
      "invalid release default/app (1 problem; nothing was written):\n"
          + "  - resources: the release holds no object to own, but revision 1 owns 4"
          + " (ConfigMap/default/a, ConfigMap/default/b, ConfigMap/default/c, …), which this cast"
          + " would delete; check that the input is complete (a release file without spec, a"
          + " truncated file or an empty directory gives no object). To delete them all,"
          + " uninstall the release, or pass dangerousAllowEmpty (the CLI's"
          + " --dangerous-allow-empty)";

  @Test
  void anEmptyCastOverOwnedObjectsIsRefusedBeforeTheLeaseAndAnyWrite() {
    h.cast("app", owned);
    h.cluster.clearOperations();
    ReleaseSpec empty = spec("app", Payloads.empty());

    for (Runnable attempt :
        List.<Runnable>of(
            () -> h.controller.cast(empty, Payloads.empty()),
            () -> h.controller.plan(empty, Payloads.empty()),
            () -> h.controller.planWithDiff(empty, Payloads.empty()),
            () -> h.controller.castDetached(empty, Payloads.empty(), Runnable::run))) {
      InvalidReleaseException e = catchThrowableOfType(InvalidReleaseException.class, attempt::run);
      assertThat(e).hasMessage(REFUSAL);
    }
    assertThat(h.cluster.operations()).allMatch(op -> op.startsWith("record:read:"));
    assertThat(h.controller.get(NS, "app").orElseThrow().owns()).hasSize(4);
  }

  @Test
  void followingTheAdviceDeletesThemAllEitherWay() {
    h.cast("app", owned);
    Plan all =
        h.controller
            .cast(
                spec("app", Payloads.empty())
                    .withOptions(
                        spec("app", Payloads.empty()).options().withDangerousAllowEmpty(true)),
                Payloads.empty())
            .plan();
    assertThat(all.changes()).extracting(c -> c.action().id()).containsOnly("reference", "prune");
    assertThat(h.cluster.objects()).isEmpty();

    h.cast("app", owned);
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    assertThat(h.cluster.objects()).isEmpty();
    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
  }

  @Test
  void aFirstEmptyCastAndAnEmptyCastOverAnUninstalledReleaseAreFine() {
    assertThat(h.cast("fresh", Payloads.empty()).release().owns()).isEmpty();
    h.cast("app", owned);
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    assertThat(h.cast("app", Payloads.empty()).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }
}
