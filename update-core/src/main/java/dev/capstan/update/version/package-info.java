/**
 * Versions and image references, parsed strictly.
 *
 * <p>{@link dev.capstan.update.version.Semver} is Semantic Versioning 2.0.0 with an optional
 * leading {@code v} and full precedence (prereleases included, build metadata ignored). {@link
 * dev.capstan.update.version.ImageRef} is an OCI image reference split into registry (host and
 * port), repository path, tag and digest; it also knows the release-commit tag suffix {@code -g<40
 * hex>} that marks images built from one source commit.
 */
@NullMarked
package dev.capstan.update.version;

import org.jspecify.annotations.NullMarked;
