package dev.capstan.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.testkit.engine.EngineTestKit;

@CapstanTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CapstanExtensionTest {
  private static final List<Object> SEEN = new ArrayList<>();

  @InMemory @Nullable InMemoryCluster cluster;
  @InMemory @Nullable InMemoryPlatformCluster platform;
  @InMemory @Nullable ReleaseController releases;
  private @Nullable InMemoryCluster fromBeforeEach;

  @BeforeEach
  void before(InMemoryCluster cluster) {
    fromBeforeEach = cluster;
  }

  private static Payloads settings() {
    return Payloads.of(ConfigMapSpec.of("default", "settings", Map.of("k", "v")));
  }

  @Test
  @Order(1)
  void parametersFieldsAndBeforeEachShareOneWorldAndTheControllerRunsOnIt(
      InMemoryCluster cluster, InMemoryPlatformCluster platform, ReleaseController releases) {
    assertThat(this.cluster).isSameAs(cluster).isSameAs(fromBeforeEach);
    assertThat(this.platform).isSameAs(platform);
    assertThat(this.releases).isSameAs(releases);

    releases.cast(ReleaseSpec.of("default", "app", settings()), settings());

    assertThat(cluster.writes()).containsExactly("apply:ConfigMap/default/settings", "verify");
    assertThat(releases.get("default", "app")).isPresent();
    SEEN.add(cluster);
    SEEN.add(platform);
    SEEN.add(releases);
  }

  @Test
  @Order(2)
  void eachTestGetsAFreshWorld(
      InMemoryCluster cluster, InMemoryPlatformCluster platform, ReleaseController releases) {
    assertThat(SEEN).hasSize(3).doesNotContain(cluster, platform, releases);
    assertThat(cluster.objects()).isEmpty();
    assertThat(cluster.operations()).isEmpty();
    assertThat(platform.writes()).isEmpty();
    assertThat(releases.list("default", true)).isEmpty();
  }

  @Nested
  class InANestedClass {
    @InMemory @Nullable InMemoryCluster inner;

    @Test
    void theOuterAndInnerFieldsAreTheTestsWorld(InMemoryCluster cluster) {
      assertThat(inner).isSameAs(cluster);
      assertThat(CapstanExtensionTest.this.cluster).isSameAs(cluster);
    }
  }

  /** Run only through the engine test kit below. */
  @CapstanTest
  static class WithAFinalField {
    @InMemory final String notACluster = "x";

    @Test
    void never() {}
  }

  /** Only its classes are looked at, below. */
  @CapstanTest(parallelism = 3)
  static class WithParallelism {
    @Nested
    class Inner {}
  }

  @Test
  void aNestedClassTakesTheParallelismOfTheKitOnTheClassEnclosingIt() {
    assertThat(CapstanExtension.parallelism(WithParallelism.Inner.class)).isEqualTo(3);
    assertThat(CapstanExtension.parallelism(WithParallelism.class)).isEqualTo(3);
    assertThat(CapstanExtension.parallelism(InANestedClass.class)).isEqualTo(1);
    assertThat(CapstanExtension.parallelism(String.class)).isEqualTo(1);
  }

  @Test
  @Order(3)
  void anInMemoryFieldOfAnotherTypeFailsTheTestNamingTheField() {
    EngineTestKit.engine("junit-jupiter")
        .selectors(selectClass(WithAFinalField.class))
        .execute()
        .testEvents()
        .assertThatEvents()
        .haveExactly(
            1,
            event(
                test("never"),
                finishedWithFailure(
                    instanceOf(ExtensionConfigurationException.class),
                    message(
                        "@InMemory field dev.capstan.test.CapstanExtensionTest$WithAFinalField"
                            + ".notACluster must be a non-static, non-final InMemoryCluster,"
                            + " InMemoryPlatformCluster or ReleaseController:"
                            + " java.lang.String"))));
  }
}
