package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A soft cache keeps values up to its weight, the least recently used going first. */
class SoftCacheTest {
  @Test
  void theLeastRecentlyUsedGoOnceTheWeightIsPassed() {
    SoftCache<String, String> cache = new SoftCache<>(10);
    cache.put("a", "A", 4);
    cache.put("b", "B", 4);
    assertThat(cache.get("a")).isEqualTo("A"); // a is now the more recently used

    cache.put("c", "C", 4);

    assertThat(cache.get("b")).isNull();
    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(cache.get("c")).isEqualTo("C");
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void aValueReplacedWeighsItsNewWeightAndOneTooHeavyIsNotKept() {
    SoftCache<String, String> cache = new SoftCache<>(10);
    cache.put("a", "A", 8);
    cache.put("a", "A2", 2);
    cache.put("b", "B", 8);

    assertThat(cache.get("a")).isEqualTo("A2");
    assertThat(cache.get("b")).isEqualTo("B");

    cache.put("c", "C", 11);
    assertThat(cache.get("c")).isNull();
    assertThat(cache.size()).isEqualTo(2);
    assertThatThrownBy(() -> new SoftCache<String, String>(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a cache's weight must be positive: 0");
  }
}
