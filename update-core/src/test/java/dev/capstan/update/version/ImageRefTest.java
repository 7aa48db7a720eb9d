package dev.capstan.update.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ImageRefTest {
  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nginx | '' | nginx | '' | ''",
        "nginx:1.25 | '' | nginx | 1.25 | ''",
        "library/nginx:1.25 | '' | library/nginx | 1.25 | ''",
        "registry.registry.svc.cluster.local:5000/mcp-ui:v0.5.0 | registry.registry.svc.cluster.local:5000 | mcp-ui | v0.5.0 | ''",
        "localhost/app:dev | localhost | app | dev | ''",
        "localhost:5000/a/b/c:1 | localhost:5000 | a/b/c | 1 | ''",
        "ghcr.io/org/app@"
            + "sha256:abababababababababababababababababababababababababababababababab"
            + " | ghcr.io | org/app | '' | sha256:abababababababababababababababababababababababababababababababab",
        "reg:5000/app:v1@sha256:abababababababababababababababababababababababababababababababab"
            + " | reg:5000 | app | v1 | sha256:abababababababababababababababababababababababababababababababab",
        "reg:5000/app | reg:5000 | app | '' | ''",
        "my_org/my-app__x.y:V1_2 | '' | my_org/my-app__x.y | V1_2 | ''",
      })
  void parsesAndRoundTrips(String text, String registry, String path, String tag, String digest) {
    ImageRef ref = ImageRef.parse(text);

    assertThat(ref).isEqualTo(new ImageRef(registry, path, tag, digest));
    assertThat(ref).hasToString(text);
    assertThat(ref.name()).isEqualTo(registry.isEmpty() ? path : registry + "/" + path);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        ":tag",
        "app:",
        "app@",
        "UPPER/app",
        "a//b",
        "/app",
        "app/",
        "app:v1 beta",
        "app:-bad",
        "reg:abc/app",
        "app@sha256:short",
        "-app",
        "app..x",
        "reg.io/Org/app",
        "app:"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
            + "t123456789"
      })
  void rejectsBadReferences(String text) {
    assertThat(ImageRef.tryParse(text)).isEmpty();
    assertThatThrownBy(() -> ImageRef.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void messagesNameTheRuleAndTheValue() {
    assertThatThrownBy(() -> ImageRef.parse("reg.io/app:v1 beta"))
        .hasMessage(
            "invalid image reference 'reg.io/app:v1 beta' ([registry[:port]/]path[:tag][@digest]):"
                + " image tag must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}: 'v1 beta'");
    assertThatThrownBy(() -> ImageRef.parse("")).hasMessage("image reference must not be empty");
  }

  @Test
  void releaseCommitSuffixIsExactlyGFollowedByFortyLowercaseHex() {
    String commit = "0123456789abcdef0123456789abcdef01234567";
    assertThat(ImageRef.parse("reg/app:v0.6.3-g" + commit).releaseCommit()).contains(commit);
    assertThat(ImageRef.releaseVersion("v0.6.3-g" + commit)).isEqualTo("v0.6.3");
    assertThat(ImageRef.releaseVersion("v0.6.3-g" + commit.substring(1)))
        .isEqualTo("v0.6.3-g" + commit.substring(1));
    assertThat(ImageRef.releaseVersion("v0.6.3-g" + commit + "0"))
        .isEqualTo("v0.6.3-g" + commit + "0");
    assertThat(ImageRef.releaseVersion("v0.6.3-g" + commit.toUpperCase(java.util.Locale.ROOT)))
        .endsWith(commit.toUpperCase(java.util.Locale.ROOT));
    assertThat(ImageRef.releaseVersion("v0.6.3-gabc")).isEqualTo("v0.6.3-gabc");
    assertThat(ImageRef.parse("reg/app:v0.6.3").releaseCommit()).isEmpty();
  }

  @Test
  void digestFromImageId() {
    assertThat(ImageRef.digestFromImageId("docker-pullable://reg:5000/app@" + DIGEST))
        .contains(DIGEST);
    assertThat(ImageRef.digestFromImageId("reg:5000/app@" + DIGEST)).contains(DIGEST);
    assertThat(ImageRef.digestFromImageId(DIGEST)).contains(DIGEST);
    assertThat(ImageRef.digestFromImageId("docker://sha256:abc")).isEmpty();
    assertThat(ImageRef.digestFromImageId("")).isEmpty();
  }

  @Test
  void repositoryProblems() {
    assertThat(ImageRef.repositoryProblem("ghcr.io/org/app")).isEmpty();
    assertThat(ImageRef.repositoryProblem("app:v1"))
        .contains("must be an image repository without tag or digest");
    assertThat(ImageRef.repositoryProblem("App"))
        .contains("must be an image repository [registry[:port]/]path");
  }
}
