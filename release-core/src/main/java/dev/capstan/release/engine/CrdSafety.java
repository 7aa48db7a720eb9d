package dev.capstan.release.engine;

import dev.capstan.common.CrdGate;
import dev.capstan.common.Escapes;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Orchestrator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
      Plan plan,
      LiveState live,
      Map<ResourceRef, Manifest> desired,
      ReleaseOptions options,
      Orchestrator cluster) {
    List<PlannedChange> changes = null;
    for (int i = 0; i < plan.changes().size(); i++) {
      PlannedChange c = plan.changes().get(i);
      if (!c.ref().kind().isCrd()
          || !(c.action() == Action.UPDATE
              || c.action() == Action.REPAIR
              || c.action() == Action.ADOPT)) {
        continue; // only a write over a live CRD (and only its scope need have been observed)
      }
      Optional<PlannedChange> gated =
          gate(c, live.get(c.ref()), desired.get(c.ref()), options, cluster);
      if (gated.isPresent()) {
        if (changes == null) {
          changes = new ArrayList<>(plan.changes());
        }
        changes.set(i, gated.get());
      }
    }
    return changes == null ? plan : plan.withChanges(changes);
  }

  /** The change as the gate leaves it, or empty when it passes unchanged. */
  private static Optional<PlannedChange> gate(
      PlannedChange c,
      Optional<LiveObject> live,
      @Nullable Manifest desired,
      ReleaseOptions options,
      Orchestrator cluster) {
    Manifest content = live.map(LiveObject::content).orElse(null);
    if (content == null || desired == null) {
      return Optional.empty();
    }
    Map<String, ?> liveSpec = spec(content.content());
    List<String> storedVersions = storedVersions(live, liveSpec);
    Map<String, ?> desiredSpec = spec(desired.content());
    List<String> stored = new ArrayList<>();
    List<CrdGate.Finding> findings =
        judgedByWhatIsStored(
            CrdGate.findings(liveSpec, storedVersions, desiredSpec), content, cluster, stored);
    if (findings.isEmpty()) {
      return Optional.empty();
    }
    String text =
        String.join("; ", findings.stream().map(CrdGate.Finding::text).toList())
            + (stored.isEmpty() ? "" : " (objects stored: " + String.join("; ", stored) + ")");
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

  /**
   * The findings with each narrowed schema judged against the objects stored: a property removed or
   * a required field added breaks only objects that exist. For each version narrowed, one look at
   * the objects of the CRD at that version (at its storage version when that one is no longer
   * served; on Kubernetes one LIST with limit 1): none stored, the narrowing is dropped; some, they
   * are added to {@code stored} for the refusal to name. A cluster that cannot tell keeps the
   * finding.
   */
  private static List<CrdGate.Finding> judgedByWhatIsStored(
      List<CrdGate.Finding> findings, Manifest liveCrd, Orchestrator cluster, List<String> stored) {
    if (findings.stream().noneMatch(f -> f.rule() == CrdGate.Rule.SCHEMA_NARROWED)) {
      return findings;
    }
    Kind defined = Kind.definedBy(liveCrd.content());
    if (defined == null) {
      return findings;
    }
    Map<String, Optional<Orchestrator.Instances>> looked = new LinkedHashMap<>();
    List<String> served =
        CrdGate.versions(spec(liveCrd.content())).stream()
            .filter(CrdGate.Version::served)
            .map(CrdGate.Version::name)
            .toList();
    List<CrdGate.Finding> out = new ArrayList<>();
    for (CrdGate.Finding f : findings) {
      if (f.rule() != CrdGate.Rule.SCHEMA_NARROWED) {
        out.add(f);
        continue;
      }
      String at = served.contains(f.version()) ? f.version() : defined.version();
      Optional<Orchestrator.Instances> found =
          looked.computeIfAbsent(
              at,
              v -> {
                Optional<Orchestrator.Instances> i =
                    cluster.instances(
                        Kind.custom(defined.group(), v, defined.kind(), defined.namespaced()), 1);
                i.filter(x -> !x.none())
                    .ifPresent(
                        x ->
                            stored.add(
                                "at "
                                    + v
                                    + ": "
                                    + String.join(
                                        ", ", x.found().stream().map(ResourceRef::key).toList())
                                    + (x.more() ? " and more" : "")));
                return i;
              });
      if (found.isEmpty() || !found.get().none()) {
        out.add(f);
      }
    }
    return out;
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
