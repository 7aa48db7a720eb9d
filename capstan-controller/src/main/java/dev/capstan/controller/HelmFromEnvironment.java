package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.chart.RenderedChart;
import org.jspecify.annotations.Nullable;

/**
 * The Helm binary of the controller's environment, found at the first chart: a controller that
 * casts no chart needs none, and one without it refuses each chart in one line.
 */
final class HelmFromEnvironment implements ChartRenderer {
  private final java.util.function.Function<String, @Nullable String> env;
  private volatile @Nullable ChartRenderer helm;

  /** The binary {@code env} names ({@code CAPSTAN_HELM}, else {@code helm} on its {@code PATH}). */
  HelmFromEnvironment(java.util.function.Function<String, @Nullable String> env) {
    this.env = requireNonNull(env, "env");
  }

  @Override
  public RenderedChart render(ChartRequest request, RenderLimits limits) {
    return helm().render(request, limits);
  }

  private ChartRenderer helm() {
    ChartRenderer h = helm;
    if (h == null) {
      try {
        h = HelmChartRenderer.fromEnvironment(env);
      } catch (ChartException e) {
        throw new ChartException(
            "the controller cannot render charts: "
                + e.getMessage()
                + " in the controller's environment (docs/controller.md, \"Charts\")",
            e);
      }
      helm = h;
    }
    return h;
  }
}
