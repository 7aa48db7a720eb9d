package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Store;
import org.jspecify.annotations.Nullable;

/**
 * What a cast was asked to do, checked before anything is read or written: the {@code spec} (its
 * home namespace referenced: {@link #withHome}), the caller's {@code payloads} as the record keeps
 * them, the {@code description} a rollback records, and whether the cast is {@code detached} (it
 * finishes on another thread). The first stage of a cast; {@link CastAttempt} is the cast once
 * prepared.
 */
final class CastRequest {
  private final ReleaseSpec spec;
  private final Payloads payloads;
  private final @Nullable String description;
  private final boolean detached;

  CastRequest(ReleaseSpec spec, Payloads payloads, @Nullable String description, boolean detached) {
    this.spec = requireNonNull(spec, "spec");
    this.payloads = requireNonNull(payloads, "payloads");
    this.description = description;
    this.detached = detached;
  }

  /**
   * The request to cast {@code given} with {@code payloads}, its home namespace referenced ({@link
   * #withHome}) and its payloads validated ({@link PayloadValidator}) against the cluster of {@code
   * context}.
   *
   * @throws dev.capstan.release.error.InvalidReleaseException listing every problem found
   */
  static CastRequest validated(
      ReleaseSpec given,
      Payloads payloads,
      @Nullable String description,
      boolean detached,
      EngineContext context) {
    ReleaseSpec spec = withHome(given, context.store);
    CastRequest request = new CastRequest(spec, payloads, description, detached);
    PayloadValidator.validate(spec, payloads, context.ports.orchestrator());
    return request;
  }

  /**
   * {@code spec} with a reference to its home namespace when {@code store} keeps the release's
   * records and lease there ({@link Store#recordsInNamespace()}): the plan then shows a missing
   * one, refuses it, or creates it with {@code createNamespace}.
   */
  static ReleaseSpec withHome(ReleaseSpec spec, Store store) {
    ResourceRef home = ResourceRef.namespace(spec.namespace());
    return store.recordsInNamespace() && !spec.references().contains(home)
        ? spec.withReference(home)
        : spec;
  }

  /** The spec, its home namespace referenced. */
  ReleaseSpec spec() {
    return spec;
  }

  /** The caller's payloads, as the record keeps them. */
  Payloads payloads() {
    return payloads;
  }

  /** What the revision records as its description (a rollback's), or {@code null}. */
  @Nullable String description() {
    return description;
  }

  /** Whether the cast finishes on another thread once its intent record is saved. */
  boolean detached() {
    return detached;
  }

  /** Whether it is a rollback's cast: only a rollback describes the revision it records. */
  boolean rollback() {
    return description != null;
  }

  /**
   * Whether the cast plans before it takes its lease: a detached cast (refused before any write,
   * lease included, when its plan prunes), one that may create its home namespace (where the lease
   * lives), and an empty one (checked against the record first: refused, it writes nothing).
   */
  boolean plansFirst() {
    return detached
        || spec.options().createNamespace()
        || (spec.resources().isEmpty() && !spec.options().dangerousAllowEmpty());
  }
}
