package dev.capstan.release;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/** An orchestrator that hands every call to another: tests override what they observe. */
class ForwardingOrchestrator implements Orchestrator {
  private final Orchestrator to;

  ForwardingOrchestrator(Orchestrator to) {
    this.to = to;
  }

  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    return to.observe(kind, namespace, names);
  }

  @Override
  public boolean observesConcurrently() {
    return to.observesConcurrently();
  }

  @Override
  public void apply(
      Manifest object, @org.jspecify.annotations.Nullable OwnershipStamp stamp, Precondition p) {
    to.apply(object, stamp, p);
  }

  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition p) {
    return to.delete(ref, owner, p);
  }

  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition p) {
    return to.unstamp(ref, owner, p);
  }

  @Override
  public Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    return to.awaitDeleted(objects, timeout);
  }

  @Override
  public Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    return to.awaitCompletion(ref, timeout);
  }

  @Override
  public Readiness awaitCompletion(
      ResourceRef ref, Duration timeout, Consumer<Readiness.Progress> progress) {
    return to.awaitCompletion(ref, timeout, progress);
  }

  @Override
  public void createNamespace(String name) {
    to.createNamespace(name);
  }

  @Override
  public void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    to.ensureNamespace(namespace, releaseNamespace, releaseName);
  }

  @Override
  public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
    return to.awaitReady(objects, wait);
  }

  @Override
  public Optional<String> checkKind(Kind kind) {
    return to.checkKind(kind);
  }
}
