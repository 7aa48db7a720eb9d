package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The watch protocol against a scripted source and clock: the first WATCH starts at the LIST's
 * resourceVersion, a WATCH the server ends at its timeout resumes from the last event's version, a
 * 410 (as an ERROR event or an HTTP status), a watch that ends early or breaks LISTs again and
 * resumes from that list's version, handing the listed objects on first.
 */
class ResumableWatchTest {
  private static final long DEADLINE = TimeUnit.MINUTES.toNanos(20);

  private final AtomicLong clock = new AtomicLong();
  private final List<String> calls = new ArrayList<>();
  private final List<String> updates = new ArrayList<>();
  private final Deque<Object> script = new ArrayDeque<>();
  private final List<Long> pauses = new ArrayList<>();

  /** A scripted WATCH: its events, then it ends at its timeout (clock moved) or early. */
  private record Served(List<Watch.Response<V1ConfigMap>> events, boolean early) {}

  /** A scripted LIST. */
  private record Listed(List<V1ConfigMap> items, String version) {}

  private static V1ConfigMap cm(String name, String rv) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().name(name).resourceVersion(rv));
  }

  private static Watch.Response<V1ConfigMap> event(String type, String name, String rv) {
    return new Watch.Response<>(type, cm(name, rv));
  }

  private static Watch.Response<V1ConfigMap> error(int code) {
    return new Watch.Response<>("ERROR", new V1Status().code(code).reason("Expired"));
  }

  private final ResumableWatch.Source<V1ConfigMap> source =
      new ResumableWatch.Source<>() {
        @Override
        public ResourceApi.Listing<V1ConfigMap> list() {
          calls.add("LIST");
          Object next = script.removeFirst();
          if (next instanceof Listed l) {
            return new ResourceApi.Listing<>(l.items(), l.version());
          }
          throw (RuntimeException) next;
        }

        @Override
        public Watchable<V1ConfigMap> watch(@Nullable String resourceVersion, int timeoutSeconds) {
          calls.add("WATCH from " + resourceVersion + " for " + timeoutSeconds + "s");
          if (script.isEmpty()) {
            clock.set(DEADLINE); // nothing more to serve: the wait is over
            return scripted(List.of());
          }
          Object next = script.removeFirst();
          if (next instanceof RuntimeException e) {
            throw e;
          }
          Served served = (Served) next;
          return new Watchable<>() {
            private final Iterator<Watch.Response<V1ConfigMap>> events = served.events().iterator();

            @Override
            public boolean hasNext() {
              if (!events.hasNext() && !served.early()) {
                clock.addAndGet(TimeUnit.SECONDS.toNanos(timeoutSeconds));
              }
              return events.hasNext();
            }

            @Override
            public Watch.Response<V1ConfigMap> next() {
              return events.next();
            }

            @Override
            public Iterator<Watch.Response<V1ConfigMap>> iterator() {
              return this;
            }

            @Override
            public void close() {}
          };
        }

        @Override
        public RuntimeException failure(RuntimeException e) {
          return new IllegalStateException("translated: " + e.getMessage(), e);
        }
      };

  private static Watchable<V1ConfigMap> scripted(List<Watch.Response<V1ConfigMap>> events) {
    Iterator<Watch.Response<V1ConfigMap>> it = events.iterator();
    return new Watchable<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
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
      public void close() {}
    };
  }

  private void run(@Nullable String from) {
    new ResumableWatch<>(
            "test",
            source,
            from,
            DEADLINE,
            u -> updates.add(describe(u)),
            clock::get,
            millis -> {
              pauses.add(millis);
              return true;
            })
        .run();
  }

  private static String describe(ResumableWatch.Update<V1ConfigMap> u) {
    if (u instanceof ResumableWatch.Update.Changed<V1ConfigMap> c) {
      V1ObjectMeta meta = java.util.Objects.requireNonNull(c.object().getMetadata());
      return c.type() + " " + meta.getName() + "@" + meta.getResourceVersion();
    }
    if (u instanceof ResumableWatch.Update.Relisted<V1ConfigMap> r) {
      return "RELISTED "
          + r.items().stream()
              .map(o -> java.util.Objects.requireNonNull(o.getMetadata()).getName())
              .toList();
    }
    return "FAILED " + ((ResumableWatch.Update.Failed<V1ConfigMap>) u).failure().getMessage();
  }

  @Test
  void startsAtTheListsVersionAndResumesFromTheLastEventsAfterATimeout() {
    script.add(
        new Served(List.of(event("MODIFIED", "a", "11"), event("DELETED", "b", "12")), false));
    script.add(new Served(List.of(event("BOOKMARK", "", "15")), false));
    script.add(new Served(List.of(event("ADDED", "c", "16")), false));

    run("10");

    assertThat(calls)
        .containsExactly(
            "WATCH from 10 for 300s",
            "WATCH from 12 for 300s",
            "WATCH from 15 for 300s",
            "WATCH from 16 for 300s");
    assertThat(updates).containsExactly("MODIFIED a@11", "DELETED b@12", "ADDED c@16");
  }

  @Test
  void aGoneErrorEventListsAgainAndResumesFromThatListsVersion() {
    script.add(new Served(List.of(event("MODIFIED", "a", "11"), error(410)), false));
    script.add(new Listed(List.of(cm("a", "40")), "42"));
    script.add(new Served(List.of(event("MODIFIED", "a", "43")), false));

    run("10");

    assertThat(calls)
        .containsExactly(
            "WATCH from 10 for 300s", "LIST", "WATCH from 42 for 300s", "WATCH from 43 for 300s");
    assertThat(updates).containsExactly("MODIFIED a@11", "RELISTED [a]", "MODIFIED a@43");
    assertThat(pauses).isEmpty();
  }

  @Test
  void aGoneStatusOnOpeningListsAgain() {
    script.add(
        new dev.capstan.common.ClusterException(
            "watch", "ConfigMap", "shop", null, 410, "too old resource version: 10 (99)", null));
    script.add(new Listed(List.of(), "99"));
    script.add(new Served(List.of(event("ADDED", "a", "100")), false));

    run("10");

    assertThat(calls)
        .containsExactly(
            "WATCH from 10 for 300s", "LIST", "WATCH from 99 for 300s", "WATCH from 100 for 300s");
    assertThat(updates).containsExactly("RELISTED []", "ADDED a@100");
  }

  @Test
  void aWatchThatEndsEarlyListsAgainAfterAPauseWhenItBroughtNothing() {
    script.add(new Served(List.of(), true));
    script.add(new Listed(List.of(cm("a", "20")), "21"));
    script.add(new Served(List.of(event("MODIFIED", "a", "22")), true));
    script.add(new Listed(List.of(cm("a", "22")), "23"));

    run("10");

    assertThat(calls)
        .containsExactly(
            "WATCH from 10 for 300s",
            "LIST",
            "WATCH from 21 for 300s",
            "LIST",
            "WATCH from 23 for 300s");
    assertThat(updates).containsExactly("RELISTED [a]", "MODIFIED a@22", "RELISTED [a]");
    // only the watch that brought nothing waits before listing again
    assertThat(pauses).containsExactly(ResumableWatch.PAUSE_MILLIS);
  }

  @Test
  void aWatchWithoutAStartingVersionThatEndedWithNoEventListsToGetOne() {
    script.add(new Served(List.of(), false));
    script.add(new Listed(List.of(), "30"));

    run(null);

    assertThat(calls).containsExactly("WATCH from null for 300s", "LIST", "WATCH from 30 for 300s");
    assertThat(updates).containsExactly("RELISTED []");
  }

  @Test
  void aBrokenConnectionListsAgainAndFiveInARowGiveUp() {
    for (int i = 0; i < ResumableWatch.FAILURES; i++) {
      script.add(new UncheckedIOException(new IOException("connection reset")));
      if (i < ResumableWatch.FAILURES - 1) {
        script.add(new Listed(List.of(), "5" + i));
      }
    }

    run("10");

    assertThat(calls)
        .containsExactly(
            "WATCH from 10 for 300s",
            "LIST",
            "WATCH from 50 for 300s",
            "LIST",
            "WATCH from 51 for 300s",
            "LIST",
            "WATCH from 52 for 300s",
            "LIST",
            "WATCH from 53 for 300s");
    assertThat(updates)
        .endsWith("FAILED translated: java.io.IOException: connection reset")
        .filteredOn(u -> u.startsWith("RELISTED"))
        .hasSize(4);
  }

  @Test
  void aRefusedWatchGivesUpAtOnce() {
    script.add(new IllegalArgumentException("forbidden"));

    run("10");

    assertThat(calls).containsExactly("WATCH from 10 for 300s");
    assertThat(updates).containsExactly("FAILED translated: forbidden");
  }
}
