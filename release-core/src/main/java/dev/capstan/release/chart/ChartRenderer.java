package dev.capstan.release.chart;

/**
 * Renders a Helm chart into Kubernetes manifests: the port through which a chart becomes a release.
 *
 * <p>An implementation fetches the chart the request names (with the request's repository access
 * only), renders it for the request's release, values and capabilities, and reads the target
 * cluster, for templates that call {@code lookup}, through the request's {@link ClusterAccess}
 * only: the caller's own credentials, never the credentials of the process it runs in. It writes
 * nothing to any cluster. A request without cluster access renders as {@code helm template} does,
 * with every {@code lookup} finding nothing.
 */
public interface ChartRenderer {
  /**
   * Renders one chart, producing no more than {@code limits} allow: a renderer that runs a tool
   * stops it as soon as its output passes {@link RenderLimits#maxOutputBytes()} and reads the
   * merged values no further than {@link RenderLimits#maxValueNodes()}, so what is over is never
   * held; a renderer that holds what it renders already checks it once rendered ({@link
   * RenderLimits#check}). A renderer that wraps another passes {@code limits} on.
   *
   * @param request what to render
   * @param limits what the caller may hold of what is rendered
   * @return the manifests, hooks among them, and what was rendered
   * @throws ChartOutputTooLargeException when the rendering passes {@code limits}; nothing was
   *     written
   * @throws ChartException when the chart cannot be fetched (not found, credentials refused), does
   *     not render (a template error, a failed {@code required}), or the renderer cannot run (no
   *     Helm binary); the message is one line that says what to do, and nothing was written
   */
  RenderedChart render(ChartRequest request, RenderLimits limits);

  /**
   * Renders one chart within {@link RenderLimits#DEFAULT}: a release's 64 MiB of manifests.
   *
   * @param request what to render
   * @return the manifests, hooks among them, and what was rendered
   * @throws ChartException as {@link #render(ChartRequest, RenderLimits)}
   */
  default RenderedChart render(ChartRequest request) {
    return render(request, RenderLimits.DEFAULT);
  }
}
