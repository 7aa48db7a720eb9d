package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.memory.InMemoryCluster;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Files the API server would refuse (HTTP 413, 422 or a timeout) are refused by the cast before its
 * first write: the in-memory cluster's operation log stays empty, so no record, lease or object was
 * touched. {@link BadFiles} builds the files; the control-plane IT casts the same ones.
 */
class NothingWrittenTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ReleaseController controller = ReleaseController.builder(cluster, cluster).build();

  private void castRefused(String yaml, String... problems) {
    ReleaseFile file =
        ReleaseFiles.parse(
            yaml.getBytes(StandardCharsets.UTF_8), "bad.yaml", Overrides.none(), n -> null);
    assertThatThrownBy(() -> controller.cast(file.toSpec(), file.payloads()))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class, e -> assertThat(e.problems()).containsExactly(problems));
    assertThat(cluster.operations()).isEmpty();
  }

  @Test
  void aTwoMegabyteConfigMapValueIsRefusedBeforeAnyWrite() {
    castRefused(
        BadFiles.oversizedConfigMap("shop"),
        "ConfigMap shop/big: data must total at most 1048576 bytes (1 MiB): 2097152",
        "ConfigMap shop/big: the object serialized must be at most 1572864 bytes (1.5 MiB, the"
            + " API server's request limit): 2097254");
  }

  @Test
  void aValueAliasedNineteenTimesIsRefusedBeforeAnyWrite() {
    castRefused(
        BadFiles.aliasedValue("shop"),
        "ConfigMap shop/aliased: data must total at most 1048576 bytes (1 MiB): 2048000",
        "ConfigMap shop/aliased: the object serialized must be at most 1572864 bytes (1.5 MiB,"
            + " the API server's request limit): 2048276");
  }

  @Test
  void aHundredFiftyThousandKeyFileIsRefusedBeforeAnyWrite() {
    castRefused(
        BadFiles.manyKeys("shop"),
        "ConfigMap shop/many: the object serialized must be at most 1572864 bytes (1.5 MiB, the"
            + " API server's request limit): 2100093");
  }
}
