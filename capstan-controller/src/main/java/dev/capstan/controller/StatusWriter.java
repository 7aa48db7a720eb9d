package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Where a reconcile's outcome goes: the Release's status (written only when it differs from the
 * status read), an Event for each failure that changes it, and one line to the listener for each
 * outcome that is not Ready. Remembers the status it last wrote to each Release until the cache
 * hears of it, so a reconcile right after a write sees it.
 */
final class StatusWriter {
  private final ReleaseObjects objects;
  private final Clock clock;
  private final ControllerListener listener;

  /** The status last written to each Release, by uid and generation. */
  private final Map<ReleaseKey, Written> written = new ConcurrentHashMap<>();

  private record Written(String uid, long generation, Map<String, Object> status) {}

  StatusWriter(ReleaseObjects objects, Clock clock, ControllerListener listener) {
    this.objects = requireNonNull(objects, "objects");
    this.clock = requireNonNull(clock, "clock");
    this.listener = requireNonNull(listener, "listener");
  }

  /** The Release as the cache holds it, with the status this writer wrote since, if newer. */
  ReleaseResource current(ReleaseResource cached) {
    Written mine = written.get(cached.key());
    return mine != null
            && mine.uid().equals(cached.uid())
            && mine.generation() == cached.generation()
        ? cached.withStatus(mine.status())
        : cached;
  }

  /** Forgets a Release that is gone. */
  void forget(ReleaseKey key) {
    written.remove(key);
  }

  /**
   * Writes the status {@code report} gives, unless the Release already has it. When it writes, a
   * Stalled report is also a Warning Event (its reason and message) and an outcome line, a
   * Reconciling one an outcome line.
   *
   * @param releaseName the release the Release answers for from now on, or null to keep the
   *     status's ({@link StatusReport#status})
   * @return the Release with that status
   */
  ReleaseResource report(
      ReleaseResource release, @Nullable String releaseName, StatusReport report) {
    Map<String, Object> status = report.status(release, releaseName, clock.instant());
    if (StatusReport.same(release, status)) {
      return release;
    }
    write(release, status);
    if (report.state() != StatusReport.State.READY) {
      listener.outcome(release.key(), report.reason() + ": " + report.message());
    }
    if (report.state() == StatusReport.State.STALLED) {
      objects.event(release, true, report.reason(), report.message());
    }
    return release.withStatus(status);
  }

  /** Marks a suspended Release so (once: an unchanged status is not written again). */
  void suspended(ReleaseResource release) {
    Map<String, Object> status = StatusReport.suspended(release, clock.instant());
    if (!StatusReport.same(release, status)) {
      write(release, status);
      objects.event(
          release,
          false,
          StatusReport.SUSPENDED,
          "spec.suspend is true: the release is left as it is");
      listener.outcome(release.key(), "suspended");
    }
  }

  /** One outcome line, with no status or Event. */
  void outcome(ReleaseKey key, String line) {
    listener.outcome(key, line);
  }

  /** Records a Warning Event and an outcome line, with no status (a Release that goes). */
  void warning(ReleaseResource release, String reason, String message) {
    objects.event(release, true, reason, message);
    listener.outcome(release.key(), reason + ": " + message);
  }

  /** Records a Normal Event and an outcome line. */
  void done(ReleaseResource release, String reason, String message) {
    objects.event(release, false, reason, message);
    listener.outcome(release.key(), message);
  }

  private void write(ReleaseResource release, Map<String, Object> status) {
    objects.writeStatus(release, status);
    written.put(release.key(), new Written(release.uid(), release.generation(), status));
  }
}
