package dev.capstan.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field of a {@link CapstanTest} class set before each test (before its {@code BeforeEach}
 * methods) to that test's {@code InMemoryCluster}, {@code InMemoryPlatformCluster} or {@code
 * ReleaseController}: the same objects its parameters receive. The field must not be static or
 * final.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface InMemory {}
