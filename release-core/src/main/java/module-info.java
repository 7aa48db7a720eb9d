/**
 * The release engine: the release model, the pure 3-way planner, {@code ReleaseController}, the
 * {@code Orchestrator} and {@code Store} ports, the in-memory cluster and the record codec
 * (docs/api.md). The engine's operations ({@code dev.capstan.release.engine}) and its helpers
 * ({@code dev.capstan.release.internal}) are not exported: no module reads them.
 */
module dev.capstan.release {
  requires transitive dev.capstan.common;

  exports dev.capstan.release;
  exports dev.capstan.release.chart;
  exports dev.capstan.release.codec;
  exports dev.capstan.release.diff;
  exports dev.capstan.release.error;
  exports dev.capstan.release.event;
  exports dev.capstan.release.health;
  exports dev.capstan.release.memory;
  exports dev.capstan.release.model;
  exports dev.capstan.release.plan;
  exports dev.capstan.release.port;
  exports dev.capstan.release.result;
  exports dev.capstan.release.rollout;
  exports dev.capstan.release.validate;

  uses dev.capstan.release.model.ManifestConverter;
}
