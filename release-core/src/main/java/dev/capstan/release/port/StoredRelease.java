package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;
import java.util.Comparator;
import java.util.Optional;

/**
 * A release record as stored, with the store's version token for compare-and-set.
 *
 * @param release the record
 * @param version the store's version of it (a resourceVersion on Kubernetes)
 */
public record StoredRelease(Release release, String version) {
  /**
   * The order of {@link Store#latestRecordsInAllNamespaces()}: by namespace, then name (Java's
   * string order, not a database collation's, so every store lists alike).
   */
  public static final Comparator<StoredRelease> BY_NAMESPACE_AND_NAME =
      Comparator.comparing((StoredRelease s) -> s.release().namespace())
          .thenComparing(s -> s.release().name());

  /** Requires both parts. */
  public StoredRelease {
    requireNonNull(release, "release");
    requireNonNull(version, "version");
  }

  /**
   * Whether two reads of a release's latest record found the same thing: both no record, or the
   * same revision at the same store version (nothing recorded or changed between them).
   */
  public static boolean sameVersion(Optional<StoredRelease> a, Optional<StoredRelease> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return a.isEmpty() && b.isEmpty();
    }
    return a.get().version().equals(b.get().version())
        && a.get().release().revision() == b.get().release().revision();
  }
}
