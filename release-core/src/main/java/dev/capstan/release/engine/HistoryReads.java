package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import java.util.Optional;

/** The reads of recorded releases: the latest revision, a release's history, a namespace's list. */
public final class HistoryReads {
  private final EngineContext context;

  public HistoryReads(EngineContext context) {
    this.context = context;
  }

  /** The latest revision of a release, tombstones included. */
  public Optional<Release> get(String namespace, String name) {
    return context.store.latestRecord(namespace, name).map(StoredRelease::release);
  }

  /** Every recorded revision of a release, newest first. */
  public List<Release> history(String namespace, String name) {
    return context.store.records(namespace, name).stream().map(StoredRelease::release).toList();
  }

  /**
   * The latest revision of every release in {@code namespace}; tombstones only when {@code
   * includeUninstalled}.
   */
  public List<Release> list(String namespace, boolean includeUninstalled) {
    return context.store.latestRecords(namespace).stream()
        .map(StoredRelease::release)
        .filter(r -> includeUninstalled || r.status() != ReleaseStatus.UNINSTALLED)
        .toList();
  }

  /**
   * Revision {@code revision} of a release.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  Release revision(String namespace, String name, int revision) {
    return history(namespace, name).stream()
        .filter(r -> r.revision() == revision)
        .findFirst()
        .orElseThrow(() -> new ReleaseNotFoundException(namespace + "/" + name, revision));
  }
}
