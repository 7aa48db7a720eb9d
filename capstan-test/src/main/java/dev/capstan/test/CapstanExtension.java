package dev.capstan.test;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * The extension behind {@link CapstanTest}: one {@code InMemoryCluster}, {@code
 * InMemoryPlatformCluster} and (on demand) {@code ReleaseController} per test, kept in the test's
 * extension store and handed to its parameters and {@link InMemory} fields. Register it with
 * {@code @CapstanTest} (or {@code @ExtendWith(CapstanExtension.class)}, with the default
 * parallelism).
 */
public final class CapstanExtension implements ParameterResolver, BeforeEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(CapstanExtension.class);
  private static final List<Class<?>> TYPES =
      List.of(InMemoryCluster.class, InMemoryPlatformCluster.class, ReleaseController.class);

  /** Creates the extension (JUnit does). */
  public CapstanExtension() {}

  /** One test's world. */
  private static final class World {
    final InMemoryCluster cluster = InMemoryCluster.create();
    final InMemoryPlatformCluster platform = InMemoryPlatformCluster.create();
    private final int parallelism;
    private @Nullable ReleaseController controller;

    World(int parallelism) {
      this.parallelism = parallelism;
    }

    synchronized ReleaseController controller() {
      ReleaseController c = controller;
      if (c == null) {
        c = ReleaseController.builder(cluster, cluster).parallelism(parallelism).build();
        controller = c;
      }
      return c;
    }

    Object get(Class<?> type) {
      if (type == InMemoryCluster.class) {
        return cluster;
      }
      if (type == InMemoryPlatformCluster.class) {
        return platform;
      }
      return controller();
    }
  }

  /**
   * The parallelism of the nearest {@link CapstanTest} on the test class or, for a {@code Nested}
   * one, on a class enclosing it; 1 when there is none.
   */
  static int parallelism(Class<?> testClass) {
    for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
      Optional<CapstanTest> kit = AnnotationSupport.findAnnotation(c, CapstanTest.class);
      if (kit.isPresent()) {
        return kit.get().parallelism();
      }
    }
    return 1;
  }

  /**
   * The test's world, made on first use. Only API of JUnit 5.10 ({@code get} and {@code put}; the
   * store's {@code computeIfAbsent} is JUnit 6's, {@code getOrComputeIfAbsent} deprecated there):
   * the kit runs on JUnit 5.10 and later, 6 included. One test's callbacks and parameters are
   * resolved on one thread, so nothing else makes its world meanwhile.
   */
  private static World world(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    World world = store.get(World.class, World.class);
    if (world == null) {
      world = new World(parallelism(context.getRequiredTestClass()));
      store.put(World.class, world);
    }
    return world;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return TYPES.contains(parameter.getParameter().getType())
        && context.getTestMethod().isPresent();
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return world(context).get(parameter.getParameter().getType());
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    World world = world(context);
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Field field :
          AnnotationSupport.findAnnotatedFields(
              instance.getClass(), InMemory.class, f -> true, HierarchyTraversalMode.TOP_DOWN)) {
        if (!TYPES.contains(field.getType())
            || Modifier.isStatic(field.getModifiers())
            || Modifier.isFinal(field.getModifiers())) {
          throw new ExtensionConfigurationException(
              "@InMemory field "
                  + field.getDeclaringClass().getName()
                  + "."
                  + field.getName()
                  + " must be a non-static, non-final InMemoryCluster, InMemoryPlatformCluster or"
                  + " ReleaseController: "
                  + field.getType().getName());
        }
        field.setAccessible(true);
        field.set(instance, world.get(field.getType()));
      }
    }
  }
}
