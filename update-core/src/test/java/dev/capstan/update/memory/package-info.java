/** Tests of {@code dev.capstan.update.memory}. */
@NullMarked
package dev.capstan.update.memory;

import org.jspecify.annotations.NullMarked;
