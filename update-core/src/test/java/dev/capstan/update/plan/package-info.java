/** Tests of {@code dev.capstan.update.plan}. */
@NullMarked
package dev.capstan.update.plan;

import org.jspecify.annotations.NullMarked;
