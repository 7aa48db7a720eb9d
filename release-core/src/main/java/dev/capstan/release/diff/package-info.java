/**
 * Field-level diffs between two versions of one object. {@link
 * dev.capstan.release.diff.ManifestDiff#between} compares two {@link
 * dev.capstan.release.model.Manifest} trees and returns {@link
 * dev.capstan.release.diff.FieldChange} operations ({@code path}, {@code before}, {@code after}):
 * maps key by key, lists of mappings that each carry a unique {@code name} (containers, env, ports,
 * volumes) by that name as kubectl and kapp do, other lists of equal length index by index and
 * otherwise as a whole. A Secret's fields are compared without keeping any value, but for the few
 * known to hold none ({@code apiVersion}, {@code kind}, {@code type}, {@code immutable}, {@code
 * metadata} but the annotations): the change says only that a key was added, removed or changed. So
 * is the {@code value} of an environment variable named as a secret ({@link
 * dev.capstan.common.SecretNames}), in any object. Pure: no I/O, same inputs, same diff.
 */
@NullMarked
package dev.capstan.release.diff;

import org.jspecify.annotations.NullMarked;
