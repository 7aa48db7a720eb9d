package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import dev.capstan.release.plan.Action;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one reconcile says about a Release, and the {@code status} it makes of it: kstatus
 * conditions ({@code Ready}, and {@code Reconciling} or {@code Stalled} only while true), {@code
 * observedGeneration}, the revisions, the last cast's counts and the last manual reconcile request
 * handled. A condition keeps its {@code lastTransitionTime} while its status stays the same, so an
 * unchanged outcome makes an unchanged status and the controller writes nothing. A suspended
 * Release keeps its status and gains a {@code Suspended} condition ({@link #suspended}).
 *
 * @param state the kind of outcome
 * @param reason a CamelCase reason, for example {@code Cast} or {@code Conflict}
 * @param message one line for people; never a secret value
 * @param appliedRevision the revision now deployed, or null to keep the status's
 * @param attemptedRevision the revision last cast, or null to keep the status's
 * @param counts the last cast's objects by action, or null to keep the status's
 */
record StatusReport(
    State state,
    String reason,
    String message,
    @Nullable Integer appliedRevision,
    @Nullable Integer attemptedRevision,
    @Nullable Map<String, Integer> counts) {

  /** The kinds of outcome, each with the conditions it sets. */
  enum State {
    /** The release is cast and unchanged: {@code Ready=True}. */
    READY,
    /**
     * Work is under way or waits on something that passes: {@code Ready=Unknown}, {@code
     * Reconciling=True}.
     */
    RECONCILING,
    /**
     * The release cannot progress until something changes: {@code Ready=False}, {@code
     * Stalled=True}.
     */
    STALLED
  }

  /**
   * The longest message a condition holds, in characters: Kubernetes' own for a condition's message
   * ({@code metav1.Condition}, as Flux's conditions hold).
   */
  static final int MAX_MESSAGE = 32_768;

  /** Requires a message, put on one line and cut to {@link #MAX_MESSAGE}. */
  StatusReport {
    requireNonNull(state, "state");
    requireNonNull(reason, "reason");
    message = cut(oneLine(requireNonNull(message, "message")));
  }

  /**
   * {@code message}, or its start and how much was cut when it is longer than {@link #MAX_MESSAGE}:
   * a Release that lists thousands of problems keeps a status people can read and the API server
   * stores.
   */
  static String cut(String message) {
    if (message.length() <= MAX_MESSAGE) {
      return message;
    }
    String more = " ... (" + message.length() + " characters in all, cut)";
    int end = MAX_MESSAGE - more.length();
    if (Character.isHighSurrogate(message.charAt(end - 1))) {
      end--; // never half a character
    }
    return message.substring(0, end) + more;
  }

  static StatusReport ready(String reason, String message) {
    return new StatusReport(State.READY, reason, message, null, null, null);
  }

  static StatusReport reconciling(String reason, String message) {
    return new StatusReport(State.RECONCILING, reason, message, null, null, null);
  }

  static StatusReport stalled(String reason, String message) {
    return new StatusReport(State.STALLED, reason, message, null, null, null);
  }

  /** This report, with the revisions and counts of a cast. */
  StatusReport withCast(@Nullable Integer applied, int attempted, Map<Action, Integer> planCounts) {
    return new StatusReport(state, reason, message, applied, attempted, counts(planCounts));
  }

  /** The counts a status shows of a plan: each action by its past participle. */
  static Map<String, Integer> counts(Map<Action, Integer> planCounts) {
    Map<String, Integer> out = new LinkedHashMap<>();
    out.put("created", planCounts.getOrDefault(Action.CREATE, 0));
    out.put("updated", planCounts.getOrDefault(Action.UPDATE, 0));
    out.put("repaired", planCounts.getOrDefault(Action.REPAIR, 0));
    out.put("adopted", planCounts.getOrDefault(Action.ADOPT, 0));
    out.put("unchanged", planCounts.getOrDefault(Action.UNCHANGED, 0));
    out.put("pruned", planCounts.getOrDefault(Action.PRUNE, 0));
    out.put("retained", planCounts.getOrDefault(Action.RETAIN, 0));
    out.put("conflicts", planCounts.getOrDefault(Action.CONFLICT, 0));
    return out;
  }

  /**
   * The status this report gives {@code release}.
   *
   * @param release the Release as last read (its status is the previous one)
   * @param releaseName the release the Release answers for from now on: the name it casts, once it
   *     may cast it; null to keep the status's (none before the Release may cast anything), so a
   *     Release stalled before its cast, or still letting go of the release it cast under a former
   *     {@code spec.releaseName}, still names the release it cast (docs/controller.md, "Renaming a
   *     release")
   * @param now the time of a condition that changes status
   */
  Map<String, Object> status(ReleaseResource release, @Nullable String releaseName, Instant now) {
    Map<String, @Nullable Object> previous = release.status();
    long generation = release.generation();
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("observedGeneration", generation);
    Object name = releaseName != null ? releaseName : previous.get("releaseName");
    if (name != null) {
      status.put("releaseName", name);
    }
    Object handled =
        release.reconcileRequest() != null
            ? release.reconcileRequest()
            : previous.get("lastHandledReconcileAt");
    if (handled != null) {
      status.put("lastHandledReconcileAt", handled);
    }
    Object applied =
        appliedRevision != null ? appliedRevision : previous.get("lastAppliedRevision");
    if (applied != null) {
      status.put("lastAppliedRevision", applied);
    }
    Object attempted =
        attemptedRevision != null ? attemptedRevision : previous.get("lastAttemptedRevision");
    if (attempted != null) {
      status.put("lastAttemptedRevision", attempted);
    }
    Object shown = counts != null ? counts : previous.get("counts");
    if (shown != null) {
      status.put("counts", shown);
    }
    List<Map<String, Object>> conditions = new ArrayList<>();
    String ready =
        switch (state) {
          case READY -> "True";
          case RECONCILING -> "Unknown";
          case STALLED -> "False";
        };
    conditions.add(condition(release, "Ready", ready, generation, now));
    if (state == State.RECONCILING) {
      conditions.add(condition(release, "Reconciling", "True", generation, now));
    }
    if (state == State.STALLED) {
      conditions.add(condition(release, "Stalled", "True", generation, now));
    }
    status.put("conditions", conditions);
    return status;
  }

  /**
   * The status of a suspended Release: the status it has, its conditions but {@code Suspended} kept
   * as they are (so a Release that was Ready stays Ready for what depends on it), and {@code
   * Suspended=True}. A manual reconcile request is not handled while suspended.
   */
  static Map<String, Object> suspended(ReleaseResource release, Instant now) {
    Map<String, Object> status = new LinkedHashMap<>();
    release
        .status()
        .forEach(
            (k, v) -> {
              if (v != null) {
                status.put(k, v);
              }
            });
    List<Object> conditions = new ArrayList<>();
    if (release.status().get("conditions") instanceof List<?> list) {
      for (Object c : list) {
        if (!(c instanceof Map<?, ?> m && SUSPENDED.equals(m.get("type")))) {
          conditions.add(c);
        }
      }
    }
    conditions.add(
        new StatusReport(
                State.READY,
                SUSPENDED,
                "spec.suspend is true: the controller leaves the release as it is",
                null,
                null,
                null)
            .condition(release, SUSPENDED, "True", release.generation(), now));
    status.put("conditions", conditions);
    return status;
  }

  /** The condition of a suspended Release, and its reason. */
  static final String SUSPENDED = "Suspended";

  private Map<String, Object> condition(
      ReleaseResource release, String type, String value, long generation, Instant now) {
    Map<?, ?> before = release.condition(type);
    Object since =
        before != null
                && value.equals(before.get("status"))
                && before.get("lastTransitionTime") != null
            ? before.get("lastTransitionTime")
            : now.truncatedTo(ChronoUnit.SECONDS).toString();
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("type", type);
    c.put("status", value);
    c.put("reason", reason);
    c.put("message", message);
    c.put("observedGeneration", generation);
    c.put("lastTransitionTime", since);
    return c;
  }

  /**
   * Whether {@code status} says the same as the Release's current status (so nothing needs to be
   * written).
   */
  static boolean same(ReleaseResource release, Map<String, Object> status) {
    return Trees.sameValue(Trees.freeze(status), Trees.freeze(release.status()));
  }

  /** A message on one line: the lines of a many-line message joined with {@code "; "}. */
  static String oneLine(String message) {
    return String.join("; ", message.strip().lines().map(String::strip).toList());
  }
}
