/** Tests of {@code dev.capstan.update.build}. */
@NullMarked
package dev.capstan.update.build;

import org.jspecify.annotations.NullMarked;
