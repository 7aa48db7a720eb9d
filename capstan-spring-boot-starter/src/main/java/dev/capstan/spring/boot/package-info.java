/**
 * Spring Boot auto-configuration of Capstan: a {@code ReleaseController} bean on the application's
 * Kubernetes client ({@link dev.capstan.spring.boot.CapstanAutoConfiguration}), configured by the
 * {@code capstan.*} properties ({@link dev.capstan.spring.boot.CapstanProperties}), with metrics,
 * tracing and a health indicator when the application has Micrometer, OpenTelemetry and Actuator.
 * For Spring Boot 3.5 and 4.0.
 */
@NullMarked
package dev.capstan.spring.boot;

import org.jspecify.annotations.NullMarked;
