/** The contract run against the in-memory store. */
@NullMarked
package dev.capstan.store.tck;

import org.jspecify.annotations.NullMarked;
