/**
 * Tests of the adapters: unit tests of the pure mappings, and ITs against the real control plane
 * that check behaviour and the exact requests made.
 */
@NullMarked
package dev.capstan.k8s;

import org.jspecify.annotations.NullMarked;
