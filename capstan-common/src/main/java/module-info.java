/**
 * Capstan's shared kernel: the exception root, escaping, strict YAML and JSON input, object trees,
 * the Jackson configuration, the manual clock and fault plan, and the health rules. Both cores and
 * every adapter use it; a host meets its exceptions and input limits.
 */
module dev.capstan.common {
  requires transitive com.fasterxml.jackson.databind;
  requires transitive org.jspecify;
  requires transitive org.slf4j;
  requires transitive org.snakeyaml.engine;

  exports dev.capstan.common;
  exports dev.capstan.common.health;

  // the health rule compiler of release-cel, when it is there (HealthRuleCompiler.installed)
  uses dev.capstan.common.health.HealthRuleCompiler;
}
