/** Typed progress events of release operations and the listener that receives them. */
@NullMarked
package dev.capstan.release.event;

import org.jspecify.annotations.NullMarked;
