package dev.capstan.update.cluster;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Immutable, key-sorted copies of string maps (so everything derived is deterministic). */
final class Maps {
  private Maps() {}

  static SortedMap<String, String> sorted(Map<String, String> map) {
    TreeMap<String, String> copy = new TreeMap<>();
    map.forEach(
        (k, v) -> {
          if (k == null || v == null) {
            throw new NullPointerException("map keys and values must not be null");
          }
          copy.put(k, v);
        });
    return Collections.unmodifiableSortedMap(copy);
  }

  static SortedMap<String, String> with(Map<String, String> map, String key, String value) {
    TreeMap<String, String> copy = new TreeMap<>(map);
    copy.put(key, value);
    return Collections.unmodifiableSortedMap(copy);
  }
}
