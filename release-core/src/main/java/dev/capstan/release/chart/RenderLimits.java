package dev.capstan.release.chart;

import dev.capstan.common.Escapes;
import java.nio.charset.StandardCharsets;

/**
 * How much of what a renderer produces its caller may hold: the bytes of rendered manifests (and of
 * anything else the renderer's tool prints) and the nodes of the merged values. A renderer stops as
 * soon as either is passed ({@link ChartOutputTooLargeException}), before the excess is read into
 * memory: a host that renders several charts at once on one heap gives each its share.
 *
 * @param maxOutputBytes the most bytes the renderer's output may hold
 * @param maxValueNodes the most nodes (mappings, lists, keys and values) the merged values may hold
 */
public record RenderLimits(long maxOutputBytes, long maxValueNodes) {
  /** A release's manifests' limit, 64 MiB, and no bound on the values' nodes. */
  public static final RenderLimits DEFAULT = new RenderLimits(64L << 20, Long.MAX_VALUE);

  /** Checks both are positive. */
  public RenderLimits {
    if (maxOutputBytes <= 0 || maxValueNodes <= 0) {
      throw new IllegalArgumentException(
          "limits must be positive: maxOutputBytes "
              + maxOutputBytes
              + ", maxValueNodes "
              + maxValueNodes);
    }
  }

  /**
   * {@code rendered}, when its manifests are within {@link #maxOutputBytes()}: for a renderer that
   * holds what it renders already.
   *
   * @throws ChartOutputTooLargeException when they are over
   */
  public RenderedChart check(RenderedChart rendered) {
    long bytes = rendered.manifests().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxOutputBytes) {
      throw ChartOutputTooLargeException.output(
          "the renderer of chart " + Escapes.escape(rendered.name()), bytes, maxOutputBytes);
    }
    return rendered;
  }
}
