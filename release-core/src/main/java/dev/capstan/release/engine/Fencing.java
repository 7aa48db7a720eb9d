package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Says what happened to an object whose write was fenced, after observing it once more; removes an
 * owned object on ownership and uid rather than on the exact version observed; and writes an atomic
 * revert's pre-image back only over the object the cast wrote.
 */
final class Fencing {
  /** How many times a removal is written again on a fresh look at a changed object. */
  static final int REMOVAL_ATTEMPTS = 4;

  private Fencing() {}

  /**
   * Deletes ({@link Action#PRUNE}) or un-stamps ({@link Action#RETAIN}) an object {@code owner}
   * owns, on the observation {@code precondition} was taken from. The object's version is no
   * condition of the release's ownership: when a controller changed the object since (the quota
   * controller updating a ResourceQuota as the Deployments go, the volume binder a claim), the
   * write is refused, and the object is observed again; while it is still the one observed (same
   * uid) and still carries {@code owner}'s stamp, the removal is written again on that look (up to
   * {@value #REMOVAL_ATTEMPTS} writes in all). An object gone meanwhile needs nothing.
   *
   * @return whether the object was removed by this call ({@code false}: it was gone)
   * @throws ReleaseException naming what happened ({@link #describe}) when the object was
   *     re-created or is no longer {@code owner}'s, or kept changing; nothing was written to it
   */
  static boolean removeOwned(
      Orchestrator orchestrator,
      ResourceRef ref,
      ReleaseIdentity owner,
      Action action,
      Precondition precondition,
      Consumer<ReleaseEvent> events,
      String release) {
    Precondition at = precondition;
    for (int attempt = 1; ; attempt++) {
      try {
        if (action == Action.PRUNE) {
          orchestrator.delete(ref, owner, at);
        } else {
          orchestrator.unstamp(ref, owner, at);
        }
        return true;
      } catch (PreconditionFailedException e) {
        Look now = attempt < REMOVAL_ATTEMPTS ? lookAgain(orchestrator, ref) : Look.UNSEEN;
        if (now.seen() && at instanceof Precondition.Observed observed) {
          LiveObject o = now.object();
          if (o == null) {
            return false; // gone since: nothing left to remove
          }
          if (observed.uid().equals(o.uid()) && o.stamp() != null && o.stamp().ownedBy(owner)) {
            at = Precondition.of(Optional.of(o));
            continue;
          }
        }
        String reason = describe(orchestrator, ref, action, e);
        events.accept(new ReleaseEvent.Fenced(release, ref, action, reason));
        throw new ReleaseException(reason, e);
      }
    }
  }

  /**
   * Writes the pre-image {@code before} back (an atomic revert of {@code action}), only over the
   * object the cast wrote: the object is observed again, and written back on that look's uid and
   * resourceVersion while it is still the one observed before the cast (same uid: an update, a
   * server-side apply, an un-stamp keep it; for a {@link Action#REPLACE}, the replacement) and
   * carries {@code owner}'s stamp or the pre-image's (a write that did not land; an un-stamp's
   * none). An object the cast deleted ({@link Action#PRUNE}, {@link Action#REPLACE}) and that is
   * still gone is created again on its absence. Refused because it moved between the look and the
   * write (its controller writing its status), the object is observed again, up to {@value
   * #REMOVAL_ATTEMPTS} writes in all. Anything else is another writer's object (re-created, taken,
   * or deleted since the cast wrote it): it is left as it is now. With an adapter that reports no
   * uid, the stamp alone tells, and the write goes out unconditioned ({@link Precondition#of}).
   *
   * @throws ReleaseException {@code not reverted: ...} saying what happened to the object when it
   *     is not the cast's to write back; nothing was written to it
   * @throws RuntimeException the cluster's error, when it cannot be observed or written
   */
  static void writeBack(
      Orchestrator orchestrator, LiveObject before, Action action, ReleaseIdentity owner) {
    Manifest content = before.content();
    if (content == null) {
      throw new ReleaseException("no pre-image content was observed");
    }
    ResourceRef ref = before.ref();
    boolean deletedByCast = action == Action.PRUNE || action == Action.REPLACE;
    for (int attempt = 1; ; attempt++) {
      Optional<LiveObject> now = observe(orchestrator, ref);
      Precondition at;
      if (now.isEmpty()) {
        if (!deletedByCast) {
          throw new ReleaseException(
              "not reverted: it was deleted since this cast wrote it, and is left absent");
        }
        at = Precondition.absent();
      } else if (writtenBy(now.get(), before, action, owner)) {
        at = Precondition.of(now);
      } else {
        throw new ReleaseException("not reverted: " + notWritten(now.get(), before, deletedByCast));
      }
      try {
        orchestrator.apply(content, before.stamp(), at);
        return;
      } catch (PreconditionFailedException e) {
        if (attempt >= REMOVAL_ATTEMPTS) {
          throw new ReleaseException(
              "not reverted: it kept changing while it was written back (last on "
                  + at.describe()
                  + "), and is left as it is now",
              e);
        }
      }
    }
  }

