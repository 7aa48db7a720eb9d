package dev.capstan.jdbc;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that injects a {@link PostgresServer}: one server (and one database) per test
 * run, kept in the root store so it is stopped when the run ends. With {@code
 * -Dcapstan.postgres.skip=true}, and only outside CI, the tests are skipped instead.
 */
public final class PostgresExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(PostgresExtension.class);

  /** Created by JUnit ({@code @ExtendWith(PostgresExtension.class)}). */
  public PostgresExtension() {}

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PostgresServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return server(context);
  }

  static PostgresServer server(ExtensionContext context) {
    boolean ci = "true".equals(System.getenv("CI"));
    if (Boolean.getBoolean("capstan.postgres.skip")) {
      if (ci) {
        throw new ExtensionConfigurationException(
            "capstan.postgres.skip is refused under CI=true: CI must run the PostgreSQL tests");
      }
      Assumptions.abort("PostgreSQL tests skipped on request (capstan.postgres.skip)");
    }
    return context
        .getRoot()
        .getStore(STORE)
        .computeIfAbsent(PostgresServer.class, k -> PostgresServer.start(), PostgresServer.class);
  }
}
