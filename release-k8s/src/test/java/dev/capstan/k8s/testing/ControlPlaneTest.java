package dev.capstan.k8s.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against the shared integration-test control plane.
 *
 * <p>Test methods and lifecycle methods may declare parameters of type {@link ControlPlane}, {@link
 * io.kubernetes.client.openapi.ApiClient} (the shared client) and {@link TestNamespace} (a fresh
 * namespace for the current test, whose {@code default} ServiceAccount already exists).
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("control-plane")
@ExtendWith(ControlPlaneExtension.class)
public @interface ControlPlaneTest {}
