package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

/**
 * One release to cast among many ({@code ReleaseController.castAll}): its spec and the payloads
 * rendered for it, as {@code ReleaseController.cast(ReleaseSpec, Payloads)} takes them.
 *
 * @param spec the release's spec
 * @param payloads its rendered payloads
 */
public record ReleaseInput(ReleaseSpec spec, Payloads payloads) {
  /** Requires both parts. */
  public ReleaseInput {
    requireNonNull(spec, "spec");
    requireNonNull(payloads, "payloads");
  }

  /** The release as {@code namespace/name}. */
  public String qualifiedName() {
    return spec.qualifiedName();
  }
}
