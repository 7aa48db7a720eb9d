package dev.capstan.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose tests each get a fresh in-memory world: parameters (of test, {@code
 * BeforeEach} and {@code AfterEach} methods) and {@link InMemory} fields of type {@code
 * InMemoryCluster}, {@code InMemoryPlatformCluster} and {@code ReleaseController} are resolved to
 * one new cluster of each kind per test, and a controller on that test's {@code InMemoryCluster}
 * (its orchestrator and store), built once per test when one is asked for.
 *
 * <pre>{@code
 * @CapstanTest
 * class ShopReleaseTest {
 *   @Test
 *   void castsTheShop(ReleaseController releases, InMemoryCluster cluster) { ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(CapstanExtension.class)
public @interface CapstanTest {
  /**
   * How many objects of one kind the controller writes at once (default 1: in plan order, so the
   * order of writes can be asserted exactly; see {@code ReleaseControllerBuilder.parallelism}).
   */
  int parallelism() default 1;
}
