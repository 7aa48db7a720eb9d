/** Tests of {@code dev.capstan.update.version}. */
@NullMarked
package dev.capstan.update.version;

import org.jspecify.annotations.NullMarked;
