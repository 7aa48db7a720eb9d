package dev.capstan.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Release resources in memory, as a test arranges them: writes change them at once (as the cache
 * would once it heard of them) and are recorded in order.
 */
final class FakeReleaseObjects implements ReleaseObjects {
  private final Map<ReleaseKey, ReleaseResource> releases = new LinkedHashMap<>();

  /** Every write, in order: {@code finalizer+ ns/name}, {@code status ns/name Ready=True}, ... */
  final List<String> writes = new ArrayList<>();

  /** Every Event: {@code Normal Cast ns/name: message}. */
  final List<String> events = new ArrayList<>();

  /**
   * The Event objects as the Kubernetes adapter keeps them, one per Release and reason, with their
   * count: {@code ns/name Reason} to count.
   */
  final Map<String, Integer> eventObjects = new LinkedHashMap<>();

  private int version = 1;

  FakeReleaseObjects put(ReleaseResource release) {
    releases.put(release.key(), release);
    return this;
  }

  /** A Release as created: generation 1, no finalizer, no status. */
  static ReleaseResource release(String namespace, String name, Map<String, Object> spec) {
    return new ReleaseResource(
        new ReleaseKey(namespace, name),
        "uid-" + name,
        1,
        "1",
        false,
        List.of(),
        Map.of(),
        spec,
        Map.of());
  }

  @Override
  public @Nullable ReleaseResource get(ReleaseKey key) {
    return releases.get(key);
  }

  @Override
  public List<ReleaseResource> list() {
    return List.copyOf(releases.values());
  }

  @Override
  public void addFinalizer(ReleaseResource release) {
    List<String> f = new ArrayList<>(release.finalizers());
    f.add(ReleaseResource.FINALIZER);
    replace(release, f, current(release).status());
    writes.add("finalizer+ " + release.key());
  }

  @Override
  public void removeFinalizer(ReleaseResource release) {
    List<String> f = new ArrayList<>(release.finalizers());
    f.remove(ReleaseResource.FINALIZER);
    if (release.deleting() && f.isEmpty()) {
      releases.remove(release.key());
    } else {
      replace(release, f, current(release).status());
    }
    writes.add("finalizer- " + release.key());
  }

  @Override
  public void writeStatus(ReleaseResource release, Map<String, Object> status) {
    replace(release, current(release).finalizers(), status);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> conditions =
        (List<Map<String, Object>>) java.util.Objects.requireNonNull(status.get("conditions"));
    Map<String, Object> ready =
        conditions.stream().filter(c -> "Ready".equals(c.get("type"))).findFirst().orElse(null);
    boolean suspended = conditions.stream().anyMatch(c -> "Suspended".equals(c.get("type")));
    writes.add(
        "status "
            + release.key()
            + (ready == null ? "" : " Ready=" + ready.get("status") + " " + ready.get("reason"))
            + (suspended ? " Suspended" : ""));
  }

  @Override
  public void event(ReleaseResource release, boolean warning, String reason, String message) {
    events.add((warning ? "Warning " : "Normal ") + reason + " " + release.key() + ": " + message);
    eventObjects.merge(release.key() + " " + reason, 1, Integer::sum);
  }

  private ReleaseResource current(ReleaseResource release) {
    ReleaseResource r = releases.get(release.key());
    return r != null ? r : release;
  }

  private void replace(
      ReleaseResource release,
      List<String> finalizers,
      Map<String, ? extends @Nullable Object> status) {
    ReleaseResource r = current(release);
    releases.put(
        r.key(),
        new ReleaseResource(
                r.key(),
                r.uid(),
                r.generation(),
                String.valueOf(++version),
                r.deleting(),
                finalizers,
                r.annotations(),
                r.spec(),
                Map.of())
            .withStatus(status));
  }

  /** The Release with a new spec: the next generation. */
  void changeSpec(ReleaseKey key, Map<String, Object> spec) {
    ReleaseResource r = java.util.Objects.requireNonNull(releases.get(key));
    releases.put(
        key,
        new ReleaseResource(
                key,
                r.uid(),
                r.generation() + 1,
                String.valueOf(++version),
                false,
                r.finalizers(),
                r.annotations(),
                spec,
                Map.of())
            .withStatus(r.status()));
  }

  /** The Release with an annotation set (its generation unchanged, as on Kubernetes). */
  void annotate(ReleaseKey key, String name, String value) {
    ReleaseResource r = java.util.Objects.requireNonNull(releases.get(key));
    Map<String, String> annotations = new LinkedHashMap<>(r.annotations());
    annotations.put(name, value);
    releases.put(
        key,
        new ReleaseResource(
                key,
                r.uid(),
                r.generation(),
                String.valueOf(++version),
                r.deleting(),
                r.finalizers(),
                annotations,
                r.spec(),
                Map.of())
            .withStatus(r.status()));
  }

  /** The Release marked for deletion (its finalizers keep it). */
  void delete(ReleaseKey key) {
    ReleaseResource r = java.util.Objects.requireNonNull(releases.get(key));
    releases.put(
        key,
        new ReleaseResource(
                key,
                r.uid(),
                r.generation(),
                String.valueOf(++version),
                true,
                r.finalizers(),
                r.annotations(),
                r.spec(),
                Map.of())
            .withStatus(r.status()));
  }
}
