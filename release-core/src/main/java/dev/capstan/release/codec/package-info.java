/**
 * The release-record codec every store shares: gzip JSON with a schema version. See {@link
 * dev.capstan.release.codec.ReleaseRecordCodec}.
 */
@NullMarked
package dev.capstan.release.codec;

import org.jspecify.annotations.NullMarked;
