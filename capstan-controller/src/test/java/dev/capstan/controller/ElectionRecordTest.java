package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1LeaseSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ElectionRecordTest {
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final Duration MICROSECOND = Duration.ofNanos(1_000);

  @Test
  void aLeaseSpecIsReadFieldByField() {
    V1LeaseSpec spec =
        new V1LeaseSpec()
            .holderIdentity("a")
            .acquireTime(OffsetDateTime.ofInstant(T0, ZoneOffset.UTC))
            .renewTime(OffsetDateTime.ofInstant(T0.plusSeconds(5), ZoneOffset.UTC))
            .leaseDurationSeconds(15)
            .leaseTransitions(3);

    assertThat(ElectionRecord.of(spec))
        .isEqualTo(new ElectionRecord("a", T0, T0.plusSeconds(5), 15, 3));
  }

  @Test
  void anEmptyHolderIsNoneAndMissingFieldsAreNullOrZero() {
    assertThat(ElectionRecord.of(new V1LeaseSpec().holderIdentity("")))
        .isEqualTo(new ElectionRecord(null, null, null, 0, 0));
    assertThat(ElectionRecord.of(null)).isEqualTo(new ElectionRecord(null, null, null, 0, 0));
  }

  @Test
  void aRenewalCountsForTheLeaseDurationAndNotAMicrosecondLonger() {
    ElectionRecord held = new ElectionRecord("b", T0, T0, 15, 0);

    assertThat(held.expiresAt()).isEqualTo(T0.plusSeconds(15));
    assertThat(held.takeableAt(T0.plusSeconds(15))).isFalse();
    assertThat(held.takeableAt(T0.plusSeconds(15).plus(MICROSECOND))).isTrue();
  }

  @Test
  void aFreeLeaseOrOneWithoutRenewalTimeIsTakeableAtOnce() {
    assertThat(new ElectionRecord(null, T0, T0, 1, 4).takeableAt(T0)).isTrue();
    assertThat(new ElectionRecord("b", T0, null, 15, 4).takeableAt(T0)).isTrue();
    assertThat(new ElectionRecord("b", T0, null, 15, 4).expiresAt()).isNull();
  }

  @Test
  void aTakeOverAcquiresNowAndCountsATransition() {
    ElectionRecord expired = new ElectionRecord("b", T0, T0, 15, 4);
    Instant now = T0.plusSeconds(20);

    assertThat(expired.acquiredBy("a", now, 10))
        .isEqualTo(new ElectionRecord("a", now, now, 10, 5));
    assertThat(new ElectionRecord(null, T0, T0, 1, 4).acquiredBy("a", now, 10))
        .isEqualTo(new ElectionRecord("a", now, now, 10, 5));
  }

  @Test
  void theHolderAcquiringItsOwnLeaseKeepsItsAcquireTimeAndTheTransitions() {
    Instant now = T0.plusSeconds(20);

    assertThat(new ElectionRecord("a", T0, T0, 15, 4).acquiredBy("a", now, 15))
        .isEqualTo(new ElectionRecord("a", T0, now, 15, 4));
    assertThat(new ElectionRecord("a", null, T0, 15, 4).acquiredBy("a", now, 15))
        .isEqualTo(new ElectionRecord("a", now, now, 15, 4));
  }

  @Test
  void aCreatedLeaseHasNoTransitionYet() {
    assertThat(ElectionRecord.created("a", T0, 15))
        .isEqualTo(new ElectionRecord("a", T0, T0, 15, 0));
  }

  @Test
  void aRenewalMovesOnlyTheRenewTime() {
    assertThat(new ElectionRecord("a", T0, T0, 15, 4).renewedAt(T0.plusSeconds(5), 15))
        .isEqualTo(new ElectionRecord("a", T0, T0.plusSeconds(5), 15, 4));
  }

  @Test
  void aGivenUpLeaseNamesNoHolderForOneSecondAndKeepsTheTransitions() {
    Instant now = T0.plusSeconds(7);

    assertThat(new ElectionRecord("a", T0, T0, 15, 4).releasedAt(now))
        .isEqualTo(new ElectionRecord(null, now, now, 1, 4));
  }

  @Test
  void theSpecHoldsTheRecordAndKeepsTheFieldsTheRecordDoesNotKnow() {
    ElectionRecord record = new ElectionRecord("a", T0, T0.plusSeconds(5), 15, 4);
    V1LeaseSpec base =
        new V1LeaseSpec()
            .holderIdentity("b")
            .preferredHolder("c")
            .strategy("OldestEmulationVersion");

    V1LeaseSpec spec = record.toSpec(base);

    assertThat(ElectionRecord.of(spec)).isEqualTo(record);
    assertThat(spec.getPreferredHolder()).isEqualTo("c");
    assertThat(spec.getStrategy()).isEqualTo("OldestEmulationVersion");
    assertThat(new ElectionRecord(null, T0, T0, 1, 4).toSpec(base).getHolderIdentity()).isNull();
  }
}