  /**
   * Whether {@code now} is the object the cast wrote over {@code before}: the same object (same
   * uid, when the adapter reports it), carrying {@code owner}'s stamp, the pre-image's, or none
   * after an un-stamp; for a replace, any object carrying {@code owner}'s stamp (the replacement
   * has a uid of its own).
   */
  private static boolean writtenBy(
      LiveObject now, LiveObject before, Action action, ReleaseIdentity owner) {
    OwnershipStamp stamp = now.stamp();
    boolean ours = stamp != null && stamp.ownedBy(owner);
    if (action == Action.REPLACE) {
      return ours;
    }
    boolean same = before.uid() == null || before.uid().equals(now.uid());
    return same
        && (ours
            || Objects.equals(stamp, before.stamp())
            || (stamp == null && action == Action.RETAIN));
  }

  /**
   * {@code it was deleted and created again since this cast wrote it (it carries the stamp of
   * release shop/b), and is left as it is now}.
   */
  private static String notWritten(LiveObject now, LiveObject before, boolean deletedByCast) {
    String happened;
    if (before.uid() == null || before.uid().equals(now.uid())) {
      happened = "modified since this cast wrote it";
    } else if (deletedByCast) {
      happened = "created again since this cast deleted it";
    } else {
      happened = "deleted and created again since this cast wrote it";
    }
    OwnershipStamp stamp = now.stamp();
    String holder =
        stamp == null ? "it is unowned" : "it carries the stamp of release " + owner(stamp);
    return "it was " + happened + " (" + holder + "), and is left as it is now";
  }

  /** {@code ref} as observed now: empty when it is gone. */
  private static Optional<LiveObject> observe(Orchestrator orchestrator, ResourceRef ref) {
    return orchestrator.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).stream()
        .filter(o -> o.ref().equals(ref))
        .findFirst();
  }

  /**
   * A precondition to write {@code ref} again on, after its write on {@code observed} was fenced by
   * a change that moved nothing the plan judged: the object is the one observed (same uid), carries
   * the same stamp, and holds the same content, so only what the server manages moved (its status,
   * written by the object's controller, and with it the resourceVersion). {@code null} otherwise,
   * or when it cannot be observed again: the write stays fenced.
   */
  static @Nullable Precondition unchangedSince(
      Orchestrator orchestrator, ResourceRef ref, @Nullable LiveObject observed) {
    if (observed == null || observed.content() == null || observed.uid() == null) {
      return null;
    }
    Look now = lookAgain(orchestrator, ref);
    LiveObject o = now.object();
    if (o == null
        || !observed.uid().equals(o.uid())
        || !Objects.equals(observed.stamp(), o.stamp())
        || !observed.content().equals(o.content())) {
      return null;
    }
    return Precondition.of(Optional.of(o));
  }

  /**
   * A look at one object: whether it could be observed, and what was there ({@code null}: none).
   */
  private record Look(boolean seen, @Nullable LiveObject object) {
    static final Look UNSEEN = new Look(false, null);
  }

  private static Look lookAgain(Orchestrator orchestrator, ResourceRef ref) {
    try {
      return new Look(true, observe(orchestrator, ref).orElse(null));
    } catch (RuntimeException e) {
      return Look.UNSEEN;
    }
  }

  /**
   * {@code ConfigMap/shop/shared was created by release shop/b since the plan; not taken} for a
   * create, {@code ConfigMap/shop/web changed since the plan (uid u-1, resourceVersion 7): it now
   * carries the stamp of release shop/b; not updated} for the other writes.
   */
  static String describe(
      Orchestrator orchestrator, ResourceRef ref, Action action, PreconditionFailedException e) {
    return ref.key() + " " + happened(orchestrator, ref, action, e);
  }

  /**
   * {@link #describe} without the object's key, which it begins with: {@code was created by release
   * shop/b since the plan; not taken}, for a line that names the object already.
   */
  static String happened(
      Orchestrator orchestrator, ResourceRef ref, Action action, PreconditionFailedException e) {
    Optional<LiveObject> now;
    try {
      now = observe(orchestrator, ref);
    } catch (RuntimeException observeError) {
      e.addSuppressed(observeError);
      now = null;
    }
    if (e.precondition() instanceof Precondition.Absent) {
      String by;
      if (now == null) {
        by = "";
      } else if (now.isEmpty()) {
        by = " (and deleted again)";
      } else if (now.get().stamp() == null) {
        by = " by someone else (it is unowned)";
      } else {
        by = " by release " + owner(now.get().stamp());
      }
      return "was created" + by + " since the plan; not taken";
    }
    StringBuilder sb =
        new StringBuilder("changed since the plan (")
            .append(e.precondition().describe())
            .append(')');
    if (now != null) {
      if (now.isEmpty()) {
        sb.append(": it is gone");
      } else if (e.precondition() instanceof Precondition.Observed o
          && now.get().uid() != null
          && !o.uid().equals(now.get().uid())) {
        sb.append(": it was deleted and created again");
        appendOwner(sb, now.get());
      } else {
        sb.append(": it was modified");
        appendOwner(sb, now.get());
      }
    }
    return sb.append("; not ").append(verb(action)).toString();
  }

  private static void appendOwner(StringBuilder sb, LiveObject now) {
    OwnershipStamp stamp = now.stamp();
    sb.append(
        stamp == null ? ", it is unowned" : ", it carries the stamp of release " + owner(stamp));
  }

  private static String owner(OwnershipStamp stamp) {
    return stamp.owner().qualifiedName();
  }

  private static String verb(Action action) {
    return switch (action) {
      case PRUNE -> "deleted";
      case RETAIN -> "un-stamped";
      case ADOPT -> "adopted";
      case REPAIR -> "repaired";
      case REPLACE -> "replaced";
      case CREATE -> "created";
      default -> "updated";
    };
  }
}
