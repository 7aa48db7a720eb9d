/** Tests of {@code dev.capstan.update.build.process}. */
@NullMarked
package dev.capstan.update.build.process;

import org.jspecify.annotations.NullMarked;
