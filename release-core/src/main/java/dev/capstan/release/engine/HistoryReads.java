package dev.capstan.release.engine;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.OperationInProgress;
import dev.capstan.release.result.ReleaseListing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The reads of recorded releases: the latest revision, a release's history, a namespace's list. */
public final class HistoryReads {
  private final EngineContext context;

  public HistoryReads(EngineContext context) {
    this.context = context;
  }

  /** The latest revision of a release, tombstones included. */
  public Optional<Release> get(String namespace, String name) {
    List<RecordEntry> entries = context.store.recordEntries(namespace, name);
    return entries.isEmpty()
        ? Optional.empty()
        : Optional.of(Unreadable.stored(context.store, namespace, name, entries.get(0)).release());
  }

  /** What holds the release's operation lease, if anything ({@link Store#heldLease}). */
  public Optional<OperationInProgress> inProgress(String namespace, String name) {
    return context
        .store
        .heldLease(namespace, name)
        .map(
            held -> {
              LeaseIntent intent = LeaseIntent.decode(held.intent());
              OperationInProgress.Operation operation =
                  intent == null
                      ? null
                      : intent.operation() == LeaseIntent.Operation.CAST
                          ? OperationInProgress.Operation.CAST
                          : OperationInProgress.Operation.UNINSTALL;
              Lease lease = held.lease();
              return new OperationInProgress(
                  lease.holder(), lease.acquiredAt(), lease.expiresAt(), operation);
            });
  }

  /**
   * Every recorded revision of a release, newest first, a deployed revision that a later one
   * replaced read as {@code SUPERSEDED} ({@link #superseding}).
   */
  public List<Release> history(String namespace, String name) {
    return superseding(
        context.store.recordEntries(namespace, name).stream()
            .map(e -> Unreadable.stored(context.store, namespace, name, e).release())
            .toList());
  }

  /**
   * {@code newestFirst} with each {@code DEPLOYED} revision older than a revision that was deployed
   * ({@code DEPLOYED}, {@code SUPERSEDED}, or uninstalled since) read as {@code SUPERSEDED}. A cast
   * records its own revision and leaves the one before it as stored (a write fewer per cast); the
   * history reads it superseded, its {@code updatedAt} still when its own record was last written
   * (as Helm's history shows a superseded revision when it was deployed), not when the next one
   * was. A revision that only failed or pending ones follow stays {@code DEPLOYED}: it is still
   * what runs. Records older versions rewrote as superseded read as stored.
   */
  static List<Release> superseding(List<Release> newestFirst) {
    List<Release> out = new ArrayList<>(newestFirst.size());
    boolean replaced = false; // whether a newer revision was deployed
    for (Release r : newestFirst) {
      if (r.status() == ReleaseStatus.DEPLOYED && replaced) {
        out.add(r.withStatus(ReleaseStatus.SUPERSEDED, r.updatedAt()));
      } else {
        out.add(r);
      }
      replaced |= wasDeployed(r.status());
    }
    return List.copyOf(out);
  }

  private static boolean wasDeployed(ReleaseStatus status) {
    return switch (status) {
      case DEPLOYED, SUPERSEDED, UNINSTALLING, UNINSTALLED -> true;
      default -> false;
    };
  }

  /**
   * The latest revision of every release in {@code namespace}; tombstones only when {@code
   * includeUninstalled}.
   */
  public List<Release> list(String namespace, boolean includeUninstalled) {
    return recorded(listing(namespace, includeUninstalled));
  }

  /**
   * Every release in {@code namespace} by name, its latest revision read, or, when its record
   * cannot be read, what is known of it and how to recover ({@link ReleaseListing.Unreadable}): one
   * corrupt record fails its own release alone. Tombstones only when {@code includeUninstalled}; an
   * unreadable release is always listed, one whose record is deleted while it is read never.
   */
  public List<ReleaseListing> listing(String namespace, boolean includeUninstalled) {
    List<ReleaseListing> out = new ArrayList<>();
    list(namespace, context.store.latestEntries(namespace), includeUninstalled, out);
    return List.copyOf(out);
  }

  /**
   * As {@link #listing}, of every namespace, by namespace and name: one unreadable record, in any
   * namespace, fails its own release alone.
   */
  public List<ReleaseListing> listingInAllNamespaces(boolean includeUninstalled) {
    List<ReleaseListing> out = new ArrayList<>();
    context
        .store
        .latestEntriesInAllNamespaces()
        .forEach((namespace, entries) -> list(namespace, entries, includeUninstalled, out));
    return List.copyOf(out);
  }

  private void list(
      String namespace,
      Map<String, RecordEntry> entries,
      boolean includeUninstalled,
      List<ReleaseListing> out) {
    entries.forEach(
        (name, entry) -> {
          try {
            Release r = entry.stored().release();
            if (includeUninstalled || r.status() != ReleaseStatus.UNINSTALLED) {
              out.add(new ReleaseListing.Recorded(r));
            }
          } catch (RecordFormatException e) {
            out.add(
                new ReleaseListing.Unreadable(
                    namespace,
                    name,
                    entry.revision(),
                    Unreadable.advice(
                        context.store, namespace, name, entry.revision(), e.getMessage())));
          } catch (StaleRecordException deletedWhileRead) {
            // uninstalled (or its revision deleted) after it was listed: it is not listed
          }
        });
  }

  /**
   * The latest revision of every release in every namespace that can be read, by namespace and
   * name; tombstones only when {@code includeUninstalled}. A release whose record cannot be read is
   * left out ({@link #listingInAllNamespaces} shows it): it fails no other.
   */
  public List<Release> listInAllNamespaces(boolean includeUninstalled) {
    return recorded(listingInAllNamespaces(includeUninstalled));
  }

  private static List<Release> recorded(List<ReleaseListing> listing) {
    return listing.stream()
        .filter(l -> l instanceof ReleaseListing.Recorded)
        .map(l -> ((ReleaseListing.Recorded) l).release())
        .toList();
  }

  /**
   * Revision {@code revision} of a release as it was recorded (its status as stored, not as the
   * history reads it), from one read of the release's records that decodes that revision's alone: a
   * rollback's target, whose record is as large as the release.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  Release recorded(String namespace, String name, int revision) {
    return context.store.recordEntries(namespace, name).stream()
        .filter(e -> e.revision() == revision)
        .findFirst()
        .map(e -> Unreadable.stored(context.store, namespace, name, e).release())
        .orElseThrow(() -> new ReleaseNotFoundException(namespace + "/" + name, revision));
  }
}
