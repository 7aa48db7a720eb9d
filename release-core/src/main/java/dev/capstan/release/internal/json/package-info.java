/**
 * The Jackson mapper of the release model ({@link dev.capstan.release.internal.json.Json}), apart
 * from {@code release.internal} because it depends on the model, which depends on those helpers.
 * Not API.
 */
@NullMarked
package dev.capstan.release.internal.json;

import org.jspecify.annotations.NullMarked;
