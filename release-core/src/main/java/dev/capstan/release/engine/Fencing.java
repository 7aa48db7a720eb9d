package dev.capstan.release.engine;

import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.Optional;
import java.util.Set;

/** Says what happened to an object whose write was fenced, after observing it once more. */
final class Fencing {
  private Fencing() {}

  /**
   * {@code ConfigMap/shop/shared was created by release shop/b since the plan; not taken} for a
   * create, {@code ConfigMap/shop/web changed since the plan (uid u-1, resourceVersion 7): it now
   * carries the stamp of release shop/b; not updated} for the other writes.
   */
  static String describe(
      Orchestrator orchestrator, ResourceRef ref, Action action, PreconditionFailedException e) {
    Optional<LiveObject> now;
    try {
      now =
          orchestrator.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).stream()
              .filter(o -> o.ref().equals(ref))
              .findFirst();
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
      return ref.key() + " was created" + by + " since the plan; not taken";
    }
    StringBuilder sb =
        new StringBuilder(ref.key())
            .append(" changed since the plan (")
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
      case CREATE -> "created";
      default -> "updated";
    };
  }
}
