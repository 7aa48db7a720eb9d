/**
 * Helpers shared by the update engine's packages. <b>Not API</b>: anything here may change without
 * notice; hosts should not use it.
 *
 * <p>{@link dev.capstan.update.internal.Documents} reads YAML (snakeyaml-engine, alias and size
 * limits, no duplicate keys) and JSON (Jackson, strict duplicate detection) into plain immutable
 * trees; {@link dev.capstan.update.internal.StrictMap} walks such a tree collecting every problem
 * with its field path instead of stopping at the first.
 */
@NullMarked
package dev.capstan.update.internal;

import org.jspecify.annotations.NullMarked;
