package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.file.InvalidReleaseFileException;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The objects a Helm revision's hooks name, from the look when an import is planned to the mark
 * after its cast (ARCHITECTURE.md, "Coming from Helm"). Helm does not track them, so the name is
 * all that ties one to the release: the look judges each object found there, and only one that is
 * this Helm release's hook as it stands is marked ({@link Hook#HOOK_OF}), written under the
 * precondition of that look; any other is left as it is, with the reason.
 */
final class HookMarking {
  /** Helm's annotation naming the release that owns an object it installed. */
  static final String HELM_RELEASE_NAME = "meta.helm.sh/release-name";

  /** Helm's annotation naming that release's namespace. */
  static final String HELM_RELEASE_NAMESPACE = "meta.helm.sh/release-namespace";

  private final Orchestrator orchestrator;
  private final String namespace;
  private final String release;

  HookMarking(Orchestrator orchestrator, String namespace, String release) {
    this.orchestrator = requireNonNull(orchestrator, "orchestrator");
    this.namespace = requireNonNull(namespace, "namespace");
    this.release = requireNonNull(release, "release");
  }

  /**
   * Looks at each object {@code r}'s hooks name: absent, this Helm release's hook (marked by {@link
   * #mark} on this observation), or left as it is, and why.
   */
  List<HelmImportPlan.HookObject> look(HelmRevision r) {
    List<HelmImportPlan.HookObject> out = new ArrayList<>();
    for (HelmHook hook : r.hooks()) {
      Payloads objects = payloads(hook, r, namespace, release);
      for (ResourceRef ref : objects.refs()) {
        // a document of a hook's manifest that Capstan reads as no hook is never marked
        out.add(look(ref, hook.events(), "Capstan reads it as an object, not as a hook"));
      }
      for (Hook h : objects.hooks()) {
        out.add(look(h.ref(), hook.events(), null));
      }
    }
    return out;
  }

  private HelmImportPlan.HookObject look(
      ResourceRef ref, List<String> events, @Nullable String noHook) {
    Optional<LiveObject> live =
        orchestrator.checkKind(ref.kind()).isPresent()
            ? Optional.empty()
            : orchestrator.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).stream()
                .filter(o -> o.ref().equals(ref))
                .findFirst();
    String why = live.isEmpty() || noHook != null ? noHook : notThisReleasesHook(live.get());
    if (why != null && noHook == null) {
      why = "it is not this Helm release's hook (" + why + ")";
    }
    return new HelmImportPlan.HookObject(
        ref, events, live.isPresent(), why == null ? null : notMarked(why), Precondition.of(live));
  }

  /**
   * Why {@code live} is not this Helm release's hook object as it stands, or {@code null} when it
   * is: it carries Helm's hook annotation ({@value Hook#HELM_HOOK}); Helm's release annotations
   * ({@value #HELM_RELEASE_NAMESPACE}, {@value #HELM_RELEASE_NAME}), where set, name this release;
   * it carries no Capstan ownership stamp (a hook object is never owned, so a stamped object is a
   * release's own, whichever release, as an adopting plan tells it) and no {@value Hook#HOOK_OF} of
   * another release.
   */
  @Nullable String notThisReleasesHook(LiveObject live) {
    OwnershipStamp stamp = live.stamp();
    if (stamp != null) {
      return "owned by release " + stamp.owner().qualifiedName();
    }
    Map<String, String> a = live.annotations();
    String hookOf = a.get(Hook.HOOK_OF);
    if (hookOf != null && !hookOf.equals(qualified())) {
      return "a hook object of release " + hookOf + " (" + Hook.HOOK_OF + ")";
    }
    if (!a.containsKey(Hook.HELM_HOOK)) {
      return "no " + Hook.HELM_HOOK + " annotation";
    }
    String helmNamespace = a.getOrDefault(HELM_RELEASE_NAMESPACE, namespace);
    String helmName = a.getOrDefault(HELM_RELEASE_NAME, release);
    if (!helmNamespace.equals(namespace) || !helmName.equals(release)) {
      return "Helm's annotations name release " + helmNamespace + "/" + helmName;
    }
    return null;
  }

  /**
   * Marks each object {@code looked} found to be this release's hook, written once as Helm rendered
   * it in {@code r}, with the mark, under the precondition of the look: an object changed or
   * replaced since is not written. An absent one is not created; one left as it is stays so. The
   * mark names the release and its id ({@link Hook#marked}), as the cast that imported it has them.
   *
   * @return the objects as the import left them
   */
  List<HelmImportPlan.HookObject> mark(
      HelmRevision r, List<HelmImportPlan.HookObject> looked, ReleaseIdentity identity) {
    List<Hook> hooks = new ArrayList<>();
    for (HelmHook hook : r.hooks()) {
      hooks.addAll(payloads(hook, r, namespace, release).hooks());
    }
    List<HelmImportPlan.HookObject> out = new ArrayList<>();
    for (HelmImportPlan.HookObject o : looked) {
      Optional<Hook> hook = hooks.stream().filter(h -> h.ref().equals(o.ref())).findFirst();
      if (!o.marked() || hook.isEmpty()) {
        out.add(o);
        continue;
      }
      try {
        orchestrator.apply(Hook.marked(hook.get().object(), identity), null, o.observed());
        out.add(o);
      } catch (PreconditionFailedException e) {
        out.add(o.leftAsIs(notMarked("it changed since it was looked at")));
      }
    }
    return out;
  }

  private String notMarked(String why) {
    return "not marked as a hook of " + qualified() + ": " + why;
  }

  private String qualified() {
    return namespace + "/" + release;
  }

  /** The objects of one of {@code r}'s hooks, read as plain manifests are. */
  static Payloads payloads(HelmHook hook, HelmRevision r, String namespace, String release) {
    String source =
        "Helm release " + release + " revision " + r.revision() + " hook " + hook.path();
    try {
      return ReleaseFiles.manifestText(hook.manifest(), source, new Overrides(namespace, release))
          .payloads();
    } catch (InvalidReleaseFileException e) {
      throw new ReleaseException(e.getMessage() + "\nnothing was written", e);
    }
  }
}
