/** Runnable examples of Capstan: the demo on the in-memory adapters. */
@NullMarked
package dev.capstan.examples;

import org.jspecify.annotations.NullMarked;
