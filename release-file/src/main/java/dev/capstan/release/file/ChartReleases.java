package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartOutputTooLargeException;
import dev.capstan.release.chart.ChartRenderer;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.chart.RenderedChart;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.rollout.ConfigRollout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Helm chart as a release: renders it through a {@link ChartRenderer}, reads what it rendered
 * with the manifest reader every manifest goes through ({@link ReleaseFiles#manifestText}: strict,
 * each problem named by document and field, never a value), keeps its hooks apart from its objects,
 * and records the chart with the spec ({@link ChartOrigin}: name, version, digest, the values with
 * secret ones masked).
 *
 * <p>The objects are cast as the chart rendered them: workloads are opted out of Capstan's config
 * rollouts ({@link ConfigRollout#optedOut}; charts roll config out with checksum annotations of
 * their own), so an import of a Helm release and a cast of its chart write the same objects.
 */
public final class ChartReleases {
  /** Helm's hook annotation: the events an object is run at instead of installed. */
  public static final String HOOK = Hook.HELM_HOOK;

  /** Helm's hook order within an event. */
  public static final String HOOK_WEIGHT = Hook.HELM_WEIGHT;

  /** Helm's hook delete policies. */
  public static final String HOOK_DELETE_POLICY = Hook.HELM_DELETE_POLICY;

  private ChartReleases() {}

  /**
   * Renders {@code request} with {@code renderer} and reads it as the release {@code
   * request.namespace()/request.release()}.
   *
   * @param renderer the renderer
   * @param request what to render
   * @return the release, its hooks apart
   * @throws dev.capstan.release.chart.ChartException when the chart cannot be rendered
   * @throws InvalidReleaseFileException naming each document and field the manifest reader refuses
   */
  public static ChartRelease render(ChartRenderer renderer, ChartRequest request) {
    return render(renderer, request, HeapBudget.UNBOUNDED);
  }

  /**
   * As {@link #render(ChartRenderer, ChartRequest)}, holding what reading the rendered manifests
   * takes to {@code budget}: their characters before they are parsed, each document's nodes as they
   * are built.
   *
   * <p>The renderer is held to the budget too ({@link #limits}): it stops as soon as its output
   * passes what the budget allows of text, or the merged values a quarter of its nodes, so what is
   * over is never held.
   *
   * @param budget the heap the release may take ({@link HeapBudget#UNBOUNDED}: no bound)
   * @throws ReleaseTooLargeException at the first document over the budget, or when the renderer is
   *     stopped for its output
   * @throws ChartOutputTooLargeException when the merged values pass their quarter
   */
  public static ChartRelease render(
      ChartRenderer renderer, ChartRequest request, HeapBudget budget) {
    requireNonNull(budget, "budget");
    List<String> givenSecret = SecretValues.givenSecretTexts(request.values());
    RenderedChart rendered;
    try {
      rendered = requireNonNull(renderer, "renderer").render(request, limits(budget));
    } catch (ChartOutputTooLargeException e) {
      if (budget.equals(HeapBudget.UNBOUNDED) || e.bytes() == 0) {
        throw e; // the values' limit: a quarter, so the budget's message would not fit
      }
      throw new ReleaseTooLargeException(
          "chart " + Escapes.escape(request.chart().describe()),
          "(" + e.what() + ")",
          e.bytes(),
          e.nodes(),
          budget);
    } catch (ChartException e) {
      String message = String.valueOf(e.getMessage());
      String masked = SecretValues.maskIn(message, givenSecret);
      if (masked.equals(message)) {
        throw e;
      }
      throw new ChartException(masked); // not chained: the cause's message holds the values
    }
    String source = "chart " + rendered.name() + " " + rendered.version();
    List<Manifest> all =
        ManifestReleases.objects(
            rendered.manifests(),
            source,
            new Overrides(request.namespace(), request.release()),
            budget);
    List<Manifest> objects = new ArrayList<>();
    List<Hook> hooks = new ArrayList<>();
    List<Hook> tests = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Manifest object : all) {
      String annotation = object.annotations().get(HOOK);
      if (annotation == null) {
        objects.add(object);
        continue;
      }
      if (!namesHelmEvents(annotation)) {
        skipped.add(
            object.ref().key()
                + ": skipped, as Helm skips it: "
                + HOOK
                + " names no hook event Helm knows: "
                + Escapes.quote(annotation));
        continue;
      }
      Hook hook = hook(object);
      (hook.isTest() ? tests : hooks).add(hook);
    }
    hooks.sort(Hook.ORDER);
    tests.sort(Hook.ORDER);
    Payloads payloads = withHooks(ConfigRollout.optedOut(payloads(objects, source)), hooks, tests);
    SecretValues.Masked values = SecretValues.mask(rendered.values(), all, givenSecret);
    ChartOrigin origin =
        new ChartOrigin(
            request.chart().describe(),
            rendered.name(),
            rendered.version(),
            rendered.appVersion(),
            rendered.digest(),
            values.values(),
            values.paths(),
            rendered.renderer());
    ReleaseSpec spec =
        ReleaseSpec.of(request.namespace(), request.release(), payloads)
            .withSource("chart " + request.chart().describe())
            .withVersion(rendered.appVersion() != null ? rendered.appVersion() : rendered.version())
            .withChart(origin);
    return new ChartRelease(
        new ReleaseInput(spec, payloads), hooks, tests, skipped, rendered.warnings());
  }

  /**
   * What a renderer may produce within {@code budget}: as many bytes of output as the budget has
   * characters of text (a character is at least a byte), at most a release's 64 MiB; and a quarter
   * of its nodes for the merged values, the rest left to the manifests.
   */
  static RenderLimits limits(HeapBudget budget) {
    long bytes = RenderLimits.DEFAULT.maxOutputBytes();
    if (budget.charBytes() > 0) {
      bytes = Math.max(1, Math.min(bytes, budget.bytes() / budget.charBytes()));
    }
    long nodes =
        budget.nodeBytes() > 0
            ? Math.max(1, budget.bytes() / budget.nodeBytes() / 4)
            : RenderLimits.DEFAULT.maxValueNodes();
    return new RenderLimits(bytes, nodes);
  }

  private static Payloads payloads(List<Manifest> objects, String source) {
    try {
      return Payloads.of(objects);
    } catch (IllegalArgumentException e) {
      throw new InvalidReleaseFileException(source, List.of(e.getMessage()));
    }
  }

  /**
   * The chart's objects with its hooks, tests included, as the release's hooks: the cast runs them
   * ({@code helm.sh/hook}'s annotations read as every hook's are, a weight that is no integer
   * refused rather than taken as 0), {@code release test} its tests.
   */
  private static Payloads withHooks(Payloads objects, List<Hook> hooks, List<Hook> tests) {
    if (hooks.isEmpty() && tests.isEmpty()) {
      return objects;
    }
    List<ResourceSpec> items = new ArrayList<>(objects.specs());
    hooks.forEach(h -> items.add(h.object()));
    tests.forEach(h -> items.add(h.object()));
    try {
      return Payloads.of(items);
    } catch (IllegalArgumentException e) {
      throw new ChartException(e.getMessage() + "; nothing was written");
    }
  }

  /** {@code name version}, escaped for a message. */
  static String describe(ChartOrigin chart) {
    return Escapes.escape(chart.describe());
  }

  /**
   * Whether every event {@code annotation} names is one Helm 3 and 4 know (read as {@link
   * Hook#declaredBy} reads them); an object naming another ({@code crd-install}, a Helm 2 event) is
   * skipped, as Helm skips it.
   */
  private static boolean namesHelmEvents(String annotation) {
    for (String item : annotation.split(",", -1)) {
      if (HookPhase.parse(item.strip().toLowerCase(Locale.ROOT)).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** The hook {@code object} declares, read as every hook is; a bad annotation is refused. */
  private static Hook hook(Manifest object) {
    try {
      return Hook.declaredBy(object).orElseThrow();
    } catch (IllegalArgumentException e) {
      throw new ChartException(e.getMessage() + "; nothing was written");
    }
  }
}
