package dev.capstan.common.logging;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of the test class path (registered by this test-jar's {@code
 * META-INF/services}): every logger is enabled at every level and hands its lines to the open
 * {@link LogCapture}s, with the thread's MDC (SLF4J's {@code BasicMDCAdapter}).
 */
public final class CapturingProvider implements SLF4JServiceProvider {
  private final ILoggerFactory loggers = CapturingLogger::new;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private static final MDCAdapter MDC = new BasicMDCAdapter();

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return MDC;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  private static final class CapturingLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    CapturingLogger(String name) {
      this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
      return true;
    }

    @Override
    public boolean isDebugEnabled() {
      return true;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    protected @Nullable String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level,
        @Nullable Marker marker,
        @Nullable String pattern,
        @Nullable Object @Nullable [] arguments,
        @Nullable Throwable error) {
      Map<String, String> context = MDC.getCopyOfContextMap();
      LogCapture.record(
          new LogCapture.Line(
              name,
              level,
              MessageFormatter.basicArrayFormat(pattern, arguments),
              error,
              context == null ? Map.of() : context));
    }
  }
}
