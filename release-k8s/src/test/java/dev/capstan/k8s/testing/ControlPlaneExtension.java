package dev.capstan.k8s.testing;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension behind {@link ControlPlaneTest}: one {@link ControlPlane} per test run, kept in
 * the root store (so it is closed, and its processes stopped, when the run ends), and a fresh
 * {@link TestNamespace} per test method.
 *
 * <p>Only API of JUnit 5.10 ({@code Store.get} and {@code put}, not JUnit 6's {@code
 * computeIfAbsent}): the Spring Boot example's tests run it on JUnit 5.12 (Boot 3.5's) and 6.
 * Callbacks of one test class run on one thread, so nothing else starts the control plane
 * meanwhile; on JUnit 6 the root store closes it when the run ends, on JUnit 5 (which closes only
 * its own {@code CloseableResource}) its shutdown hook stops it when the JVM exits.
 *
 * <p>When the control plane cannot be started, every test that uses it fails with the cause. Only
 * outside CI, and only when asked with {@code -Dcapstan.it.skip=true}, are the tests skipped
 * instead.
 */
public final class ControlPlaneExtension
    implements BeforeAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        AfterAllCallback,
        ParameterResolver {

  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(ControlPlaneExtension.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration NAMESPACE_READY_TIMEOUT = Duration.ofSeconds(60);

  /** Creates the extension; JUnit does this for {@link ControlPlaneTest} classes. */
  public ControlPlaneExtension() {}

  /** The outcome of the one start attempt of this run: a control plane, or why there is none. */
  private record Started(@Nullable ControlPlane plane, @Nullable RuntimeException failure)
      implements AutoCloseable {
    @Override
    public void close() {
      if (plane != null) {
        plane.close();
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    ControlPlaneSettings settings = ControlPlaneSettings.fromEnvironment();
    if (settings.skip() && !settings.ci()) {
      return; // each test is reported as skipped, with the reason, by beforeEach
    }
    controlPlane(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    controlPlane(context);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    ControlPlane plane = started(context).map(Started::plane).orElse(null);
    if (plane == null) {
      return; // skipped, or the start failed: that failure is already reported
    }
    TestNamespace namespace = context.getStore(STORE).get(TestNamespace.class, TestNamespace.class);
    if (context.getExecutionException().isPresent()) {
      plane.recordFailure(context.getUniqueId());
      if (namespace != null) {
        ControlPlane.log(
            "kept namespace "
                + namespace.name()
                + " of failed test "
                + context.getDisplayName()
                + plane.logDir().map(d -> "; component logs: " + d).orElse(""));
      }
    } else if (namespace != null) {
      deleteNamespace(plane, namespace);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getExecutionException().isPresent()) {
      started(context).map(Started::plane).ifPresent(p -> p.recordFailure(context.getUniqueId()));
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ControlPlane.class || type == ApiClient.class || type == TestNamespace.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    ControlPlane plane = controlPlane(context);
    if (type == ControlPlane.class) {
      return plane;
    }
    if (type == ApiClient.class) {
      return plane.client();
    }
    if (context.getTestMethod().isEmpty()) {
      throw new ExtensionConfigurationException(
          "a TestNamespace belongs to one test method; it cannot be injected into "
              + context.getDisplayName());
    }
    ExtensionContext.Store store = context.getStore(STORE);
    TestNamespace namespace = store.get(TestNamespace.class, TestNamespace.class);
    if (namespace == null) {
      namespace = createNamespace(plane, context);
      store.put(TestNamespace.class, namespace);
    }
    return namespace;
  }

  private static Optional<Started> started(ExtensionContext context) {
    return Optional.ofNullable(context.getRoot().getStore(STORE).get(Started.class, Started.class));
  }

  private static ControlPlane controlPlane(ExtensionContext context) {
    ControlPlaneSettings settings = ControlPlaneSettings.fromEnvironment();
    if (settings.skip()) {
      if (settings.ci()) {
        throw new ExtensionConfigurationException(
            "capstan.it.skip/CAPSTAN_IT_SKIP is refused under CI=true: CI must run the"
                + " control-plane integration tests");
      }
      Assumptions.abort(
          "control-plane integration test skipped on request (capstan.it.skip/CAPSTAN_IT_SKIP)");
    }
    Started started = started(context).orElse(null);
    if (started == null) {
      started = start(settings);
      context.getRoot().getStore(STORE).put(Started.class, started);
    }
    if (started.plane() == null) {
      RuntimeException failure = started.failure();
      throw new IllegalStateException(
          "the integration-test control plane is not available"
              + (settings.ci() ? " (CI=true: this is a failure, never a skip)" : "")
              + "; set -Dcapstan.it.skip=true to skip these tests outside CI",
          failure);
    }
    return started.plane();
  }

  private static Started start(ControlPlaneSettings settings) {
    try {
      ControlPlane plane = ControlPlane.startOrConnect(settings);
      ControlPlane.log("Kubernetes " + plane.serverVersion());
      defaultStorageClass(plane);
      return new Started(plane, null);
    } catch (RuntimeException e) {
      return new Started(null, e);
    }
  }

  /** The name of the default StorageClass every test control plane has. */
  public static final String DEFAULT_STORAGE_CLASS = "capstan-it-local";

  /**
   * Makes a default StorageClass that binds on first consumer (no provisioner: claims stay Pending
   * until a test binds a PersistentVolume), as a real cluster has a default class: Capstan counts a
   * claim of such a class as ready while Pending. Idempotent, for a reused control plane.
   */
  private static void defaultStorageClass(ControlPlane plane) {
    String body =
        "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
            + "\"metadata\":{\"name\":\""
            + DEFAULT_STORAGE_CLASS
            + "\",\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"}},"
            + "\"provisioner\":\"kubernetes.io/no-provisioner\","
            + "\"volumeBindingMode\":\"WaitForFirstConsumer\"}";
    io.kubernetes.client.util.generic.KubernetesApiResponse<?> r =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
                "storage.k8s.io", "v1", "storageclasses", plane.client())
            .create(
                new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject(
                    com.google.gson.JsonParser.parseString(body).getAsJsonObject()));
    if (!r.isSuccess() && r.getHttpStatusCode() != 409) {
      throw new IllegalStateException(
          "could not create the default StorageClass: HTTP " + r.getHttpStatusCode());
    }
  }

  private static TestNamespace createNamespace(ControlPlane plane, ExtensionContext context) {
    String base =
        context
            .getRequiredTestClass()
            .getSimpleName()
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9]", "");
    if (base.length() > 40) {
      base = base.substring(0, 40);
    }
    String name = "it-" + base + "-" + Integer.toString(RANDOM.nextInt(1 << 30), 36);
    CoreV1Api core = new CoreV1Api(plane.client());
    try {
      core.createNamespace(
              new V1Namespace()
                  .metadata(
                      new V1ObjectMeta()
                          .name(name)
                          .labels(Map.of("capstan.dev/test", "true"))
                          .putAnnotationsItem("capstan.dev/test-id", context.getUniqueId())))
          .execute();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create namespace " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(),
          e);
    }
    // The ServiceAccount admission plugin rejects pods until KCM has created "default".
    Await.until(
        "serviceaccount " + name + "/default",
        NAMESPACE_READY_TIMEOUT,
        () -> {
          try {
            return core.readNamespacedServiceAccount("default", name).execute();
          } catch (ApiException e) {
            if (e.getCode() == 404) {
              return null;
            }
            throw e;
          }
        });
    return new TestNamespace(name);
  }

  private static void deleteNamespace(ControlPlane plane, TestNamespace namespace) {
    try {
      new CoreV1Api(plane.client()).deleteNamespace(namespace.name()).execute();
    } catch (ApiException e) {
      ControlPlane.log("could not delete namespace " + namespace.name() + ": HTTP " + e.getCode());
    }
  }
}
