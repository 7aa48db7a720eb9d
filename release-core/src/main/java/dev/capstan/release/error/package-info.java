/**
 * The exceptions of the release engine's own rules, all {@link
 * dev.capstan.release.error.ReleaseException}s and so {@link dev.capstan.common.CapstanException}s:
 * a refused input ({@link dev.capstan.release.error.InvalidReleaseException}), a conflict over
 * ownership ({@link dev.capstan.release.error.ReleaseConflictException}), a lease held by another
 * ({@link dev.capstan.release.error.ReleaseLockedException}), a missing release, a stale plan or
 * record, and a failed cast or uninstall carrying what was done. A failed port call is a {@link
 * dev.capstan.common.ClusterException}.
 */
@NullMarked
package dev.capstan.release.error;

import org.jspecify.annotations.NullMarked;
