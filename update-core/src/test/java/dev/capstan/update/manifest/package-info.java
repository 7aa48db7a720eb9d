/** Tests of {@code dev.capstan.update.manifest}. */
@NullMarked
package dev.capstan.update.manifest;

import org.jspecify.annotations.NullMarked;
