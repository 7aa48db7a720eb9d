package dev.capstan.test;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.update.memory.InMemoryPlatformCluster;

/**
 * Entry points of the kit's AssertJ assertions over what the in-memory clusters recorded; import
 * them statically beside AssertJ's {@code assertThat}.
 *
 * <pre>{@code
 * assertThat(cluster)
 *     .appliedInOrder("Secret/shop/db", "apps/Deployment/shop/web")
 *     .prunedLast()
 *     .neverTouched("ConfigMap/shop/shared");
 * }</pre>
 */
public final class CapstanAssertions {
  private CapstanAssertions() {}

  /** Assertions over the writes {@code cluster} recorded ({@link InMemoryCluster#operations()}). */
  public static ReleaseWritesAssert assertThat(InMemoryCluster cluster) {
    return new ReleaseWritesAssert(cluster);
  }

  /**
   * Assertions over the writes {@code cluster} recorded ({@link InMemoryPlatformCluster#writes()}).
   */
  public static PlatformWritesAssert assertThat(InMemoryPlatformCluster cluster) {
    return new PlatformWritesAssert(cluster);
  }
}
