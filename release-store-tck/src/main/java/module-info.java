/**
 * The contract tests every {@code Store}, {@code Orchestrator} and {@code PlatformCluster} must
 * pass, for a host's test scope. Opened to JUnit, which runs the contracts' test methods.
 */
module dev.capstan.store.tck {
  requires transitive dev.capstan.release;
  requires transitive dev.capstan.update;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;

  exports dev.capstan.store.tck;

  opens dev.capstan.store.tck to
      org.junit.platform.commons;
}
