/** Tests of the Release controller's building blocks, and its integration tests. */
@NullMarked
package dev.capstan.controller;

import org.jspecify.annotations.NullMarked;
