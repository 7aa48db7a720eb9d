package dev.capstan.common.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HealthTest {

  @Test
  void currentIsReadyAndNotFailed() {
    Health h = Health.current();
    assertThat(h.isCurrent()).isTrue();
    assertThat(h.isFailed()).isFalse();
    assertThat(h.describe()).isEqualTo("Current");
    assertThat(h).isEqualTo(Health.current()).isInstanceOf(Health.Current.class);
  }

  @Test
  void inProgressIsNeitherReadyNorFailed() {
    Health h = Health.inProgress("Job shop/migrate: 0 of 1 completions succeeded");
    assertThat(h.isCurrent()).isFalse();
    assertThat(h.isFailed()).isFalse();
    assertThat(h.describe())
        .isEqualTo("InProgress: Job shop/migrate: 0 of 1 completions succeeded");
    assertThat(h)
        .isEqualTo(new Health.InProgress("Job shop/migrate: 0 of 1 completions succeeded"));
  }

  @Test
  void failedIsFailedAndNotReady() {
    Health h = Health.failed("Pod shop/p: phase Failed");
    assertThat(h.isCurrent()).isFalse();
    assertThat(h.isFailed()).isTrue();
    assertThat(h.describe()).isEqualTo("Failed: Pod shop/p: phase Failed");
  }

  @Test
  @SuppressWarnings("NullAway")
  void aReasonIsRequired() {
    assertThatThrownBy(() -> Health.inProgress(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("reason");
    assertThatThrownBy(() -> Health.failed(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("reason");
  }
}
