package dev.capstan.release.engine;

import dev.capstan.common.CrdGate;
import dev.capstan.common.Escapes;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The CRD safety gate ({@link CrdGate}, the one platform updates use too) on a release's plan:
 * every change that writes over a live CustomResourceDefinition (an update, a repair, an adoption;
 * a rollback is a cast like any other) is checked against the live CRD's spec and {@code
 * status.storedVersions}, as observed for the plan, so it costs no request. A change that would
 * break stored objects becomes a {@link Action#CONFLICT} naming what would break and what to do
 * (the plan is then refused before any write), unless {@link
 * ReleaseOptions#allowUnsafeCrdChanges()} lets it through with the findings in its reason. A stored
 * version removed is refused whatever the option says: the API server refuses that change too,
 * until the version is gone from {@code status.storedVersions}. See ARCHITECTURE.md, "The 3-way
 * plan".
 */
final class CrdSafety {
  /** The option that lets the changes the API server accepts through. */
  static final String ALLOW =
      "allow unsafe CRD changes (allowUnsafeCrdChanges, --allow-unsafe-crd-changes)";

  private CrdSafety() {}

  /**
   * The plan with its unsafe CRD changes refused, or let through with their findings.
   *
   * @param plan the planner's plan
   * @param live what the plan was computed from
   * @param desired the objects as the cast would apply them, by ref; a CRD change whose desired
   *     object is not known (a plan from a spec alone) is not checked here, and is when cast
   * @param options the cast's options
   */
  static Plan gate(
      Plan plan, LiveState live, Map<ResourceRef, Manifest> desired, ReleaseOptions options) {
    List<PlannedChange> changes = null;
    for (int i = 0; i < plan.changes().size(); i++) {
      PlannedChange c = plan.changes().get(i);
      if (!c.ref().kind().isCrd()
          || !(c.action() == Action.UPDATE
              || c.action() == Action.REPAIR
              || c.action() == Action.ADOPT)) {
        continue; // only a write over a live CRD (and only its scope need have been observed)
      }
      Optional<PlannedChange> gated = gate(c, live.get(c.ref()), desired.get(c.ref()), options);
      if (gated.isPresent()) {
        if (changes == null) {
          changes = new ArrayList<>(plan.changes());
        }
        changes.set(i, gated.get());
      }
    }
    return changes == null
        ? plan
        : new Plan(
            plan.namespace(),
            plan.name(),
            plan.releaseId(),
            plan.revision(),
            plan.previousRevision(),
            changes,
            plan.fingerprint());
  }

  /** The change as the gate leaves it, or empty when it passes unchanged. */
  private static Optional<PlannedChange> gate(
      PlannedChange c,
      Optional<LiveObject> live,
      @Nullable Manifest desired,
      ReleaseOptions options) {
    Manifest content = live.map(LiveObject::content).orElse(null);
    if (content == null || desired == null) {
      return Optional.empty();
    }
    Map<String, ?> liveSpec = spec(content.content());
    List<CrdGate.Finding> findings =
        CrdGate.findings(liveSpec, storedVersions(live, liveSpec), spec(desired.content()));
    if (findings.isEmpty()) {
      return Optional.empty();
    }
    String text = String.join("; ", findings.stream().map(CrdGate.Finding::text).toList());
    List<String> removed =
        findings.stream()
            .filter(f -> f.rule() == CrdGate.Rule.STORED_VERSION_REMOVED)
            .map(CrdGate.Finding::version)
            .toList();
    if (removed.isEmpty() && options.allowUnsafeCrdChanges()) {
      String reason =
          (c.reason() == null ? "" : c.reason() + "; ")
              + "unsafe CRD change, applied because unsafe CRD changes are allowed: "
              + text;
      return Optional.of(
          new PlannedChange(
              c.ref(),
              c.action(),
              reason,
              c.desiredHash(),
              c.owner(),
              c.createReference(),
              c.wave(),
              c.diff()));
    }
    String advice;
    if (removed.isEmpty()) {
      advice = ALLOW + " to apply it anyway";
    } else {
      String versions = String.join(" and ", removed.stream().map(Escapes::escape).toList());
      advice =
          "migrate the objects stored at "
              + versions
              + " to a version the CRD keeps (write each again there, resetting its"
              + " metadata.managedFields, whose entries at "
              + versions
              + " would fail every later apply) and remove "
              + (removed.size() == 1 ? versions : "them")
              + " from its status.storedVersions, then cast again (the API server refuses the"
              + " change until then)"
              + (removed.size() < findings.size() && !options.allowUnsafeCrdChanges()
                  ? "; and " + ALLOW + " for the rest"
                  : "");
    }
    return Optional.of(
        new PlannedChange(
            c.ref(),
            Action.CONFLICT,
            "unsafe CRD change: " + text + "; " + advice,
            null,
            null,
            false,
            c.wave(),
            List.of()));
  }

  /** {@code status.storedVersions} as observed; unknown, the storage version(s) of the spec. */
  private static List<String> storedVersions(Optional<LiveObject> live, Map<String, ?> spec) {
    Map<String, Object> status = live.map(LiveObject::status).orElse(null);
    if (status != null && status.get("storedVersions") instanceof List<?> list) {
      List<String> out = new ArrayList<>();
      for (Object v : list) {
        if (v instanceof String s) {
          out.add(s);
        }
      }
      return out;
    }
    return CrdGate.storageVersions(spec);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> spec(Map<String, ?> object) {
    return object.get("spec") instanceof Map<?, ?> m ? (Map<String, ?>) m : Map.of();
  }
}
