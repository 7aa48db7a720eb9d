package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The one watch loop of HealthWatch and RolloutTracker: updates of its watches come back tagged and
 * in each watch's order, a watch that gives up is rethrown where its update is checked, nothing by
 * the time is an empty batch, an interrupt is the wait's own error, and closing stops every watch.
 */
class WatchLoopTest {
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  /** A wait's event: which watch, and its update. */
  private record Event(String feed, ResumableWatch.Update<V1ConfigMap> update) {
    String describe() {
      return update instanceof ResumableWatch.Update.Changed<V1ConfigMap> c
          ? feed + ":" + c.type() + " " + c.object().getMetadata().getName()
          : feed + ":" + update.getClass().getSimpleName();
    }
  }

  private final CountDownLatch closed = new CountDownLatch(2);

  private static WatchLoop<Event> loop() {
    return new WatchLoop<>(
        System::nanoTime,
        millis -> true,
        Event::update,
        () -> new IllegalStateException("the wait was interrupted"));
  }

  private static V1ConfigMap cm(String name, String rv) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().name(name).resourceVersion(rv));
  }

  /** A source whose WATCH sends {@code names} as ADDED events, then stays open until closed. */
  private ResumableWatch.Source<V1ConfigMap> serving(String... names) {
    return new ResumableWatch.Source<>() {
      @Override
      public ResourceApi.Listing<V1ConfigMap> list() {
        return new ResourceApi.Listing<>(List.of(), "1");
      }

      @Override
      public Watchable<V1ConfigMap> watch(@Nullable String resourceVersion, int timeoutSeconds) {
        List<Watch.Response<V1ConfigMap>> events = new ArrayList<>();
        for (String name : names) {
          events.add(new Watch.Response<>("ADDED", cm(name, "2")));
        }
        Iterator<Watch.Response<V1ConfigMap>> it = events.iterator();
        CountDownLatch open = new CountDownLatch(1);
        return new Watchable<>() {
          @Override
          public boolean hasNext() {
            if (it.hasNext()) {
              return true;
            }
            try {
              open.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return false;
          }

          @Override
          public Watch.Response<V1ConfigMap> next() {
            return it.next();
          }

          @Override
          public Iterator<Watch.Response<V1ConfigMap>> iterator() {
            return this;
          }

          @Override
          public void close() {
            if (open.getCount() > 0) {
              open.countDown();
              closed.countDown();
            }
          }
        };
      }

      @Override
      public RuntimeException failure(RuntimeException e) {
        return new IllegalStateException("translated: " + e.getMessage(), e);
      }
    };
  }

  /** A source whose WATCH is refused. */
  private static ResumableWatch.Source<V1ConfigMap> refusing() {
    return new ResumableWatch.Source<>() {
      @Override
      public ResourceApi.Listing<V1ConfigMap> list() {
        return new ResourceApi.Listing<>(List.of(), "1");
      }

      @Override
      public Watchable<V1ConfigMap> watch(@Nullable String resourceVersion, int timeoutSeconds) {
        throw new IllegalArgumentException("403 Forbidden");
      }

      @Override
      public RuntimeException failure(RuntimeException e) {
        return new IllegalStateException("translated: " + e.getMessage(), e);
      }
    };
  }

  private static List<String> take(WatchLoop<Event> loop, int count) {
    List<String> seen = new ArrayList<>();
    long until = System.nanoTime() + MINUTE;
    while (seen.size() < count && System.nanoTime() < until) {
      for (Event e : loop.next(until)) {
        loop.check(e);
        seen.add(e.describe());
      }
    }
    return seen;
  }

  @Test
  void updatesOfEveryWatchComeBackTaggedInTheOrderEachWatchSawThem() throws InterruptedException {
    long deadline = System.nanoTime() + MINUTE;
    List<String> seen;
    try (WatchLoop<Event> loop = loop()) {
      loop.watch("a", serving("a1", "a2"), "1", deadline, u -> new Event("a", u));
      loop.start();
      loop.watch("b", serving("b1"), "1", deadline, u -> new Event("b", u));
      seen = take(loop, 3);
    }
    assertThat(seen).containsExactlyInAnyOrder("a:ADDED a1", "a:ADDED a2", "b:ADDED b1");
    assertThat(seen).containsSubsequence("a:ADDED a1", "a:ADDED a2");
    assertThat(closed.await(1, TimeUnit.MINUTES)).isTrue();
  }

  @Test
  void aWatchThatGivesUpIsRethrownWhereItsUpdateIsChecked() {
    try (WatchLoop<Event> loop = loop()) {
      loop.watch("a", refusing(), "1", System.nanoTime() + MINUTE, u -> new Event("a", u));
      loop.start();
      assertThatThrownBy(() -> take(loop, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("translated: 403 Forbidden");
    }
  }

  @Test
  void nothingByTheTimeIsAnEmptyBatch() {
    try (WatchLoop<Event> loop = loop()) {
      loop.start();
      assertThat(loop.next(System.nanoTime() - 1)).isEmpty();
      assertThat(loop.next(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20))).isEmpty();
    }
  }

  @Test
  void anInterruptedWaitFailsWithTheWaitsOwnErrorAndKeepsTheFlag() {
    try (WatchLoop<Event> loop = loop()) {
      loop.start();
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> loop.next(System.nanoTime() + MINUTE))
          .hasMessage("the wait was interrupted");
      assertThat(Thread.interrupted()).isTrue();
    }
  }
}
