package dev.capstan.release.engine;

import dev.capstan.common.ApiJson;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.common.health.InvalidHealthRulesException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.rollout.ConfigRollout;
import dev.capstan.release.validate.ApiServerLimits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks that payloads match their spec, that every object a payload refers to is in the release or
 * among its references, that every object stays within the API server's limits ({@link
 * ApiServerLimits}), that the cluster serves every kind (a CRD of the same release counts) and
 * stores every number beyond 32 bits as written ({@link Orchestrator#checkNumbers}). Runs before
 * anything is written.
 */
final class PayloadValidator {
  private PayloadValidator() {}

  /**
   * Lists every problem found.
   *
   * @throws InvalidReleaseException if there is any
   */
  static void validate(ReleaseSpec spec, Payloads payloads, Orchestrator cluster) {
    List<String> problems = new ArrayList<>();
    problems.addAll(healthRuleProblems(spec.options().healthRules()));
    Map<ResourceRef, String> hashes = payloads.hashes();
    Set<ResourceRef> desired = new HashSet<>();
    for (DesiredResource d : spec.resources()) {
      desired.add(d.ref());
      String payloadHash = hashes.get(d.ref());
      if (payloadHash == null) {
        problems.add("resources[" + d.ref().key() + "]: no payload was given for it");
      } else if (!payloadHash.equals(d.contentHash())) {
        problems.add(
            "resources["
                + d.ref().key()
                + "].contentHash must equal the payload's hash: spec has "
                + d.contentHash()
                + ", payload has "
                + payloadHash);
      }
    }
    for (ResourceRef ref : payloads.refs()) {
      if (ref.kind().equals(Kind.NAMESPACE)) {
        Optional<EnsuredNamespace> ensured = spec.ensured(ref.name());
        if (ensured.isEmpty()) {
          problems.add("payloads[" + ref.key() + "]: not among the spec's ensured namespaces");
        } else if (!ensured.get().equals(EnsuredNamespace.of(payloads.get(ref).orElseThrow()))) {
          problems.add(
              "payloads["
                  + ref.key()
                  + "]: its labels and annotations differ from the spec's ensured namespace");
        }
      } else if (!desired.contains(ref)) {
        problems.add("payloads[" + ref.key() + "]: not among the spec's resources");
      }
    }
    for (EnsuredNamespace e : spec.ensured()) {
      if (payloads.get(e.ref()).isEmpty()) {
        problems.add("ensured[" + e.name() + "]: no Namespace payload was given for it");
      }
    }
    Set<ResourceRef> known = new HashSet<>(desired);
    known.addAll(spec.references());
    for (ResourceSpec payload : payloads.specs()) {
      String at = "payloads[" + payload.ref().key() + "]";
      if (payload instanceof ServiceSpec s) {
        for (int i = 0; i < s.envFrom().size(); i++) {
          ServiceSpec.EnvFrom from = s.envFrom().get(i);
          requireKnown(
              known,
              () -> ResourceRef.of(from.kind(), s.namespace(), from.name()),
              at + ".envFrom[" + i + "]",
              problems);
        }
        for (int i = 0; i < s.volumeMounts().size(); i++) {
          String volume = s.volumeMounts().get(i).volume();
          requireKnown(
              known,
              () -> ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, s.namespace(), volume),
              at + ".volumeMounts[" + i + "]",
              problems);
        }
      }
      // a volume's storage class needs no StorageClass object: a claim bound statically names a
      // class none backs
    }
    problems.addAll(ConfigRollout.problems(payloads.objects()));
    problems.addAll(ApiServerLimits.check(payloads));
    checkKinds(payloads, cluster, problems);
    List<Manifest> written = new ArrayList<>(payloads.objects());
    payloads.hooks().forEach(h -> written.add(h.object()));
    for (Manifest object : written) {
      if (ApiJson.holdsNumberBeyond32Bits(object.content())) {
        cluster.checkNumbers(object).ifPresent(problems::add);
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(spec.qualifiedName(), problems);
    }
  }

  /** Asks the cluster about every kind that no CRD of the release defines. */
  private static void checkKinds(Payloads payloads, Orchestrator cluster, List<String> problems) {
    Set<String> defined = new HashSet<>();
    Set<Kind> kinds = new TreeSet<>();
    for (Manifest object : payloads.objects()) {
      kinds.add(object.kind());
      Kind definedKind = object.kind().isCrd() ? Kind.definedBy(object.content()) : null;
      if (definedKind != null) {
        defined.add(definedKind.key());
      }
    }
    for (Kind kind : kinds) {
      if (defined.contains(kind.key())) {
        continue;
      }
      Optional<String> problem = cluster.checkKind(kind);
      problem.ifPresent(p -> problems.add("kind " + kind.key() + ": " + p));
    }
  }

  /** Adds a problem when the ref is not known, or names no valid object. */
  private static void requireKnown(
      Set<ResourceRef> known,
      java.util.function.Supplier<ResourceRef> refOf,
      String field,
      List<String> problems) {
    ResourceRef ref;
    try {
      ref = refOf.get();
    } catch (IllegalArgumentException e) {
      problems.add(field + ": " + e.getMessage());
      return;
    }
    if (!known.contains(ref)) {
      problems.add(
          field
              + " refers to "
              + ref.key()
              + ", which is neither in this release nor among its references");
    }
  }

  /**
   * The problems of the release's health rules: each that does not compile (with its position), or
   * rules given without a compiler on the class path.
   */
  static List<String> healthRuleProblems(List<HealthRule> rules) {
    if (rules.isEmpty()) {
      return List.of();
    }
    try {
      HealthRuleCompiler.compileInstalled(rules);
      return List.of();
    } catch (InvalidHealthRulesException e) {
      return e.problems().stream().map(p -> "options." + p).toList();
    } catch (IllegalArgumentException e) {
      return List.of(String.valueOf(e.getMessage()));
    }
  }
}
