/** Tests of {@code dev.capstan.update.cluster}. */
@NullMarked
package dev.capstan.update.cluster;

import org.jspecify.annotations.NullMarked;
