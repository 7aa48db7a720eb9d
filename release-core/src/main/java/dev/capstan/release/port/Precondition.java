package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.plan.LiveObject;
import java.util.Optional;

/**
 * What an object must be for a write to land: the fence of a write planned on an observation. A
 * write based on a stale view fails with {@link PreconditionFailedException} instead of landing.
 *
 * <ul>
 *   <li>{@link Absent}: the object must not exist (a create; on Kubernetes a POST, which fails with
 *       409 AlreadyExists);
 *   <li>{@link Observed}: the object must still be the one observed, with the same uid and
 *       resourceVersion (an update, repair, adopt, prune or un-stamp);
 *   <li>{@link None}: no condition (an adapter that reports no uid or version; an atomic revert
 *       writes back on the object as observed again, {@link Observed} or {@link Absent}).
 * </ul>
 */
public sealed interface Precondition {

  /** No condition. */
  static Precondition none() {
    return None.INSTANCE;
  }

  /** The object must not exist. */
  static Precondition absent() {
    return Absent.INSTANCE;
  }

  /** The object must exist with this uid and resourceVersion. */
  static Precondition observed(String uid, String resourceVersion) {
    return new Observed(uid, resourceVersion);
  }

  /**
   * The precondition of a write planned on {@code live}: {@link Absent} when the object was not
   * there, {@link Observed} when the adapter reported its uid and version, else {@link None}.
   */
  static Precondition of(Optional<LiveObject> live) {
    if (live.isEmpty()) {
      return absent();
    }
    String uid = live.get().uid();
    String version = live.get().resourceVersion();
    return uid == null || version == null ? none() : observed(uid, version);
  }

  /** For messages: {@code absent}, {@code uid U, resourceVersion V} or {@code none}. */
  String describe();

  /** No condition. */
  enum None implements Precondition {
    /** The only value. */
    INSTANCE;

    @Override
    public String describe() {
      return "none";
    }
  }

  /** The object must not exist. */
  enum Absent implements Precondition {
    /** The only value. */
    INSTANCE;

    @Override
    public String describe() {
      return "absent";
    }
  }

  /**
   * The object must exist with this uid and resourceVersion.
   *
   * @param uid the observed uid
   * @param resourceVersion the observed resourceVersion
   */
  record Observed(String uid, String resourceVersion) implements Precondition {
    /** Requires both. */
    public Observed {
      requireNonNull(uid, "uid");
      requireNonNull(resourceVersion, "resourceVersion");
    }

    @Override
    public String describe() {
      return "uid " + uid + ", resourceVersion " + resourceVersion;
    }
  }
}
