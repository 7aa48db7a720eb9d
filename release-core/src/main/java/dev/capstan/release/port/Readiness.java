package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The outcome of waiting for objects to be healthy. */
public sealed interface Readiness {

  /** Every object is healthy. */
  static Readiness ready() {
    return Ready.INSTANCE;
  }

  /** An object can not become healthy, for {@code reason}. */
  static Readiness failed(ResourceRef object, String reason) {
    return new Failed(object, reason);
  }

  /** The wait ran out with {@code pending} not ready, for no reason known. */
  static Readiness timedOut(List<ResourceRef> pending, Duration after) {
    return new TimedOut(pending, after, Map.of());
  }

  /**
   * The wait ran out with {@code pending} not ready, each for the reason in {@code reasons} (those
   * without one are shown by their key).
   */
  static Readiness timedOut(
      List<ResourceRef> pending, Duration after, Map<ResourceRef, String> reasons) {
    return new TimedOut(pending, after, reasons);
  }

  /**
   * The wait stopped before a verdict because its caller asked it to ({@link
   * ReadinessWait#stop()}): a newer revision supersedes the cast.
   */
  static Readiness stopped(List<ResourceRef> waitedFor) {
    return new Stopped(waitedFor);
  }

  /** Whether every object is healthy. */
  default boolean isReady() {
    return this instanceof Ready;
  }

  /** Why the objects are not healthy, in words. */
  String describe();

  /** Every object is healthy. */
  enum Ready implements Readiness {
    /** The one instance. */
    INSTANCE;

    @Override
    public String describe() {
      return "ready";
    }
  }

  /**
   * An object failed.
   *
   * @param object the object
   * @param reason why, e.g. {@code ImagePullBackOff: ...} or {@code ProgressDeadlineExceeded}
   */
  record Failed(ResourceRef object, String reason) implements Readiness {
    /** Requires both parts. */
    public Failed {
      requireNonNull(object, "object");
      requireNonNull(reason, "reason");
    }

    @Override
    public String describe() {
      return object.key() + " is not ready: " + reason;
    }
  }

  /**
   * The wait stopped, as asked, before the objects were judged healthy or failed.
   *
   * @param waitedFor the objects the wait was for
   */
  record Stopped(List<ResourceRef> waitedFor) implements Readiness {
    /** Copies the list. */
    public Stopped {
      waitedFor = List.copyOf(waitedFor);
    }

    @Override
    public String describe() {
      return "the wait for "
          + waitedFor.size()
          + " object(s) was stopped before they were healthy, as its caller asked";
    }
  }

  /**
   * The wait timed out.
   *
   * @param pending the objects not healthy yet, in the order they were waited for
   * @param after the timeout
   * @param reasons what each pending object was last seen waiting for, e.g. {@code APIService
   *     v1.example.com: Available=False: MissingEndpoints: ...}; possibly for none of them
   */
  record TimedOut(List<ResourceRef> pending, Duration after, Map<ResourceRef, String> reasons)
      implements Readiness {
    /** Copies the list and the reasons, keeping only reasons of pending objects. */
    public TimedOut {
      pending = List.copyOf(pending);
      requireNonNull(after, "after");
      Map<ResourceRef, String> kept = new LinkedHashMap<>();
      for (ResourceRef ref : pending) {
        String reason = reasons.get(ref);
        if (reason != null) {
          kept.put(ref, reason);
        }
      }
      reasons = Map.copyOf(kept);
    }

    /** The wait timed out with {@code pending} not ready, for no reason known. */
    public TimedOut(List<ResourceRef> pending, Duration after) {
      this(pending, after, Map.of());
    }

    /**
     * {@code not ready after 2m59s: } and each pending object's reason (or key), separated by
     * {@code ; }.
     */
    @Override
    public String describe() {
      return "not ready after " + Durations.format(after) + ": " + Progress.list(pending, reasons);
    }
  }

  /**
   * What a wait that goes on is still waiting for, reported while it waits (see {@link
   * ReadinessWait#progress()}).
   *
   * @param elapsed how long it has waited so far
   * @param total how many objects it waits for in all
   * @param pending the objects not healthy yet, in the order they are waited for
   * @param reasons what each pending object waits for (the verdict's reason, naming the object)
   */
  record Progress(
      Duration elapsed, int total, List<ResourceRef> pending, Map<ResourceRef, String> reasons) {
    /** At most this many pending objects are described; the rest are counted. */
    static final int SHOWN = 5;

    /** Copies the list and the reasons. */
    public Progress {
      requireNonNull(elapsed, "elapsed");
      pending = List.copyOf(pending);
      reasons = Map.copyOf(reasons);
    }

    /**
     * {@code still waiting after 30s for 2 of 5 object(s): Job shop/once: ...; APIService ...},
     * describing the first five pending objects and counting the others.
     */
    public String describe() {
      return "still waiting after "
          + Durations.format(elapsed)
          + " for "
          + pending.size()
          + " of "
          + total
          + " object(s): "
          + list(pending, reasons);
    }

    static String list(List<ResourceRef> pending, Map<ResourceRef, String> reasons) {
      String shown =
          pending.stream()
              .limit(SHOWN)
              .map(ref -> reasons.getOrDefault(ref, ref.key()))
              .collect(Collectors.joining("; "));
      return pending.size() > SHOWN ? shown + "; and " + (pending.size() - SHOWN) + " more" : shown;
    }
  }
}
