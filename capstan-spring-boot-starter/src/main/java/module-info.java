/**
 * Spring Boot auto-configuration of Capstan. Opened to Spring, which builds the
 * auto-configuration's configuration classes and binds the {@code capstan.*} properties
 * reflectively; Actuator's and Boot 4's health APIs, Micrometer and OpenTelemetry are optional,
 * each used when the application has it.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // Spring's jars
module dev.capstan.spring.boot {
  requires transitive dev.capstan.release;
  requires transitive dev.capstan.k8s;
  requires transitive spring.boot;
  requires transitive spring.boot.autoconfigure;
  requires transitive spring.beans;
  requires transitive spring.context;
  requires spring.core;
  requires static spring.boot.actuator;
  requires static spring.boot.health;
  requires static dev.capstan.micrometer;
  requires static micrometer.core;
  requires static dev.capstan.opentelemetry;
  requires static io.opentelemetry.api;

  exports dev.capstan.spring.boot;

  opens dev.capstan.spring.boot to
      spring.core,
      spring.beans,
      spring.context;
}
