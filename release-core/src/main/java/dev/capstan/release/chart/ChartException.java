package dev.capstan.release.chart;

import dev.capstan.release.error.ReleaseException;
import org.jspecify.annotations.Nullable;

/**
 * A chart could not be rendered: not fetched (no such chart or version, the repository refused the
 * credentials, unreachable), not rendered (a template failed), or no renderer to run (no Helm
 * binary, or one too old). The message is one line naming the chart and what to do; it never holds
 * a value or a credential. Nothing was written when it is thrown. The CLI exits 2.
 */
public class ChartException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message. */
  public ChartException(String message) {
    super(message);
  }

  /** An exception with a message and a cause. */
  public ChartException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
