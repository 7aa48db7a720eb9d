/** The contracts run against the in-memory store, orchestrator and platform cluster. */
@NullMarked
package dev.capstan.store.tck;

import org.jspecify.annotations.NullMarked;
