/**
 * The fuzz suite: generated and mutated release files, catalogs, platform manifests and CRD
 * bundles, each of which must either be read or be refused with an invalid-input exception that
 * names a path, in bounded time, with every echoed value escaped.
 */
@NullMarked
package dev.capstan.examples.fuzz;

import org.jspecify.annotations.NullMarked;
