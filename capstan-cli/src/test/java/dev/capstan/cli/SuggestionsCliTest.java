package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A mistyped command or option is refused with what it most likely meant, as kubectl and helm
 * suggest it, and nothing runs.
 */
class SuggestionsCliTest {
  @TempDir Path dir;

  static Stream<Arguments> typos() {
    return Stream.of(
        Arguments.of(
            List.of("relase", "list"),
            "unknown command 'relase' for 'capstan'; did you mean 'release'?",
            "capstan"),
        Arguments.of(
            List.of("release", "lst"),
            "unknown command 'lst' for 'capstan release'; did you mean 'list'?",
            "capstan release"),
        Arguments.of(
            List.of("release", "hstory", "web"),
            "unknown command 'hstory' for 'capstan release'; did you mean 'history'?",
            "capstan release"),
        Arguments.of(
            List.of("release", "list", "--namespce", "demo"),
            "unknown option '--namespce' for 'capstan release list'; did you mean '--namespace'?",
            "capstan release list"),
        Arguments.of(
            List.of("release", "cast", "-f", "x.yaml", "--dry-rn"),
            "unknown option '--dry-rn' for 'capstan release cast'; did you mean '--dry-run'?",
            "capstan release cast"),
        Arguments.of(
            List.of("release", "list", "--kubeconfg=k"),
            "unknown option '--kubeconfg' for 'capstan release list'; did you mean"
                + " '--kubeconfig'?",
            "capstan release list"),
        Arguments.of(
            List.of("release", "uninstall", "web", "--delete-crd"),
            "unknown option '--delete-crd' for 'capstan release uninstall'; did you mean"
                + " '--delete-crds'?",
            "capstan release uninstall"),
        Arguments.of(
            List.of("release", "frobnicate"),
            "unknown command 'frobnicate' for 'capstan release'",
            "capstan release"));
  }

  @ParameterizedTest
  @MethodSource("typos")
  void aTypoGetsASuggestionAndNothingRuns(List<String> args, String line, String command) {
    CliRun run = CliRun.of(Terminal.none(), name -> null, dir, args.toArray(String[]::new));

    assertThat(run.code()).isEqualTo(ExitCode.INVALID);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("capstan: " + line + "\nTry '" + command + " --help'.\n");
    assertThat(dir.resolve(".capstan")).doesNotExist();
  }

  @Test
  void theDistanceCountsALetterLeftOutAddedChangedOrTwoSwapped() {
    assertThat(Suggestions.distance("list", "list")).isZero();
    assertThat(Suggestions.distance("lst", "list")).isEqualTo(1);
    assertThat(Suggestions.distance("lisst", "list")).isEqualTo(1);
    assertThat(Suggestions.distance("lost", "list")).isEqualTo(1);
    assertThat(Suggestions.distance("lsit", "list")).isEqualTo(1);
    assertThat(Suggestions.distance("cast", "list")).isEqualTo(2);
    assertThat(Suggestions.distance("", "list")).isEqualTo(4);
  }
}
