/** Tests of {@code dev.capstan.update.apply}. */
@NullMarked
package dev.capstan.update.apply;

import org.jspecify.annotations.NullMarked;
