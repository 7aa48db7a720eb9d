package dev.capstan.release.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cast leaves the revision before it as stored; the history reads a deployed revision that a
 * later deployed one replaced as superseded, updated when its own record was last written.
 */
class HistoryReadsTest {
  private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

  @Test
  void aDeployedRevisionThatALaterDeployedOneReplacedReadsSuperseded() {
    List<Release> read =
        HistoryReads.superseding(
            List.of(
                release(3, ReleaseStatus.DEPLOYED),
                release(2, ReleaseStatus.DEPLOYED),
                release(1, ReleaseStatus.DEPLOYED)));

    assertThat(read)
        .extracting(Release::revision, Release::status, Release::updatedAt)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED, finished(3)),
            tuple(2, ReleaseStatus.SUPERSEDED, finished(2)),
            tuple(1, ReleaseStatus.SUPERSEDED, finished(1)));
  }

  @Test
  void aDeployedRevisionOnlyFailedOrPendingOnesFollowIsStillDeployed() {
    List<Release> read =
        HistoryReads.superseding(
            List.of(
                release(4, ReleaseStatus.PENDING),
                release(3, ReleaseStatus.FAILED),
                release(2, ReleaseStatus.DEPLOYED),
                release(1, ReleaseStatus.DEPLOYED)));

    assertThat(read)
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(4, ReleaseStatus.PENDING),
            tuple(3, ReleaseStatus.FAILED),
            tuple(2, ReleaseStatus.DEPLOYED),
            tuple(1, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void anUninstalledOrStoredSupersededRevisionReplacesTheDeployedOnesBeforeIt() {
    List<Release> read =
        HistoryReads.superseding(
            List.of(
                release(3, ReleaseStatus.UNINSTALLED),
                release(2, ReleaseStatus.SUPERSEDED),
                release(1, ReleaseStatus.DEPLOYED)));

    // revision 2 as an older version stored it; revision 1 as its own record was last written
    assertThat(read)
        .extracting(Release::revision, Release::status, Release::updatedAt)
        .containsExactly(
            tuple(3, ReleaseStatus.UNINSTALLED, finished(3)),
            tuple(2, ReleaseStatus.SUPERSEDED, finished(2)),
            tuple(1, ReleaseStatus.SUPERSEDED, finished(1)));
  }

  private static Instant started(int revision) {
    return T0.plusSeconds(60L * revision);
  }

  private static Instant finished(int revision) {
    return started(revision).plusSeconds(10);
  }

  private static Release release(int revision, ReleaseStatus status) {
    return new Release(
        "id-1",
        "default",
        "app",
        revision,
        status,
        List.of(),
        List.of(),
        List.of(),
        null,
        null,
        null,
        Payloads.of(),
        null,
        started(revision),
        finished(revision),
        null);
  }
}
