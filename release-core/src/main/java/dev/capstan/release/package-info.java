/** Capstan's release engine. */
@NullMarked
package dev.capstan.release;

import org.jspecify.annotations.NullMarked;
