package dev.capstan.common;

import java.lang.ref.SoftReference;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Values kept by key for whoever asks again, bounded by a total weight (the least recently used go
 * first once it is passed) and held softly (the collector may clear any of them when it needs the
 * memory). For results that are expensive to make from their key and immutable, or copied when
 * handed out: a process's parsed texts, its decoded records. Thread-safe; nothing is made under its
 * lock.
 *
 * @param <K> the key, with value equality
 * @param <V> the value
 */
public final class SoftCache<K, V> {
  private record Kept<V>(SoftReference<V> value, long weight) {}

  private final long maxWeight;
  private final Map<K, Kept<V>> kept = new LinkedHashMap<>(16, 0.75f, true);
  private long weight;

  /**
   * A cache holding at most {@code maxWeight} of weight.
   *
   * @throws IllegalArgumentException if {@code maxWeight} is not positive
   */
  public SoftCache(long maxWeight) {
    if (maxWeight <= 0) {
      throw new IllegalArgumentException("a cache's weight must be positive: " + maxWeight);
    }
    this.maxWeight = maxWeight;
  }

  /** The value kept for {@code key}, if it is kept and not cleared; else {@code null}. */
  public synchronized @Nullable V get(K key) {
    Kept<V> k = kept.get(key);
    V value = k == null ? null : k.value().get();
    if (k != null && value == null) {
      kept.remove(key);
      weight -= k.weight();
    }
    return value;
  }

  /**
   * Keeps {@code value} for {@code key} at {@code weight} (replacing what was kept for it), then
   * lets the least recently used go until the weight kept is at most the cache's; a value heavier
   * than the cache is not kept.
   */
  public synchronized void put(K key, V value, long weight) {
    if (weight > maxWeight) {
      return;
    }
    Kept<V> old = kept.put(key, new Kept<>(new SoftReference<>(value), weight));
    this.weight += weight - (old == null ? 0 : old.weight());
    for (Iterator<Kept<V>> eldest = kept.values().iterator();
        this.weight > maxWeight && eldest.hasNext(); ) {
      this.weight -= eldest.next().weight();
      eldest.remove();
    }
  }

  /** How many values are kept (cleared ones may be among them until asked for). */
  public synchronized int size() {
    return kept.size();
  }
}
