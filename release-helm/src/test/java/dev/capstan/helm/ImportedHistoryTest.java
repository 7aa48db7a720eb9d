package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ImportedHistoryTest {
  private static HelmRevision revision(
      HelmStatus status, String description, @Nullable String appVersion) {
    return new HelmRevision(
        new HelmRecord(
            HelmRecord.Driver.SECRET,
            "apps",
            "sh.helm.release.v1.shop.v2",
            HelmRecords.SECRET_TYPE,
            Map.of(),
            ""),
        "shop",
        "apps",
        2,
        status,
        "shop",
        "0.2.0",
        appVersion,
        description,
        Instant.parse("2026-11-30T09:00:00Z"),
        Instant.parse("2026-11-30T09:05:00Z"),
        "",
        List.of());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      textBlock =
          """
          DEPLOYED        | DEPLOYED   | Upgrade complete      | 1.1 | imported from Helm revision 2 (deployed): Upgrade complete (chart shop-0.2.0, app 1.1)               | -
          SUPERSEDED      | SUPERSEDED | Install complete      | 1.1 | imported from Helm revision 2 (superseded): Install complete (chart shop-0.2.0, app 1.1)            | -
          FAILED          | FAILED     | Upgrade failed: boom  | -   | imported from Helm revision 2 (failed): Upgrade failed: boom (chart shop-0.2.0)                     | Upgrade failed: boom
          PENDING_UPGRADE | SUPERSEDED | Preparing upgrade     | 1.1 | imported from Helm revision 2 (pending-upgrade): Preparing upgrade (chart shop-0.2.0, app 1.1)      | -
          UNINSTALLED     | SUPERSEDED | ''                    | 1.1 | imported from Helm revision 2 (uninstalled) (chart shop-0.2.0, app 1.1)                             | -
          """)
  void aHelmRevisionBecomesAnImportedHistoryEntryOwningNothing(
      HelmStatus helm,
      ReleaseStatus status,
      String description,
      @Nullable String app,
      String recorded,
      @Nullable String failure) {
    Release r = HelmImport.imported("id-1", revision(helm, description, app), Payloads.empty());

    assertThat(r.revision()).isEqualTo(2);
    assertThat(r.status()).isEqualTo(status);
    assertThat(r.description()).isEqualTo(recorded);
    assertThat(r.failure()).isEqualTo(failure);
    assertThat(r.source()).isEqualTo("helm chart shop-0.2.0");
    assertThat(r.version()).isEqualTo(app == null ? "0.2.0" : app);
    assertThat(r.owns()).isEmpty();
    assertThat(r.lease()).isNull();
    assertThat(r.createdAt()).isEqualTo(Instant.parse("2026-11-30T09:05:00Z"));
    assertThat(r.updatedAt()).isEqualTo(Instant.parse("2026-11-30T09:05:00Z"));
  }
}
