/**
 * Helpers shared by the update engine's packages. <b>Not API</b>: anything here may change without
 * notice; hosts should not use it.
 *
 * <p>{@link dev.capstan.update.internal.Documents} reads YAML (snakeyaml-engine, alias and size
 * limits, no duplicate keys) and JSON (Jackson, strict duplicate detection) into plain immutable
 * trees, which {@link dev.capstan.common.StrictMap} (the one strict binder) then reads field by
 * field.
 */
@NullMarked
package dev.capstan.update.internal;

import org.jspecify.annotations.NullMarked;
