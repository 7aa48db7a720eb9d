/**
 * The test kit for hosts: {@code @CapstanTest} and the assertions over the in-memory clusters'
 * writes. Opened to JUnit, which sets a test's {@code @InMemory} fields through the extension.
 */
module dev.capstan.test {
  requires transitive dev.capstan.release;
  requires transitive dev.capstan.update;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;

  exports dev.capstan.test;
}
