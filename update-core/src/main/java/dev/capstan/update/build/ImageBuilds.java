package dev.capstan.update.build;

import dev.capstan.update.ImageBuildException;
import dev.capstan.update.event.EventLog;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.plan.ImageAction;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.version.ImageRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** Plans and runs the image builds of an update; see the package docs. */
public final class ImageBuilds {

  static final String COMMIT_REASON = "release image requires build from its source commit";
  static final String DRY_RUN_REASON = "registry not checked (dry-run)";
  static final String PRESENT_REASON = "target tag already in registry";
  static final String MISSING_REASON = "target tag missing from registry";

  /** Logs every build event (see {@link EventLog}). */
  private static final UpdateListener LOG = EventLog.on(LoggerFactory.getLogger(ImageBuilds.class));

  private ImageBuilds() {}

  /**
   * Decides, for each unique target image of the plan's changed built components (in rollout
   * order), whether to build or reuse it.
   *
   * @param plan the plan (usually {@link UpdatePlan#withBuiltTargetsAsTags()})
   * @param registry the registry to probe; null in a dry run (nothing is probed, everything builds)
   * @param builder the builder, asked whether it can build each component
   * @return the actions
   * @throws ImageBuildException when a component has no build recipe or a probe fails (the message
   *     starts with {@code component <name>: })
   */
  public static List<ImageBuildAction> plan(
      UpdatePlan plan, @Nullable ImageRegistry registry, ImageBuilder builder) {
    Map<String, String> images = new LinkedHashMap<>();
    for (PlanRow row : plan.changed()) {
      if (row.built()) {
        if (!builder.canBuild(row.component())) {
          throw new ImageBuildException(
              "no build recipe for built component "
                  + row.component()
                  + " ("
                  + row.targetImage()
                  + ")");
        }
        images.putIfAbsent(row.targetImage(), row.component());
      }
    }
    List<ImageBuildAction> out = new ArrayList<>();
    for (Map.Entry<String, String> e : images.entrySet()) {
      String image = e.getKey();
      String component = e.getValue();
      if (commitOf(image).isPresent()) {
        out.add(ImageBuildAction.build(component, image, COMMIT_REASON));
      } else if (registry == null) {
        out.add(ImageBuildAction.build(component, image, DRY_RUN_REASON));
      } else if (probe(registry, image, component)) {
        out.add(ImageBuildAction.reuse(component, image, PRESENT_REASON));
      } else {
        out.add(ImageBuildAction.build(component, image, MISSING_REASON));
      }
    }
    return out;
  }

  private static boolean probe(ImageRegistry registry, String image, String component) {
    try {
      return registry.exists(image);
    } catch (ImageBuildException e) {
      throw new ImageBuildException("component " + component + ": " + e.getMessage(), List.of(), e);
    }
  }

