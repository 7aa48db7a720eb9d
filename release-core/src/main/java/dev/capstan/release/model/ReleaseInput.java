package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One release as a cast takes it: its spec and the payloads rendered for it, given once. {@code
 * ReleaseController.plan(ReleaseInput)} shows what {@code cast(ReleaseInput)} would do with it, and
 * {@code castAll} takes many.
 *
 * <pre>{@code
 * Payloads v1 = Payloads.builder().service(web).build();
 * ReleaseInput shop = ReleaseInput.of("shop", "web", v1).withVersion("1.0.0");
 * releases.plan(shop);   // what the cast would do; changes nothing
 * releases.cast(shop);   // revision 1
 * }</pre>
 *
 * @param spec the release's spec: its objects' content hashes, references, options
 * @param payloads its rendered payloads, the content behind those hashes
 */
public record ReleaseInput(ReleaseSpec spec, Payloads payloads) {
  /** Requires both parts. */
  public ReleaseInput {
    requireNonNull(spec, "spec");
    requireNonNull(payloads, "payloads");
  }

  /**
   * The release {@code namespace/name} holding {@code payloads}, with the default options: its spec
   * is {@link ReleaseSpec#of(String, String, Payloads)}.
   *
   * @throws IllegalArgumentException if the namespace or the name is not a valid release name
   */
  public static ReleaseInput of(String namespace, String name, Payloads payloads) {
    return new ReleaseInput(ReleaseSpec.of(namespace, name, payloads), payloads);
  }

  /** The release as {@code namespace/name}. */
  public String qualifiedName() {
    return spec.qualifiedName();
  }

  /** A copy whose spec is {@code change} applied to this one's; the payloads stay. */
  public ReleaseInput withSpec(UnaryOperator<ReleaseSpec> change) {
    return new ReleaseInput(change.apply(spec), payloads);
  }

  /** A copy with the given cast options. */
  public ReleaseInput withOptions(ReleaseOptions options) {
    return new ReleaseInput(spec.withOptions(options), payloads);
  }

  /** A copy with the given version label (free text, shown in history). */
  public ReleaseInput withVersion(@Nullable String version) {
    return new ReleaseInput(spec.withVersion(version), payloads);
  }

  /** A copy with the given source description (free text, shown in history). */
  public ReleaseInput withSource(@Nullable String source) {
    return new ReleaseInput(spec.withSource(source), payloads);
  }

  /**
   * The release and what it holds, e.g. {@code ReleaseInput[shop/web: 3 objects]}: never the
   * content (a Secret's values do not print).
   */
  @Override
  public String toString() {
    int n = payloads.size();
    return "ReleaseInput[" + qualifiedName() + ": " + n + (n == 1 ? " object]" : " objects]");
  }
}
