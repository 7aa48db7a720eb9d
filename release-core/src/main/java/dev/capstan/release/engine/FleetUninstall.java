package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.ObservedNames;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.UninstallOutcome;
import dev.capstan.release.result.UninstallResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Uninstalls many releases at once, in groups that read together under their leases: each release
 * of a group takes its lease; then the records of the group's releases are read once per namespace
 * and what their latest revisions own observed once per kind and namespace; then each is
 * uninstalled over those reads as {@link UninstallOperation#uninstall} would over its own
 * (ARCHITECTURE.md, "Many releases at once").
 */
public final class FleetUninstall {
  private final EngineContext context;
  private final UninstallOperation uninstalls;

  public FleetUninstall(EngineContext context, UninstallOperation uninstalls) {
    this.context = context;
    this.uninstalls = uninstalls;
  }

  /** A release of the call, as far as its uninstall got. */
  private static final class Member {
    final int index;
    final ReleaseRef ref;
    @Nullable OperationScope scope;

    /** Set once its operation ended or its last step began: nothing is left to abandon. */
    volatile boolean settled;

    @Nullable LeaseKeeper lease;

    /** Whether the group read its records; if not, its uninstall reads them for itself. */
    boolean read;

    /** Its latest record, as the group read it. */
    @Nullable StoredRelease latest;

    /** What it owns, as the group observed it; {@code null}: observed by its uninstall. */
    @Nullable LiveState observed;

    Member(int index, ReleaseRef ref) {
      this.index = index;
      this.ref = ref;
    }
  }

  /**
   * One outcome per release, in the order given; see {@code ReleaseController.uninstallAll}.
   *
   * @throws IllegalArgumentException if a release is given twice or {@code parallelism} is below 1;
   *     nothing was read or written
   */
  public List<UninstallOutcome> uninstallAll(
      List<ReleaseRef> releases, UninstallOptions options, int parallelism) {
    requireNonNull(releases, "releases");
    requireNonNull(options, "options");
    FleetWorkers.checkCall(releases, ReleaseRef::qualifiedName, parallelism);
    UninstallOutcome[] outcomes = new UninstallOutcome[releases.size()];
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < releases.size(); i++) {
      members.add(new Member(i, releases.get(i)));
    }
    FleetWorkers workers = new FleetWorkers(parallelism, "capstan-uninstall-all");
    workers.inGroups(
        members,
        m -> outcomes[m.index] != null,
        m -> begin(m, outcomes),
        group -> readTogether(group, options),
        m -> outcomes[m.index] = finish(m, options),
        m -> {
          if (m.scope != null && !m.settled) {
            outcomes[m.index] = abandon(m);
          }
        });
    for (Member m : members) {
      if (outcomes[m.index] == null) {
        outcomes[m.index] =
            new UninstallOutcome.Failed(m.ref.qualifiedName(), notUninstalled(m.ref));
      }
    }
    workers.end();
    return List.of(outcomes);
  }

  /** Starts the uninstall of {@code m} as an operation of its own: its lease taken. */
  private void begin(Member m, UninstallOutcome[] outcomes) {
    OperationScope scope = context.begin(m.ref.qualifiedName(), Operation.UNINSTALL);
    m.scope = scope;
    try {
      m.lease =
          context.within(
              scope, () -> uninstalls.acquireLease(m.ref.namespace(), m.ref.name()), false);
    } catch (RuntimeException e) {
      outcomes[m.index] = new UninstallOutcome.Failed(m.ref.qualifiedName(), e);
    } catch (Error e) {
      m.settled = true; // the operation failed with it
      throw e;
    }
  }

  /**
   * Reads for the releases of a group that hold their lease (not taken over): their records, one
   * read per namespace ({@link dev.capstan.release.port.Store#recordEntries(String, Set)}), and
   * what the latest revisions own and the namespaces they may delete ({@link
   * UninstallOperation#observed}), one observation per kind and namespace. A release whose record
   * cannot be read with the group's reads for itself; so does every release of the group when a
   * shared read fails.
   */
  private void readTogether(List<Member> group, UninstallOptions options) {
    List<Member> leased = new ArrayList<>();
    for (Member m : group) {
      LeaseKeeper lease = m.lease;
      if (lease != null && lease.grant().takenOver() == null) {
        leased.add(m);
      }
    }
    if (leased.isEmpty()) {
      return;
    }
    try {
      FleetWorkers.GroupRecords records =
          new FleetWorkers.GroupRecords(context.store, leased.stream().map(m -> m.ref).toList());
      Map<Member, Map<LiveState.Scope, Set<String>>> owned = new LinkedHashMap<>();
      Map<LiveState.Scope, Set<String>> all = new LinkedHashMap<>();
      for (Member m : leased) {
        List<RecordEntry> entries = records.of(m.ref.namespace(), m.ref.name());
        Optional<StoredRelease> latest;
        try {
          latest = entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(0).stored());
        } catch (RuntimeException e) {
          continue; // its uninstall reads again, and fails as uninstall does
        }
        m.read = true;
        m.latest = latest.orElse(null);
        Release r = latest.map(StoredRelease::release).orElse(null);
        if (r != null && r.status() != ReleaseStatus.UNINSTALLED) {
          Map<LiveState.Scope, Set<String>> n =
              ObservedNames.of(UninstallOperation.observed(r, options));
          owned.put(m, n);
          n.forEach(
              (scope, inScope) -> all.computeIfAbsent(scope, s -> new TreeSet<>()).addAll(inScope));
        }
      }
      LiveState shared = context.ports.observe(all);
      owned.forEach((m, n) -> m.observed = Ports.slice(shared, n, List.of()));
    } catch (RuntimeException e) {
      for (Member m : leased) {
        m.read = false;
        m.observed = null;
      }
    }
  }

  /** Uninstalls {@code m} within its operation, under its lease, which it gives up. */
  private UninstallOutcome finish(Member m, UninstallOptions options) {
    m.settled = true;
    LeaseKeeper lease = requireNonNull(m.lease);
    boolean read = m.read;
    Optional<StoredRelease> latest = Optional.ofNullable(m.latest);
    LiveState observed = m.observed;
    String namespace = m.ref.namespace();
    String name = m.ref.name();
    try {
      UninstallResult result =
          context.within(
              requireNonNull(m.scope),
              () ->
                  lease.run(
                      held ->
                          read
                              ? uninstalls.uninstallRead(
                                  namespace, name, options, held, latest, observed)
                              : uninstalls.uninstallLeased(namespace, name, options, held)),
              true);
      return new UninstallOutcome.Uninstalled(m.ref.qualifiedName(), result);
    } catch (RuntimeException e) {
      return new UninstallOutcome.Failed(m.ref.qualifiedName(), e);
    }
  }

  /** Ends the operation of a release whose lease was taken and then not uninstalled. */
  private UninstallOutcome abandon(Member m) {
    ReleaseException notUninstalled = notUninstalled(m.ref);
    try {
      context.within(
          requireNonNull(m.scope),
          () -> {
            LeaseKeeper lease = m.lease;
            if (lease != null) {
              lease.close();
            }
            throw notUninstalled;
          },
          false);
    } catch (ReleaseException expected) {
      // the operation failed with it
    }
    return new UninstallOutcome.Failed(m.ref.qualifiedName(), notUninstalled);
  }

  private static ReleaseException notUninstalled(ReleaseRef ref) {
    return new ReleaseException(
        "release "
            + ref.qualifiedName()
            + " was not uninstalled: uninstallAll was interrupted before its uninstall started");
  }
}