  /**
   * Builds and pushes every {@code build} action (reuses only raise an event). Release-commit
   * images must all name one commit, and the source tree must be a clean checkout of it. Builds run
   * {@code parallelism} at a time; each failed build is retried {@code retries} times; the first
   * build that still fails cancels (interrupts) its siblings. Events arrive on the build threads.
   *
   * @param actions the planned actions
   * @param builder the builder
   * @param source the source checkout; needed only for release-commit images
   * @param settings platform, source path, parallelism, retries
   * @param hostListener receives progress events
   * @return the images pushed, in completion order
   * @throws ImageBuildException naming the component and what failed, and the images already
   *     pushed: {@code image build failed: component <name>: <what>; already published: <images>}
   */
  public static List<String> run(
      List<ImageBuildAction> actions,
      ImageBuilder builder,
      @Nullable SourceTree source,
      BuildSettings settings,
      UpdateListener hostListener) {
    UpdateListener listener = UpdateListener.all(List.of(LOG, hostListener));
    List<ImageBuildAction> builds = new ArrayList<>();
    for (ImageBuildAction a : actions) {
      if (a.action() == ImageAction.REUSE) {
        listener.onEvent(new UpdateEvent.ImageReused(a.image()));
      } else {
        builds.add(a);
      }
    }
    if (builds.isEmpty()) {
      return List.of();
    }
    verifySource(builds, source);
    List<String> published = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(settings.parallelism(), builds.size()), daemonThreads());
    CompletionService<String> done = new ExecutorCompletionService<>(pool);
    AtomicBoolean cancelled = new AtomicBoolean();
    for (ImageBuildAction b : builds) {
      done.submit(
          () -> {
            try {
              return buildAndPush(b, builder, settings, listener, published, cancelled);
            } catch (RuntimeException e) {
              cancelled.set(true);
              throw new ImageBuildException(
                  "component " + b.component() + ": " + e.getMessage(), List.of(), e);
            }
          });
    }
    Throwable failure = null;
    try {
      for (int i = 0; i < builds.size() && failure == null; i++) {
        try {
          done.take().get();
        } catch (ExecutionException e) {
          failure = e.getCause() == null ? e : e.getCause();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = e;
    } finally {
      pool.shutdownNow();
    }
    if (failure != null) {
      awaitQuietly(pool);
      List<String> pushed;
      synchronized (published) {
        pushed = List.copyOf(published);
      }
      throw new ImageBuildException(
          "image build failed: "
              + (failure instanceof InterruptedException ? "interrupted" : failure.getMessage())
              + "; already published: "
              + (pushed.isEmpty() ? "none" : String.join(", ", pushed)),
          pushed,
          failure);
    }
    synchronized (published) {
      return List.copyOf(published);
    }
  }

  private static String buildAndPush(
      ImageBuildAction b,
      ImageBuilder builder,
      BuildSettings settings,
      UpdateListener listener,
      List<String> published,
      AtomicBoolean cancelled) {
    BuildRequest request =
        new BuildRequest(b.component(), b.image(), settings.platform(), settings.source());
    for (int attempt = 1; ; attempt++) {
      if (cancelled.get() || Thread.currentThread().isInterrupted()) {
        throw new ImageBuildException("build of " + b.image() + " cancelled");
      }
      listener.onEvent(new UpdateEvent.ImageBuildStarted(b.image(), attempt));
      try {
        builder.build(request);
        break;
      } catch (RuntimeException e) {
        if (attempt > settings.retries() || cancelled.get()) {
          throw e;
        }
        listener.onEvent(
            new UpdateEvent.ImageBuildRetrying(b.image(), attempt, String.valueOf(e.getMessage())));
      }
    }
    builder.push(b.image());
    published.add(b.image());
    listener.onEvent(new UpdateEvent.ImagePushed(b.image()));
    return b.image();
  }

  private static void verifySource(List<ImageBuildAction> builds, @Nullable SourceTree source) {
    TreeSet<String> commits = new TreeSet<>();
    for (ImageBuildAction b : builds) {
      commitOf(b.image()).ifPresent(commits::add);
    }
    if (commits.isEmpty()) {
      return;
    }
    if (commits.size() > 1) {
      throw new ImageBuildException(
          "release images name different source commits: " + String.join(", ", commits));
    }
    String commit = commits.first();
    if (source == null) {
      throw new ImageBuildException(
          "release images must be built from commit " + commit + " but no source tree is set");
    }
    String head = source.headCommit();
    if (!head.equals(commit)) {
      throw new ImageBuildException(
          "source checkout is at "
              + head
              + " but the release images need commit "
              + commit
              + "; check out that commit");
    }
    if (!source.isClean()) {
      throw new ImageBuildException(
          "source checkout has uncommitted changes; release images must be built from commit "
              + commit
              + " exactly (commit or stash the changes)");
    }
  }

  private static Optional<String> commitOf(String image) {
    return ImageRef.tryParse(image).flatMap(ImageRef::releaseCommit);
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "capstan-image-build-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void awaitQuietly(ExecutorService pool) {
    try {
      pool.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
