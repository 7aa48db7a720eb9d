package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.common.Escapes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An object a release creates around an operation instead of owning it: a migration Job before an
 * upgrade, a backup before an uninstall, a smoke test on {@code release test}. Any manifest whose
 * annotations name phases is a hook, with Helm's annotations ({@value #HELM_HOOK}, {@value
 * #HELM_WEIGHT}, {@value #HELM_DELETE_POLICY}, as rendered charts carry them) or Capstan's own
 * ({@value #HOOK}, {@value #WEIGHT}, {@value #DELETE_POLICY}), and {@value #TIMEOUT} for its own
 * timeout. Phases and policies are read as Helm reads them: comma-separated, blanks around each and
 * letter case ignored. A hook is never owned, stamped or pruned; a Job or Pod is awaited to
 * completion, any other kind counts done once created (ARCHITECTURE.md, "Hooks").
 *
 * @param object the object created when the hook runs, as given
 * @param phases when it runs, in declaration order of {@link HookPhase}, at least one
 * @param weight its order within a phase, lowest first (then by kind and name)
 * @param deletePolicies when its object is deleted, as given (none: {@link #effectivePolicies()} is
 *     {@code before-hook-creation})
 * @param timeout how long a run may take, or {@code null} for the operation's timeout
 */
public record Hook(
    Manifest object,
    List<HookPhase> phases,
    int weight,
    List<HookDeletePolicy> deletePolicies,
    @Nullable Duration timeout) {
  /** Helm's hook annotation: the phases, comma-separated. */
  public static final String HELM_HOOK = "helm.sh/hook";

  /** Helm's weight annotation: an integer. */
  public static final String HELM_WEIGHT = "helm.sh/hook-weight";

  /** Helm's delete policy annotation: the policies, comma-separated. */
  public static final String HELM_DELETE_POLICY = "helm.sh/hook-delete-policy";

  /** Capstan's hook annotation, the same as {@value #HELM_HOOK}. */
  public static final String HOOK = "capstan.dev/hook";

  /** Capstan's weight annotation, the same as {@value #HELM_WEIGHT}. */
  public static final String WEIGHT = "capstan.dev/hook-weight";

  /** Capstan's delete policy annotation, the same as {@value #HELM_DELETE_POLICY}. */
  public static final String DELETE_POLICY = "capstan.dev/hook-delete-policy";

  /** How long one run of the hook may take, e.g. {@code 5m}; Capstan's alone. */
  public static final String TIMEOUT = "capstan.dev/hook-timeout";

  /**
   * The annotation Capstan puts on a hook's object when it creates it: {@code namespace/name} of
   * the release, with its id in {@value #HOOK_OF_ID} (as an ownership stamp carries them). A hook's
   * object is deleted only when it carries this release's mark ({@link #markedBy}) and no ownership
   * stamp.
   */
  public static final String HOOK_OF = "capstan.dev/hook-of";

  /** The id of the release named in {@value #HOOK_OF}; absent on hook objects made before. */
  public static final String HOOK_OF_ID = "capstan.dev/hook-of-id";

  /** Run order within a phase: weight, then kind and name (as Helm sorts by weight, then name). */
  public static final Comparator<Hook> ORDER =
      Comparator.comparingInt(Hook::weight)
          .thenComparing(h -> h.ref().name())
          .thenComparing(Hook::ref, ResourceRef.APPLY_ORDER);

  /** Requires every part; at least one phase, no phase or policy twice, a positive timeout. */
  public Hook {
    requireNonNull(object, "object");
    phases = List.copyOf(EnumSet.copyOf(nonEmpty(phases, object)));
    deletePolicies =
        deletePolicies.isEmpty() ? List.of() : List.copyOf(EnumSet.copyOf(deletePolicies));
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException(
          object.ref().key() + ": a hook's timeout must be positive: " + timeout);
    }
    if (object.kind().equals(Kind.NAMESPACE) || object.kind().shared()) {
      throw new IllegalArgumentException(
          object.ref().key()
              + ": a hook must be an object a release could own; a "
              + object.kind().kind()
              + " is not");
    }
  }

  private static List<HookPhase> nonEmpty(List<HookPhase> phases, Manifest object) {
    if (phases.isEmpty()) {
      throw new IllegalArgumentException(object.ref().key() + ": a hook needs at least one phase");
    }
    return phases;
  }

  /** A hook of {@code object} for {@code phases}, weight 0, Helm's default policy. */
  public static Hook of(Manifest object, HookPhase... phases) {
    return new Hook(object, List.of(phases), 0, List.of(), null);
  }

  /** A copy with another weight. */
  public Hook withWeight(int weight) {
    return new Hook(object, phases, weight, deletePolicies, timeout);
  }

  /** A copy with these delete policies. */
  public Hook withDeletePolicies(HookDeletePolicy... policies) {
    return new Hook(object, phases, weight, List.of(policies), timeout);
  }

  /** A copy with its own timeout. */
  public Hook withTimeout(@Nullable Duration timeout) {
    return new Hook(object, phases, weight, deletePolicies, timeout);
  }

  /** {@code object} with the mark of a hook object of {@code release}: its name and its id. */
  public static Manifest marked(Manifest object, ReleaseIdentity release) {
    return object
        .withEntry("metadata.annotations", HOOK_OF, release.qualifiedName())
        .withEntry("metadata.annotations", HOOK_OF_ID, release.id());
  }

  /**
   * Whether {@code annotations} mark a hook object of {@code release}: {@value #HOOK_OF} names it,
   * and {@value #HOOK_OF_ID} is its id. A mark without an id (written before marks carried one) is
   * read as the release's by its name alone: such an object cannot tell two releases of one
   * namespace and name in different stores apart.
   */
  public static boolean markedBy(Map<String, String> annotations, ReleaseIdentity release) {
    String id = annotations.get(HOOK_OF_ID);
    return release.qualifiedName().equals(annotations.get(HOOK_OF))
        && (id == null || id.equals(release.id()));
  }

  /**
   * The hook {@code object}'s annotations declare, or empty when they name no phase.
   *
   * @throws IllegalArgumentException naming the object, the annotation, the rule and the escaped
   *     value: an unknown phase or policy, a weight that is no integer, a bad timeout, or Helm's
   *     and Capstan's annotation both given with different values
   */
  public static Optional<Hook> declaredBy(Manifest object) {
    Map<String, String> a = object.annotations();
    String phases = annotation(object, HELM_HOOK, HOOK);
    if (phases == null) {
      for (String other :
          List.of(HELM_WEIGHT, WEIGHT, HELM_DELETE_POLICY, DELETE_POLICY, TIMEOUT)) {
        if (a.containsKey(other)) {
          throw new IllegalArgumentException(
              object.ref().key()
                  + ": annotation "
                  + other
                  + " belongs to a hook, but the object names no phase in "
                  + HOOK
                  + " or "
                  + HELM_HOOK);
        }
      }
      return Optional.empty();
    }
    String ref = object.ref().key();
    List<HookPhase> declared =
        list(
            ref,
            a.containsKey(HOOK) ? HOOK : HELM_HOOK,
            phases,
            HookPhase::parse,
            "pre-install, post-install, pre-upgrade, post-upgrade, pre-rollback, post-rollback,"
                + " pre-delete, post-delete, test");
    String policies = annotation(object, HELM_DELETE_POLICY, DELETE_POLICY);
    List<HookDeletePolicy> deletePolicies =
        policies == null
            ? List.of()
            : list(
                ref,
                a.containsKey(DELETE_POLICY) ? DELETE_POLICY : HELM_DELETE_POLICY,
                policies,
                HookDeletePolicy::parse,
                "before-hook-creation, hook-succeeded, hook-failed");
    String weightText = annotation(object, HELM_WEIGHT, WEIGHT);
    int weight = 0;
    if (weightText != null) {
      try {
        weight = Integer.parseInt(weightText.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            ref
                + ": annotation "
                + (a.containsKey(WEIGHT) ? WEIGHT : HELM_WEIGHT)
                + " must be an integer: "
                + Escapes.quote(weightText),
            e);
      }
    }
    Duration timeout = null;
    String timeoutText = a.get(TIMEOUT);
    if (timeoutText != null) {
      try {
        timeout = Durations.parse(timeoutText);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            ref + ": annotation " + TIMEOUT + " " + e.getMessage(), e);
      }
    }
    return Optional.of(new Hook(object, declared, weight, deletePolicies, timeout));
  }

  private static @Nullable String annotation(Manifest object, String helm, String capstan) {
    String h = object.annotations().get(helm);
    String c = object.annotations().get(capstan);
    if (h != null && c != null && !h.equals(c)) {
      throw new IllegalArgumentException(
          object.ref().key()
              + ": annotations "
              + helm
              + " and "
              + capstan
              + " must agree when both are given: "
              + Escapes.quote(h)
              + " and "
              + Escapes.quote(c));
    }
    return c != null ? c : h;
  }

  private static <T> List<T> list(
      String ref,
      String annotation,
      String value,
      Function<String, Optional<T>> parse,
      String known) {
    List<T> out = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      String item = part.strip().toLowerCase(java.util.Locale.ROOT); // as Helm reads them
      T parsed = parse.apply(item).orElse(null);
      if (parsed == null) {
        throw new IllegalArgumentException(
            ref
                + ": annotation "
                + annotation
                + " must list, comma-separated, some of "
                + known
                + ": "
                + Escapes.quote(item)
                + " is none of them");
      }
      if (!out.contains(parsed)) {
        out.add(parsed);
      }
    }
    return out;
  }

  /**
   * The object with the hook in Capstan's annotations ({@value #HOOK}, {@value #WEIGHT}, {@value
   * #DELETE_POLICY}, {@value #TIMEOUT}; Helm's removed), as payloads and records carry it: {@link
   * #declaredBy} of it is this hook.
   */
  public Manifest toManifest() {
    Map<String, Object> annotations = new java.util.TreeMap<>(object.annotations());
    List.of(HELM_HOOK, HELM_WEIGHT, HELM_DELETE_POLICY, DELETE_POLICY, TIMEOUT)
        .forEach(annotations::remove);
    annotations.put(
        HOOK, String.join(",", phases.stream().map(HookPhase::annotationValue).toList()));
    annotations.put(WEIGHT, Integer.toString(weight));
    if (!deletePolicies.isEmpty()) {
      annotations.put(
          DELETE_POLICY,
          String.join(
              ",", deletePolicies.stream().map(HookDeletePolicy::annotationValue).toList()));
    }
    if (timeout != null) {
      annotations.put(TIMEOUT, timeout.toMillis() + "ms");
    }
    return object.with("metadata.annotations", annotations);
  }

  /** The object's ref. */
  public ResourceRef ref() {
    return object.ref();
  }

  /** Whether it runs in {@code phase}. */
  public boolean runsIn(HookPhase phase) {
    return phases.contains(phase);
  }

  /** The delete policies that apply: those given, else {@code before-hook-creation} (Helm 3's). */
  public List<HookDeletePolicy> effectivePolicies() {
    return deletePolicies.isEmpty()
        ? List.of(HookDeletePolicy.BEFORE_HOOK_CREATION)
        : deletePolicies;
  }

  /** Whether its object is awaited to completion (a Job or a Pod) rather than done once created. */
  public boolean awaited() {
    return object.kind().equals(Kind.JOB) || object.kind().equals(Kind.POD);
  }

  /** Whether it runs on {@code release test} alone ({@code helm test}'s), in no other phase. */
  public boolean isTest() {
    return phases.equals(List.of(HookPhase.TEST));
  }

  /** {@code KEY (phase, phase)} in run order, e.g. {@code batch/Job/shop/migrate (pre-upgrade)}. */
  public String describe() {
    return ref().key()
        + " ("
        + String.join(", ", phases.stream().map(HookPhase::annotationValue).toList())
        + ")";
  }

  /** Shows the ref, phases and weight; never the content. */
  @Override
  public String toString() {
    return "Hook[" + ref().key() + " " + phases + " weight " + weight + "]";
  }
}
