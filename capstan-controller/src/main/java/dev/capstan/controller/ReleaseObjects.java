package dev.capstan.controller;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Release} resources as the reconciler reads and writes them: reads come from the
 * controller's cache, writes go to the API server. The Kubernetes implementation is {@link
 * KubernetesReleaseObjects}; tests use an in-memory one.
 */
interface ReleaseObjects {
  /** The Release, or null when it does not exist (any more). */
  @Nullable ReleaseResource get(ReleaseKey key);

  /** Every Release the controller sees (its shard), in no particular order. */
  List<ReleaseResource> list();

  /**
   * Adds the controller's finalizer, conditioned on the Release's resourceVersion.
   *
   * @throws dev.capstan.common.ClusterException when the write fails (409 when the Release moved)
   */
  void addFinalizer(ReleaseResource release);

  /**
   * Removes the controller's finalizer, conditioned on the Release's resourceVersion.
   *
   * @throws dev.capstan.common.ClusterException when the write fails
   */
  void removeFinalizer(ReleaseResource release);

  /**
   * Replaces the Release's status (its {@code status} subresource).
   *
   * @throws dev.capstan.common.ClusterException when the write fails
   */
  void writeStatus(ReleaseResource release, Map<String, Object> status);

  /**
   * Records a Kubernetes Event about the Release; a failure to record it is logged, not thrown.
   *
   * @param warning a {@code Warning} event, else {@code Normal}
   * @param reason a CamelCase reason
   * @param message one line, no secret value
   */
  void event(ReleaseResource release, boolean warning, String reason, String message);
}
