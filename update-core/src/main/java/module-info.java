/**
 * The platform update engine: manifest, catalog, planner, applier, image-build planning and its
 * ports, the in-memory platform cluster (docs/api.md). Its helpers ({@code
 * dev.capstan.update.internal}) are exported only to the command line, which formats durations as
 * the engine does.
 */
@SuppressWarnings("module") // dev.capstan.cli is built after this module
module dev.capstan.update {
  requires transitive dev.capstan.common;

  exports dev.capstan.update;
  exports dev.capstan.update.apply;
  exports dev.capstan.update.build;
  exports dev.capstan.update.catalog;
  exports dev.capstan.update.cluster;
  exports dev.capstan.update.event;
  exports dev.capstan.update.manifest;
  exports dev.capstan.update.memory;
  exports dev.capstan.update.plan;
  exports dev.capstan.update.result;
  exports dev.capstan.update.version;
  exports dev.capstan.update.internal to
      dev.capstan.cli;
}
