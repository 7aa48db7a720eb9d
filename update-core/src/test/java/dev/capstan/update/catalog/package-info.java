/** Tests of {@code dev.capstan.update.catalog}. */
@NullMarked
package dev.capstan.update.catalog;

import org.jspecify.annotations.NullMarked;
