package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;

/**
 * One release of a namespace as listed ({@code ReleaseController.listing}): its latest revision,
 * or, when that revision's record cannot be read (corrupt, truncated, written by another build),
 * what is known of it and how to mend it. One unreadable record fails only its own release.
 */
public sealed interface ReleaseListing {
  /** The release's namespace. */
  String namespace();

  /** The release's name. */
  String name();

  /**
   * A release whose latest revision was read.
   *
   * @param release the latest revision
   */
  record Recorded(Release release) implements ReleaseListing {
    /** Requires the release. */
    public Recorded {
      requireNonNull(release, "release");
    }

    @Override
    public String namespace() {
      return release.namespace();
    }

    @Override
    public String name() {
      return release.name();
    }
  }

  /**
   * A release whose latest revision cannot be read.
   *
   * @param namespace the release's namespace
   * @param name the release's name
   * @param revision the revision whose record cannot be read
   * @param problem why, and how to recover (the record to delete, and what the release then reads
   *     as)
   */
  record Unreadable(String namespace, String name, int revision, String problem)
      implements ReleaseListing {
    /** Requires every part. */
    public Unreadable {
      requireNonNull(namespace, "namespace");
      requireNonNull(name, "name");
      requireNonNull(problem, "problem");
    }
  }
}
