package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Tenancy#allowsChartRepository}: a repository under an allowed one is allowed, and no
 * spelling of a path that a chart server reads as climbing out of it is.
 */
class TenancyTest {
  private static final Tenancy TEAM_A =
      Tenancy.open().withChartRepositories(List.of("https://charts.example.com/team-a"));

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://charts.example.com/team-a",
        "https://charts.example.com/team-a/",
        "https://charts.example.com/team-a/stable",
        "https://charts.example.com/team-a/stable%20charts",
      })
  void aRepositoryAtOrUnderAnAllowedOneIsAllowed(String repository) {
    assertThat(TEAM_A.allowsChartRepository(repository)).isTrue();
  }

  /**
   * Go's ServeMux decodes {@code %2f} and cleans the path it makes before serving; Tomcat drops a
   * segment's {@code ;} parameters before it cleans.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://charts.example.com/team-a/../team-b",
        "https://charts.example.com/team-a/%2e%2E/team-b",
        "https://charts.example.com/team-a/..%2fteam-b",
        "https://charts.example.com/team-a/..%2Fteam-b",
        "https://charts.example.com/team-a/%2e%2e%2fteam-b",
        "https://charts.example.com/team-a/..%5cteam-b",
        "https://charts.example.com/team-a/stable/..%2f..%2fteam-b",
        "https://charts.example.com/team-a/..;/team-b",
        "https://charts.example.com/team-a/%2e%2e;x=1/team-b",
      })
  void noPathClimbingOutOfItIsAllowed(String repository) {
    assertThat(TEAM_A.allowsChartRepository(repository)).isFalse();
  }
}
