/** Tests of {@code dev.capstan.update.internal}. */
@NullMarked
package dev.capstan.update.internal;

import org.jspecify.annotations.NullMarked;
