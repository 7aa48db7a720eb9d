package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A parsed release file.
 *
 * @param name the release name
 * @param namespace the release's home namespace (and the default namespace of its objects)
 * @param version the version label, or {@code null}
 * @param source where the release came from, or {@code null}
 * @param payloads the rendered objects
 * @param references extra references declared in the file (namespaces and storage classes the
 *     payloads use are added by {@link #toSpec()})
 * @param options the cast options the file sets ({@code spec.options}), over the defaults
 */
public record ReleaseFile(
    String name,
    String namespace,
    @Nullable String version,
    @Nullable String source,
    Payloads payloads,
    List<ResourceRef> references,
    ReleaseOptions options) {

  /** Copies the references. */
  public ReleaseFile {
    requireNonNull(name, "name");
    requireNonNull(namespace, "namespace");
    requireNonNull(payloads, "payloads");
    requireNonNull(options, "options");
    references = List.copyOf(references);
  }

  /**
   * A release file that sets no option: the defaults a file gets, which verify its plans on the
   * server ({@link ReleaseOptions#verifyOnServer()}) as a release file without {@code
   * spec.options.verifyOnServer} does.
   */
  public ReleaseFile(
      String name,
      String namespace,
      @Nullable String version,
      @Nullable String source,
      Payloads payloads,
      List<ResourceRef> references) {
    this(
        name,
        namespace,
        version,
        source,
        payloads,
        references,
        ReleaseOptions.defaults().withVerifyOnServer(true));
  }

  /**
   * The release spec: the payloads' objects and references plus the file's own references, with the
   * file's options.
   */
  public ReleaseSpec toSpec() {
    ReleaseSpec spec =
        ReleaseSpec.of(namespace, name, payloads)
            .withVersion(version)
            .withSource(source)
            .withOptions(options);
    for (ResourceRef ref : references) {
      spec = spec.withReference(ref);
    }
    return spec;
  }
}
