/**
 * Tests of the container image: pushed to a registry on 127.0.0.1, pulled back, and run as a
 * container runtime would run it, against the real control plane.
 */
@NullMarked
package dev.capstan.image;

import org.jspecify.annotations.NullMarked;
