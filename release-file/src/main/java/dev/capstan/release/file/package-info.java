/**
 * The release-file format: one YAML or JSON document per release, read by {@link
 * dev.capstan.release.file.ReleaseFiles#parse} into a {@link dev.capstan.release.file.ReleaseFile}.
 * For wrapper tools (the {@code capstan} CLI uses it); applications that render releases in Java
 * build {@code Payloads} directly.
 */
@NullMarked
package dev.capstan.release.file;

import org.jspecify.annotations.NullMarked;
