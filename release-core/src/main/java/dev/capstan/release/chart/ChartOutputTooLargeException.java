package dev.capstan.release.chart;

import dev.capstan.common.InputLimits;

/**
 * A rendering stopped because it produced more than its {@link RenderLimits} allow: the renderer
 * was stopped as soon as it passed them, so the excess was never held. Nothing was written.
 */
public final class ChartOutputTooLargeException extends ChartException {
  private static final long serialVersionUID = 1L;

  private final String what;
  private final long bytes;
  private final long nodes;

  /**
   * Creates the exception.
   *
   * @param message the one-line message, naming the chart, what passed which limit and what to do
   * @param what what was too large, for a host's own message: {@code rendered output}
   * @param bytes at least so many bytes were produced (0 when the nodes passed their limit)
   * @param nodes at least so many nodes were read (0 when the bytes passed theirs)
   */
  public ChartOutputTooLargeException(String message, String what, long bytes, long nodes) {
    super(message);
    this.what = what;
    this.bytes = bytes;
    this.nodes = nodes;
  }

  /**
   * The rendered manifests (or a tool's output) passed {@link RenderLimits#maxOutputBytes()}.
   *
   * @param printer what printed them: {@code helm}, or the chart's name
   * @param bytes at least so many bytes were printed
   * @param max the limit passed, {@link RenderLimits#maxOutputBytes()}
   */
  public static ChartOutputTooLargeException output(String printer, long bytes, long max) {
    return new ChartOutputTooLargeException(
        printer
            + " printed more than "
            + InputLimits.human(max)
            + (max == RenderLimits.DEFAULT.maxOutputBytes()
                ? ", over the limit of a release's manifests"
                : ", over the limit of what this release's rendering may print"),
        "rendered output",
        bytes,
        0);
  }

  /**
   * The merged values passed {@link RenderLimits#maxValueNodes()}.
   *
   * @param chart the chart, escaped
   */
  public static ChartOutputTooLargeException values(String chart, RenderLimits limits) {
    return new ChartOutputTooLargeException(
        "chart "
            + chart
            + ": the values hold more than "
            + limits.maxValueNodes()
            + " nodes (mappings, lists, keys and values), over the limit of what this release's"
            + " rendering may read; give fewer values; nothing was written",
        "merged values",
        0,
        limits.maxValueNodes() + 1);
  }

  /** What was too large: {@code rendered output} or {@code merged values}. */
  public String what() {
    return what;
  }

  /** At least so many bytes were produced: 0 when the nodes passed their limit. */
  public long bytes() {
    return bytes;
  }

  /** At least so many nodes were read: 0 when the bytes passed their limit. */
  public long nodes() {
    return nodes;
  }
}
